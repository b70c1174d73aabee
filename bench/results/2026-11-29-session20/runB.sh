# Run B (session 20): the windows' rule after run A (a band takes a window only when most of its
# entries are off diagonals). Builds hola-bench, rowwise_test, operator_gpu_test and
# auto_check_gpu_test; times op T of vector-adaptive with and without windows, cuSPARSE, hola
# and auto on 28 banded matrices (2 M rows, 6-40 draws a row, sigma 3-10 000: generated, not
# in the trees' training), the anchors and the three structures run A added, double and float;
# then runs the three test executables. Every result is checked against the CPU reference.
R=$OUT/B; mkdir -p $R; nvidia-smi -L > $R/B-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
source scripts/env.sh; B=build-device
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$(gpu_arch) > $R/B-build.log 2>&1 &&
  cmake --build $B -j $JOBS --target hola-bench rowwise_test operator_gpu_test auto_check_gpu_test >> $R/B-build.log 2>&1 || { tail -30 $R/B-build.log; exit 1; }
echo "built at $(el) s"
M="$(cat bench/results/2026-11-29-session20/runB-matrices.txt) -m anchors -m elasticity:n=64 -m poisson2d:n=2000 -m banded:rows=4000000,per_row=12,sigma=300"
K="-k cusparse -k vector-adaptive -k vector-adaptive:win=0 -k hola -k auto"
ARGS="$M $K -p double -p float --op T --warmup 5 --reps 20 -j $JOBS --no-progress --commit $C --json $R/B-bands.json"
(echo "# run B: commit $C, $G, command: hola-bench $ARGS"; timeout 170 $B/solvers_demo/hola-bench $ARGS) > $R/B-bands.txt 2> $R/B-bands.err
echo "bands bench rc=$? at $(el) s"
for t in rowwise_test operator_gpu_test auto_check_gpu_test; do
  (echo "# run B: commit $C, $G"; timeout 170 $B/tests/$t) > $R/B-$t.log 2>&1; echo "$t rc=$? at $(el) s"
  tail -3 $R/B-$t.log
done
grep -E "window" $R/B-bands.txt | head -60
gzip -9 $R/*.json 2>/dev/null
cd $OUT && tar czf B.tgz B && rm -rf B
