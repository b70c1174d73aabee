# Run D (session 25): at the commit of run C, on its warm machine (the build persists). The fuzzer
# on the kernels whose op N changed (vector, vector-adaptive) and auto, then the scale stage's
# cases (hola-stress --scale --quick: 10^8 rows, 64-bit offsets past 2^31) on vector-adaptive and
# vector.
R=$OUT/D; mkdir -p $R; nvidia-smi -L > $R/D-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
source scripts/env.sh; B=build-device
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$(gpu_arch) > $R/D-build.log 2>&1 &&
  cmake --build $B -j $JOBS --target hola-stress >> $R/D-build.log 2>&1 || { tail -30 $R/D-build.log; exit 1; }
echo "built at $(el) s"
S="$B/tests/stress/hola-stress --fuzz 1500 --seed 20261201 --kernel vector-adaptive --kernel vector --kernel auto --output $R/D-fuzz.json"
(echo "# run D: commit $C, $G, command: $S (timeout 200 s)"; timeout 200 $S) > $R/D-fuzz.log 2>&1; echo "fuzz rc=$? at $(el) s"
grep -E "^fuzz:|FAIL|shrunk|passed" $R/D-fuzz.log | tail -5
S="$B/tests/stress/hola-stress --scale --quick --kernel vector-adaptive --kernel vector --output $R/D-scale.json"
(echo "# run D: commit $C, $G, command: $S"; timeout $(( 585 - $(el) )) $S) > $R/D-scale.log 2>&1; echo "scale rc=$? at $(el) s"
tail -3 $R/D-scale.log
gzip -9 $R/*.json 2>/dev/null
cd $OUT && tar czf D.tgz D && rm -rf D
