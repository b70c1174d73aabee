# Run C: the code and trees of this commit on the GPU: build, the whole `gpu` label, auto on the
# held-out matrices of the training (scripts/selector-validate.sh), then the benchmark of run A's
# matrices against cuSPARSE (cusparse, scalar, merge, hola, vector-adaptive, auto; N and T).
R=$OUT/C; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"; B=build-device
mkdir -p .carry/matrices; for f in .carry/mgz/*.gz; do gunzip -c $f > .carry/matrices/$(basename $f .gz); done
export LOGS=$R/check
bash scripts/device-check.sh build > $R/build-stage.log 2>&1; echo "build rc=$? at $(el) s"
timeout $(( 470 - $(el) )) bash scripts/device-check.sh test > $R/test-stage.log 2>&1; echo "test rc=$? at $(el) s"
tail -4 $R/check/gpu-tests.log
timeout 70 bash scripts/selector-validate.sh bench/results/selector-2026-11-28.json bench/selector/data/2026-11-28-h200.json.gz > $R/validate.log 2>&1
echo "validate rc=$? at $(el) s"; tail -4 $R/validate.log
cp bench/results/selector-2026-11-28.json bench/results/selector-2026-11-28-auto.json* $R/ 2>/dev/null
M="-m stencil27:n=128 -m stencil27:n=100 -m elasticity:n=64 -m elasticity:n=48 -m poisson3d:n=200 -m banded:sigma=10 -m banded:sigma=100 -m banded:sigma=1000 -m random:per_row=22 -m rmat:scale=21,ef=16 -m circuit -m powerlaw:rows=2000000,mean=16,tail=1.5 -m poisson3d:n=160,perm=1"
M="$M -m poisson2d:n=3000 -m stencil27:n=64 -m elasticity:n=32 -m random:rows=2000000,per_row=5"
M="$M -m poisson3d:n=40 -m stencil27:n=24 -m elasticity:n=16 -m random:rows=20000,per_row=10 -m .carry/matrices/bcsstk13.mtx -m .carry/matrices/usroads.mtx -m .carry/matrices/CA-HepPh.mtx"
CMD="$B/solvers_demo/hola-bench --commit $C $M -k cusparse -k scalar -k merge -k hola -k vector-adaptive -k auto -p double -p float --op N --op T --warmup 5 --reps 20 --json $R/C-final.json"
left=$(( 590 - $(el) )); [ $left -gt 10 ] || left=10
(echo "# commit $C, $G, command: $CMD"; timeout $left $CMD) > $R/C-final.txt 2>$R/C-final.err
echo "bench rc=$? at $(el) s"; gzip -9 $R/C-final.json
cd $OUT && tar czf C.tgz C && rm -rf C
