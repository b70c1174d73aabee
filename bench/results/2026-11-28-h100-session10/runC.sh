# Run C: the whole `gpu` ctest label at this commit (with HolaTest.L2PrefetchChangesNoResult and
# HolaL2Prefetch.DefaultRule), then run B's matrices again with the final rule (half a wave ahead,
# at most 0.25 sectors a nonzero), double and float, against pf=0 in the same run.
R=$OUT/C; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"; B=build-device
mkdir -p .carry/matrices && for f in .carry/mgz/*.mtx.gz; do [ -s .carry/matrices/$(basename $f .gz) ] || gunzip -c $f > .carry/matrices/$(basename $f .gz); done
LOGS=$R/check HOLA_COMMIT=$C timeout 470 scripts/device-check.sh build test > $R/device-check.log 2>&1
echo "device-check rc=$? at $(el) s"; mv $OUT/summary.txt $R/C-device-check-summary.txt; mv $OUT/device-check.tgz $R/C-device-check.tgz; rm -rf $R/check
cat $R/C-device-check-summary.txt | tail -25
M="-m stencil27:n=128 -m stencil27:n=100 -m elasticity:n=64 -m elasticity:n=48 -m poisson3d:n=200 -m poisson3d:n=150 -m poisson2d:n=3000 -m banded:sigma=10 -m banded:sigma=100 -m banded:sigma=1000 -m random:per_row=22 -m rmat:scale=21,ef=16 -m circuit -m powerlaw:rows=2000000,mean=16,tail=1.5 -m poisson3d:n=160,perm=1"
K="-k cusparse -k merge -k scalar -k hola:pf=0 -k hola -k auto"
CMD="$B/solvers_demo/hola-bench --commit $C $M $K -p double -p float --op N --warmup 5 --reps 20 --json $R/C-prefetch-final.json"
(echo "# commit $C, $G, command: $CMD"; timeout $(( 590 - $(el) )) $CMD) > $R/C-prefetch-final.txt 2>$R/C-prefetch-final.err
echo "bench rc=$? at $(el) s"; gzip -9 $R/C-prefetch-final.json
