# Run A (session 24): session 22-23's final code, the GPU checks that run D of session 22 did not
# reach. Builds hola-bench, rowwise_test and auto_check_memory_full_test; rowwise_test whole (2 of
# the 11 real matrices travel, .carry/mgz-small); auto_check_memory_full_test; memcheck of the
# window plan's sample test on two type combinations; then the first op T product (plan, trial and
# product) of vector-adaptive against the same kernel with windows off, cuSPARSE and auto on the
# anchors, an interpolation and five bands, one loading / checking thread (-j 1), as session 22's
# runs B and C.
R=$OUT/A; mkdir -p $R; nvidia-smi -L > $R/A-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
mkdir -p .carry/matrices; for f in .carry/mgz-small/*.gz; do gunzip -c $f > .carry/matrices/$(basename $f .gz); done
export HOLA_MATRICES_DIR=$PWD/.carry/matrices
source scripts/env.sh; B=build-device
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$(gpu_arch) > $R/A-build.log 2>&1 &&
  cmake --build $B -j $JOBS --target hola-bench rowwise_test auto_check_memory_full_test >> $R/A-build.log 2>&1 || { tail -30 $R/A-build.log; exit 1; }
echo "built at $(el) s"
(echo "# run A: commit $C, $G"; timeout 260 $B/tests/rowwise_test) > $R/A-rowwise_test.log 2>&1; echo "rowwise_test rc=$? at $(el) s"; tail -3 $R/A-rowwise_test.log
(echo "# run A: commit $C, $G"; timeout 60 $B/tests/auto_check_memory_full_test) > $R/A-auto_check_memory_full_test.log 2>&1; echo "memory_full rc=$? at $(el) s"; tail -2 $R/A-auto_check_memory_full_test.log
(echo "# run A: commit $C, $G"; timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/rowwise_test --gtest_filter='RowwiseTest/0.WindowPlanSample*:RowwiseTest/7.WindowPlanSample*') > $R/A-memcheck.log 2>&1; echo "memcheck rc=$? at $(el) s"; tail -2 $R/A-memcheck.log
M="-m anchors -m interp3d:n=65 -m banded:rows=2097152,cols=262144,per_row=16,sigma=300"
for s in 1000 10000; do for p in 22 40; do M="$M -m banded:rows=2000000,per_row=$p,sigma=$s"; done; done
K="-k cusparse -k vector-adaptive -k vector-adaptive:win=0 -k auto"
ARGS="$M $K -p double -p float --op T --warmup 3 --reps 10 -j 1 --no-progress --commit $C --json $R/A-first.json"
(echo "# run A: commit $C, $G, command: hola-bench $ARGS"; timeout $(( 585 - $(el) )) $B/solvers_demo/hola-bench $ARGS) > $R/A-first.txt 2> $R/A-first.err
echo "bench rc=$? at $(el) s"; tail -3 $R/A-first.err
gzip -9 $R/*.json 2>/dev/null
cd $OUT && tar czf A.tgz A && rm -rf A
