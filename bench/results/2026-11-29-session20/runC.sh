# Run C (session 20): the windows' tiles balanced to whole waves of resident blocks, auto's
# check weighing vector-adaptive on op T from 4 entries a row, and hola-stress's band of random
# columns. Builds hola-bench, the test executables and hola-stress; times run B's set again
# (op T: vector-adaptive with and without windows, cuSPARSE, hola, auto); runs rowwise_test's
# scatter and window tests, operator_gpu_test, auto_check_gpu_test, stress_regression_test (with
# the new band case on every kernel and type), and the scale stage's cases on vector,
# vector-adaptive and auto (among them a band of 2.4e9 nonzeros with 64-bit offsets).
R=$OUT/C; mkdir -p $R; nvidia-smi -L > $R/C-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
source scripts/env.sh; B=build-device
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$(gpu_arch) > $R/C-build.log 2>&1 &&
  cmake --build $B -j $JOBS --target hola-bench rowwise_test operator_gpu_test auto_check_gpu_test hola-stress stress_regression_test >> $R/C-build.log 2>&1 || { tail -30 $R/C-build.log; exit 1; }
echo "built at $(el) s"
M="$(cat bench/results/2026-11-29-session20/runB-matrices.txt) -m anchors -m elasticity:n=64 -m poisson2d:n=2000 -m banded:rows=4000000,per_row=12,sigma=300"
K="-k cusparse -k vector-adaptive -k vector-adaptive:win=0 -k hola -k auto"
ARGS="$M $K -p double -p float --op T --warmup 5 --reps 20 -j $JOBS --no-progress --commit $C --json $R/C-bands.json"
(echo "# run C: commit $C, $G, command: hola-bench $ARGS"; timeout 120 $B/solvers_demo/hola-bench $ARGS) > $R/C-bands.txt 2> $R/C-bands.err
echo "bands bench rc=$? at $(el) s"
(echo "# run C: commit $C, $G"; timeout 90 $B/tests/rowwise_test --gtest_filter='*TransposeWindows*:*ScatterTranspose*') > $R/C-rowwise_test.log 2>&1; echo "rowwise_test rc=$? at $(el) s"
for t in operator_gpu_test auto_check_gpu_test stress/stress_regression_test; do
  n=$(basename $t)
  (echo "# run C: commit $C, $G"; timeout 90 $B/tests/$t) > $R/C-$n.log 2>&1; echo "$n rc=$? at $(el) s"
  tail -2 $R/C-$n.log
done
S="$B/tests/stress/hola-stress --scale --quick --kernel vector --kernel vector-adaptive --kernel auto --output $R/C-scale.json"
(echo "# run C: commit $C, $G, command: $S"; timeout $(( 575 - $(el) )) $S) > $R/C-scale.log 2>&1; echo "scale rc=$? at $(el) s"
tail -4 $R/C-scale.log; grep -B1 -A1 "band" $R/C-scale.log | head
gzip -9 $R/*.json 2>/dev/null
cd $OUT && tar czf C.tgz C && rm -rf C
