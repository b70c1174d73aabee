# Run F: merge's op T with hub columns as its default (the commit in .carry/commit): merge_test,
# operator_gpu_test and auto_check_gpu_test (where `auto` may run merge's op T); then op T of
# R-MAT graphs whose hubs hold from under 5 % to over 20 % of the nonzeros (a from 0.45 to 0.65),
# merge (hubs on) against merge:hubs=0, cuSPARSE and `auto`, double and float.
R=$OUT/F; mkdir -p $R; nvidia-smi -L > $R/F-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
source scripts/env.sh; B=build-device
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$(gpu_arch) > $R/F-build.log 2>&1 &&
  cmake --build $B -j $JOBS --target hola-bench merge_test operator_gpu_test auto_check_gpu_test >> $R/F-build.log 2>&1 || { tail -30 $R/F-build.log; exit 1; }
echo "built at $(el) s"
for t in merge_test operator_gpu_test auto_check_gpu_test; do
  T=$(find $B -name $t -type f -executable | head -1)
  (echo "# run F: commit $C, $G, command: $T"; timeout 150 $T) > $R/F-$t.log 2>&1; echo "$t rc=$? at $(el) s"; grep -E "^\[  (PASSED|FAILED)" $R/F-$t.log | head -12
done
M=""
for a in 0.45 0.5 0.55 0.57 0.6 0.65; do bc=$(python3 -c "print(round((1-$a)/3,4))"); M="$M -m rmat:scale=21,ef=16,a=$a,b=$bc,c=$bc"; done
ARGS="$M -k cusparse -k merge -k merge:hubs=0 -k auto -p double -p float --op T --warmup 5 --reps 20 -j $JOBS --no-progress --commit $C --json $R/F-hubs.json"
(echo "# run F: commit $C, $G, command: hola-bench $ARGS"; timeout $(( 590 - $(el) )) $B/solvers_demo/hola-bench $ARGS) > $R/F-hubs.txt 2> $R/F-hubs.err
echo "bench rc=$? at $(el) s"
gzip -9 $R/*.json 2>/dev/null
cd $OUT && tar czf F.tgz F && rm -rf F
