# Run D (session 24): at the commit of runs B and C (one shared beta-scaling pass). The fuzzer on
# every device kernel, auto and the C API with a new seed (2 000 random structures), then the
# scale stage's cases (--quick) on the kernels run C did not take: light, scalar, vector, inode,
# auto, within the call's time.
R=$OUT/D; mkdir -p $R; nvidia-smi -L > $R/D-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
source scripts/env.sh; B=build-device
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$(gpu_arch) > $R/D-build.log 2>&1 &&
  cmake --build $B -j $JOBS --target hola-stress >> $R/D-build.log 2>&1 || { tail -30 $R/D-build.log; exit 1; }
echo "built at $(el) s"
S="$B/tests/stress/hola-stress --fuzz 2000 --seed 20261130 --output $R/D-fuzz.json"
(echo "# run D: commit $C, $G, command: $S (timeout 220 s)"; timeout 220 $S) > $R/D-fuzz.log 2>&1; echo "fuzz rc=$? at $(el) s"
grep -E "^fuzz:|FAIL|shrunk|passed" $R/D-fuzz.log | tail -8
S="$B/tests/stress/hola-stress --scale --quick --kernel light --kernel scalar --kernel vector --kernel inode --kernel auto --output $R/D-scale.json"
(echo "# run D: commit $C, $G, command: $S (timeout to the call's 560th s)"; timeout $(( 560 - $(el) )) $S) > $R/D-scale.log 2>&1; echo "scale rc=$? at $(el) s"
tail -3 $R/D-scale.log
gzip -9 $R/*.json 2>/dev/null
cd $OUT && tar czf D.tgz D && rm -rf D
