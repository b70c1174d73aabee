# Run H: `auto` with merge joining the op T check on matrices with long rows (the commit in
# .carry/commit): selector_test, auto_check_gpu_test, operator_gpu_test; then op T and op N of
# run G's graphs and arrow, `auto` against cuSPARSE and merge, double and float.
R=$OUT/H; mkdir -p $R; nvidia-smi -L > $R/H-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
source scripts/env.sh; B=build-device
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$(gpu_arch) > $R/H-build.log 2>&1 &&
  cmake --build $B -j $JOBS --target hola-bench selector_test auto_check_gpu_test operator_gpu_test >> $R/H-build.log 2>&1 || { tail -30 $R/H-build.log; exit 1; }
echo "built at $(el) s"
for t in selector_test auto_check_gpu_test operator_gpu_test; do
  T=$(find $B -name $t -type f -executable | head -1)
  (echo "# run H: commit $C, $G, command: $T"; timeout 100 $T) > $R/H-$t.log 2>&1; echo "$t rc=$? at $(el) s"; grep -E "^\[  (PASSED|FAILED)" $R/H-$t.log | head -8
done
ARGS="-m rmat:scale=20,ef=16 -m rmat:scale=21,ef=16 -m rmat:scale=22,ef=16 -m arrow:n=4000000 -m powerlaw -m circuit -k cusparse -k merge -k auto -p double -p float --op T --op N --warmup 5 --reps 20 -j $JOBS --no-progress --commit $C --json $R/H-auto.json"
(echo "# run H: commit $C, $G, command: hola-bench $ARGS"; timeout $(( 300 - $(el) )) $B/solvers_demo/hola-bench $ARGS) > $R/H-auto.txt 2> $R/H-auto.err
echo "bench rc=$? at $(el) s"
gzip -9 $R/*.json 2>/dev/null
cd $OUT && tar czf H.tgz H && rm -rf H
