# Run E: the final code (no column sort in hola op N, evict-first matrix loads in hola N / T and
# merge N, no L2 prefetch by default): the benchmark against cuSPARSE, then the whole `gpu` label.
R=$OUT/E; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"; B=build-device
mkdir -p .carry/matrices; for f in .carry/mgz/*.gz; do gunzip -c $f > .carry/matrices/$(basename $f .gz); done
export LOGS=$R/check
bash scripts/device-check.sh build > $R/build-stage.log 2>&1; echo "build rc=$? at $(el) s"
M="-m stencil27:n=128 -m stencil27:n=100 -m elasticity:n=64 -m elasticity:n=48 -m poisson3d:n=200 -m banded:sigma=10 -m banded:sigma=100 -m banded:sigma=1000 -m random:per_row=22 -m rmat:scale=21,ef=16 -m circuit -m powerlaw:rows=2000000,mean=16,tail=1.5 -m poisson3d:n=160,perm=1"
M="$M -m poisson3d:n=40 -m stencil27:n=24 -m elasticity:n=16 -m random:rows=20000,per_row=10 -m .carry/matrices/bcsstk13.mtx -m .carry/matrices/usroads.mtx -m .carry/matrices/CA-HepPh.mtx"
CMD="$B/solvers_demo/hola-bench --commit $C $M -k cusparse -k scalar -k merge -k hola -k auto -p double -p float --op N --op T --warmup 5 --reps 20 --json $R/E-final.json"
(echo "# commit $C, $G, command: $CMD"; timeout 90 $CMD) > $R/E-final.txt 2>$R/E-final.err
echo "bench rc=$? at $(el) s"; gzip -9 $R/E-final.json
timeout $(( 575 - $(el) )) bash scripts/device-check.sh test > $R/test-stage.log 2>&1; echo "test rc=$? at $(el) s"
tail -5 $R/check/gpu-tests.log
cd $OUT && tar czf E.tgz E && rm -rf E
