# Run B (session 21): the windows' budget chosen by a timed trial at the first op T (48 KiB,
# 24 KiB, the plain scatter). Builds hola-bench and the tests; runs rowwise_test's window and
# scatter tests, operator_gpu_test, auto_check_gpu_test, stress_regression_test; compute-sanitizer
# racecheck on forced windows (small square / tall bands) and memcheck on the trial (a band of
# 400 000 rows); times op T on run A's rectangular set, session 20's 28 bands and the anchors:
# vector-adaptive by default (trial), at 48 and 24 KiB untimed, without windows, cuSPARSE, auto.
R=$OUT/B; mkdir -p $R; nvidia-smi -L > $R/B-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
source scripts/env.sh; B=build-device
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$(gpu_arch) > $R/B-build.log 2>&1 &&
  cmake --build $B -j $JOBS --target hola-bench rowwise_test operator_gpu_test auto_check_gpu_test stress_regression_test >> $R/B-build.log 2>&1 || { tail -30 $R/B-build.log; exit 1; }
echo "built at $(el) s"
(echo "# run B: commit $C, $G"; timeout 100 $B/tests/rowwise_test --gtest_filter='*TransposeWindows*:*ScatterTranspose*') > $R/B-rowwise_test.log 2>&1; echo "rowwise_test rc=$? at $(el) s"; tail -2 $R/B-rowwise_test.log
for t in operator_gpu_test auto_check_gpu_test stress/stress_regression_test; do
  n=$(basename $t)
  (echo "# run B: commit $C, $G"; timeout 90 $B/tests/$t) > $R/B-$n.log 2>&1; echo "$n rc=$? at $(el) s"; tail -2 $R/B-$n.log
done
S="-m banded:rows=60000,per_row=12,sigma=100 -m banded:rows=80000,cols=10000,per_row=8,sigma=20 -k vector-adaptive:win=1 -k vector:win=1 -p double -p float --op T --warmup 0 --reps 1 --no-progress"
(echo "# run B: commit $C, $G, compute-sanitizer --tool racecheck hola-bench $S"; timeout 60 compute-sanitizer --tool racecheck --error-exitcode 9 $B/solvers_demo/hola-bench $S) > $R/B-racecheck.log 2>&1; echo "racecheck rc=$? at $(el) s"; tail -3 $R/B-racecheck.log
S="-m banded:rows=400000,per_row=12,sigma=100 -m banded:rows=400000,cols=100000,per_row=8,sigma=20 -k vector-adaptive -p double -p float --op T --warmup 0 --reps 1 --no-progress"
(echo "# run B: commit $C, $G, compute-sanitizer --tool memcheck hola-bench $S"; timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $B/solvers_demo/hola-bench $S) > $R/B-memcheck.log 2>&1; echo "memcheck rc=$? at $(el) s"; tail -3 $R/B-memcheck.log
M="$(cat bench/results/2026-11-29-session20/runB-matrices.txt) -m anchors -m banded:rows=8388608,cols=1048576,per_row=8,sigma=20 -m banded:rows=8388608,cols=1048576,per_row=8,sigma=200 -m banded:rows=4194304,cols=2097152,per_row=12,sigma=100 -m banded:rows=2097152,cols=8388608,per_row=22,sigma=300 -m banded:rows=2097152,cols=8388608,per_row=22,sigma=2000"
K="-k cusparse -k vector-adaptive -k vector-adaptive:wkib=48 -k vector-adaptive:wkib=24 -k vector-adaptive:win=0 -k auto"
ARGS="$M $K -p double -p float --op T --warmup 5 --reps 20 -j $JOBS --no-progress --commit $C --json $R/B-trial.json"
(echo "# run B: commit $C, $G, command: hola-bench $ARGS"; timeout $(( 575 - $(el) )) $B/solvers_demo/hola-bench $ARGS) > $R/B-trial.txt 2> $R/B-trial.err
echo "trial bench rc=$? at $(el) s"
gzip -9 $R/*.json 2>/dev/null
cd $OUT && tar czf B.tgz B && rm -rf B
