# Run A (session 21): op T windows along the scaled diagonal of rectangular matrices (tall / wide
# bands, trilinear interpolation), and the windows' shared-memory budget (wkib). Builds hola-bench
# and rowwise_test; runs rowwise_test's window and scatter tests, then compute-sanitizer memcheck
# and racecheck on one type's window test; times op N and T on tall / wide bands and
# interpolation matrices (vector-adaptive with and without windows, cuSPARSE, hola, auto) and op T
# of vector-adaptive at 48 / 32 / 24 / 16 KiB of windows on run B's square bands of sigma 100-3000.
R=$OUT/A; mkdir -p $R; nvidia-smi -L > $R/A-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
source scripts/env.sh; B=build-device
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$(gpu_arch) > $R/A-build.log 2>&1 &&
  cmake --build $B -j $JOBS --target hola-bench rowwise_test >> $R/A-build.log 2>&1 || { tail -30 $R/A-build.log; exit 1; }
echo "built at $(el) s"
(echo "# run A: commit $C, $G"; timeout 100 $B/tests/rowwise_test --gtest_filter='*TransposeWindows*:*ScatterTranspose*') > $R/A-rowwise_test.log 2>&1; echo "rowwise_test rc=$? at $(el) s"; tail -3 $R/A-rowwise_test.log
for tool in memcheck racecheck; do
  (echo "# run A: commit $C, $G, compute-sanitizer --tool $tool"; timeout 70 compute-sanitizer --tool $tool --error-exitcode 9 $B/tests/rowwise_test --gtest_filter='RowwiseTest/5.TransposeWindows') > $R/A-$tool.log 2>&1
  echo "$tool rc=$? at $(el) s"; tail -3 $R/A-$tool.log
done
M="-m banded:rows=8388608,cols=1048576,per_row=8,sigma=20 -m banded:rows=8388608,cols=1048576,per_row=8,sigma=200 -m banded:rows=4194304,cols=2097152,per_row=12,sigma=100 -m banded:rows=2097152,cols=8388608,per_row=22,sigma=300 -m banded:rows=2097152,cols=8388608,per_row=22,sigma=2000 -m interp3d:n=65 -m interp3d:n=129"
K="-k cusparse -k vector-adaptive -k vector-adaptive:win=0 -k hola -k auto"
ARGS="$M $K -p double -p float --op N --op T --warmup 5 --reps 20 -j $JOBS --no-progress --commit $C --json $R/A-rect.json"
(echo "# run A: commit $C, $G, command: hola-bench $ARGS"; timeout 150 $B/solvers_demo/hola-bench $ARGS) > $R/A-rect.txt 2> $R/A-rect.err
echo "rect bench rc=$? at $(el) s"
M=""; for s in 100 300 1000 3000; do for p in 6 12 22 40; do M="$M -m banded:rows=2000000,per_row=$p,sigma=$s"; done; done
K="-k cusparse -k vector-adaptive -k vector-adaptive:wkib=32 -k vector-adaptive:wkib=24 -k vector-adaptive:wkib=16"
ARGS="$M $K -p double -p float --op T --warmup 5 --reps 20 -j $JOBS --no-progress --commit $C --json $R/A-budget.json"
(echo "# run A: commit $C, $G, command: hola-bench $ARGS"; timeout $(( 570 - $(el) )) $B/solvers_demo/hola-bench $ARGS) > $R/A-budget.txt 2> $R/A-budget.err
echo "budget bench rc=$? at $(el) s"
gzip -9 $R/*.json 2>/dev/null
cd $OUT && tar czf A.tgz A && rm -rf A
