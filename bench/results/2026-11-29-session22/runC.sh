# Run C (session 22): the window plan's sample counted on the GPU (CUB; commit after run B's).
# Builds hola-bench and rowwise_test; the window and sample tests on every type combination, the
# sample test of two type combinations under compute-sanitizer memcheck; then, as in run B, the
# first op T product (plan, trial and product) of vector-adaptive against the same kernel with
# windows off (no plan) and cuSPARSE, on the anchors, bands and an interpolation, one CPU thread
# for hola-bench's loading and checking (-j 1) so that nothing shares the host with the plan.
R=$OUT/C; mkdir -p $R; nvidia-smi -L > $R/C-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
source scripts/env.sh; B=build-device
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$(gpu_arch) > $R/C-build.log 2>&1 &&
  cmake --build $B -j $JOBS --target hola-bench rowwise_test >> $R/C-build.log 2>&1 || { tail -30 $R/C-build.log; exit 1; }
echo "built at $(el) s"
(echo "# run C: commit $C, $G"; timeout 170 $B/tests/rowwise_test --gtest_filter='*TransposeWindows*:*WindowPlanSample*') > $R/C-rowwise_test.log 2>&1; echo "rowwise_test rc=$? at $(el) s"; tail -2 $R/C-rowwise_test.log
(echo "# run C: commit $C, $G"; timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/rowwise_test --gtest_filter='RowwiseTest/0.WindowPlanSample*:RowwiseTest/7.WindowPlanSample*') > $R/C-memcheck.log 2>&1; echo "memcheck rc=$? at $(el) s"; tail -2 $R/C-memcheck.log
M="-m anchors -m interp3d:n=65 -m banded:rows=2097152,cols=262144,per_row=16,sigma=300"
for s in 1000 10000; do for p in 22 40; do M="$M -m banded:rows=2000000,per_row=$p,sigma=$s"; done; done
K="-k cusparse -k vector-adaptive -k vector-adaptive:win=0 -k auto"
ARGS="$M $K -p double -p float --op T --warmup 3 --reps 10 -j 1 --no-progress --commit $C --json $R/C-first.json"
(echo "# run C: commit $C, $G, command: hola-bench $ARGS"; timeout $(( 560 - $(el) )) $B/solvers_demo/hola-bench $ARGS) > $R/C-first.txt 2> $R/C-first.err
echo "bench rc=$? at $(el) s"; tail -3 $R/C-first.err
gzip -9 $R/*.json 2>/dev/null
cd $OUT && tar czf C.tgz C && rm -rf C
