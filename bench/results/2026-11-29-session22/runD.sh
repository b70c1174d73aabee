# Run D (session 22): the final code. The whole `gpu` label (scripts/device-check.sh build, then
# test with ctest -j 6), compute-sanitizer memcheck of the window plan's sample test on two type
# combinations, then as in runs B and C the first op T product of vector-adaptive against the same
# kernel with windows off, cuSPARSE and auto, one loading / checking thread (-j 1).
# (Carries 2 of the 11 real matrices, .carry/mgz-small: the working tree is near the device tool's 64 MiB.)
R=$OUT/D; mkdir -p $R; nvidia-smi -L > $R/D-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
mkdir -p .carry/matrices; for f in .carry/mgz-small/*.gz; do gunzip -c $f > .carry/matrices/$(basename $f .gz); done
export LOGS=$R/check
(echo "# run D: commit $C, $G, command: bash scripts/device-check.sh build"; bash scripts/device-check.sh build) > $R/D-build-stage.log 2>&1; echo "build rc=$? at $(el) s"
rm -f $OUT/device-check.tgz
(echo "# run D: commit $C, $G, command: CTEST_ARGS='-j 6' bash scripts/device-check.sh test"; CTEST_ARGS="-j 6" bash scripts/device-check.sh test) > $R/D-test-stage.log 2>&1; echo "test rc=$? at $(el) s"
rm -f $OUT/device-check.tgz; cp $OUT/summary.txt $R/D-device-check-summary.txt; cp $R/check/gpu-tests.log $R/D-gpu-tests.log 2>/dev/null
grep -E "tests passed|Failed|\*\*\*" $R/D-gpu-tests.log | tail -8
B=build-device
(echo "# run D: commit $C, $G"; timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/rowwise_test --gtest_filter='RowwiseTest/0.WindowPlanSample*:RowwiseTest/7.WindowPlanSample*') > $R/D-memcheck.log 2>&1; echo "memcheck rc=$? at $(el) s"; tail -2 $R/D-memcheck.log
M="-m anchors -m interp3d:n=65 -m banded:rows=2097152,cols=262144,per_row=16,sigma=300"
for s in 1000 10000; do for p in 22 40; do M="$M -m banded:rows=2000000,per_row=$p,sigma=$s"; done; done
K="-k cusparse -k vector-adaptive -k vector-adaptive:win=0 -k auto"
ARGS="$M $K -p double -p float --op T --warmup 3 --reps 10 -j 1 --no-progress --commit $C --json $R/D-first.json"
(echo "# run D: commit $C, $G, command: hola-bench $ARGS"; timeout $(( 585 - $(el) )) $B/solvers_demo/hola-bench $ARGS) > $R/D-first.txt 2> $R/D-first.err
echo "bench rc=$? at $(el) s"; tail -3 $R/D-first.err
rm -rf $R/check/*.json 2>/dev/null; gzip -9 $R/*.json 2>/dev/null
cd $OUT && tar czf D.tgz D && rm -rf D
