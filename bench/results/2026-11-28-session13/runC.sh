# Run C (session 13): auto with the block-row rule (inode where rows repeat the row above), the
# inode kernel's GPU tests (lighter corpus), the features and operator suites, auto against
# cuSPARSE on block-row and other matrices, the fuzzer on inode and auto, and the scale stage's
# quick cases on inode.
R=$OUT/C; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"; B=build-device
mkdir -p .carry/matrices; for f in .carry/mgz/*.gz; do gunzip -c $f > .carry/matrices/$(basename $f .gz); done
source scripts/env.sh
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/build.log 2>&1 &&
  cmake --build $B -j "$JOBS" --target hola-bench inode_test features_test operator_gpu_test auto_check_gpu_test hola-stress >> $R/build.log 2>&1
echo "build rc=$? at $(el) s"; tail -1 $R/build.log
for t in inode_test features_test; do
  (echo "# commit $C, $G, command: $B/tests/$t"; HOLA_MATRICES_DIR=.carry/matrices timeout 120 $B/tests/$t) > $R/C-$t.log 2>&1
  echo "$t rc=$? at $(el) s"; tail -1 $R/C-$t.log; grep -m3 "FAILED  \]" $R/C-$t.log
done
M="-m elasticity:n=64 -m elasticity:n=48 -m elasticity:n=32 -m elasticity:n=16 -m elasticity:n=50,block=2 -m elasticity:n=32,block=4 -m elasticity:n=28,block=5 -m elasticity:n=24,block=8"
M="$M -m stencil27:n=128 -m poisson3d:n=200 -m banded:sigma=100 -m rmat:scale=21,ef=16 -m circuit -m .carry/matrices/bcsstk13.mtx -m .carry/matrices/usroads.mtx"
CMD="$B/solvers_demo/hola-bench --commit $C $M -k cusparse -k inode -k auto -p double -p float --op N --op T --warmup 5 --reps 20 --json $R/C-auto.json"
(echo "# commit $C, $G, command: $CMD"; timeout 150 $CMD) > $R/C-auto.txt 2>$R/C-auto.err
echo "bench rc=$? at $(el) s"; gzip -9 $R/C-auto.json; tail -n 1 $R/C-auto.err
for t in operator_gpu_test auto_check_gpu_test; do
  (echo "# commit $C, $G, command: $B/tests/$t"; HOLA_MATRICES_DIR=.carry/matrices timeout 100 $B/tests/$t) > $R/C-$t.log 2>&1
  echo "$t rc=$? at $(el) s"; tail -1 $R/C-$t.log; grep -m3 "FAILED  \]" $R/C-$t.log
done
S=$B/tests/stress/hola-stress
(echo "# commit $C, $G, command: $S --fuzz 1000 --seed 20261130 --kernel inode --kernel auto"
 timeout 90 $S --fuzz 1000 --seed 20261130 --kernel inode --kernel auto) > $R/C-fuzz.txt 2>&1
echo "fuzz rc=$? at $(el) s"; tail -1 $R/C-fuzz.txt
(echo "# commit $C, $G, command: $S --scale --regressions --quick --kernel inode --max-gib 40 -v"
 timeout $(( 560 - $(el) )) $S --scale --regressions --quick --kernel inode --max-gib 40 -v) > $R/C-scale.txt 2>&1
echo "scale rc=$? at $(el) s"; tail -1 $R/C-scale.txt; grep -E "FAIL|fail" $R/C-scale.txt | head -5
cd $OUT && tar czf C.tgz C && rm -rf C
