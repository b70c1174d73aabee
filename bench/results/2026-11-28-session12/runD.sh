# Run D: hola-stress at this commit (kernel code of run C): 2 000 fuzzed structures for
# vector-adaptive (new width rule), auto (new trees), hola and merge, then the scale stage's
# quick cases for vector-adaptive and hola (memory capped at 40 GiB).
R=$OUT/D; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"; B=build-device
source scripts/env.sh
{ cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 && cmake --build $B -j "$JOBS" --target hola-stress; } > $R/build.log 2>&1
echo "build rc=$? at $(el) s"; tail -1 $R/build.log
S=$B/tests/stress/hola-stress
(echo "# commit $C, $G, command: $S --fuzz 2000 --seed 20261129 --kernel vector-adaptive --kernel auto --kernel hola --kernel merge"
 timeout 200 $S --fuzz 2000 --seed 20261129 --kernel vector-adaptive --kernel auto --kernel hola --kernel merge) > $R/D-fuzz.txt 2>&1
echo "fuzz rc=$? at $(el) s"; tail -2 $R/D-fuzz.txt
(echo "# commit $C, $G, command: $S --scale --regressions --quick --kernel vector-adaptive --kernel hola --max-gib 40 -v"
 timeout $(( 490 - $(el) )) $S --scale --regressions --quick --kernel vector-adaptive --kernel hola --max-gib 40 -v) > $R/D-scale.txt 2>&1
echo "scale rc=$? at $(el) s"; tail -1 $R/D-scale.txt; grep -E "FAIL|fail" $R/D-scale.txt | head -5
cd $OUT && tar czf D.tgz D && rm -rf D
