# Run E (session 21): a third budget, 96 KiB (opted in), among the timed windows. Builds
# hola-bench and rowwise_test; the window test on three type combinations; op T of bands of sigma
# 1 000-10 000 (2 M rows, 6-40 a row), the wide band of sigma 2 000 and the anchor bands:
# vector-adaptive by default (timed among 48, 24, 96 KiB and the plain scatter), at 96 and 48 KiB
# untimed, cuSPARSE.
R=$OUT/E; mkdir -p $R; nvidia-smi -L > $R/E-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
source scripts/env.sh; B=build-device
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$(gpu_arch) > $R/E-build.log 2>&1 &&
  cmake --build $B -j $JOBS --target hola-bench rowwise_test >> $R/E-build.log 2>&1 || { tail -30 $R/E-build.log; exit 1; }
echo "built at $(el) s"
(echo "# run E: commit $C, $G"; timeout 60 $B/tests/rowwise_test --gtest_filter='RowwiseTest/0.TransposeWindows:RowwiseTest/5.TransposeWindows:RowwiseTest/7.TransposeWindows') > $R/E-rowwise_test.log 2>&1; echo "rowwise_test rc=$? at $(el) s"; tail -2 $R/E-rowwise_test.log
M="-m anchors -m banded:rows=2097152,cols=8388608,per_row=22,sigma=2000"; for s in 1000 3000 10000; do for p in 6 12 22 40; do M="$M -m banded:rows=2000000,per_row=$p,sigma=$s"; done; done
K="-k cusparse -k vector-adaptive -k vector-adaptive:wkib=96 -k vector-adaptive:wkib=48"
ARGS="$M $K -p double -p float --op T --warmup 5 --reps 20 -j $JOBS --no-progress --commit $C --json $R/E-budget96.json"
(echo "# run E: commit $C, $G, command: hola-bench $ARGS"; timeout $(( 250 - $(el) )) $B/solvers_demo/hola-bench $ARGS) > $R/E-budget96.txt 2> $R/E-budget96.err
echo "bench rc=$? at $(el) s"
gzip -9 $R/*.json 2>/dev/null
cd $OUT && tar czf E.tgz E && rm -rf E
