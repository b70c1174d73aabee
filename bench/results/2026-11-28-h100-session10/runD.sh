# Run D: the whole `gpu` ctest label at this commit, and beside it on the same GPU hola-stress:
# 2 000 fuzzed structures (hola and auto), then the scale stage's cases with the quick set for
# hola (memory capped at 24 GiB so that the tests keep theirs).
R=$OUT/D; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"; B=build-device
mkdir -p .carry/matrices && for f in .carry/mgz/*.mtx.gz; do [ -s .carry/matrices/$(basename $f .gz) ] || gunzip -c $f > .carry/matrices/$(basename $f .gz); done
{ cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DHOLA_MATRICES_DIR=$PWD/.carry/matrices && cmake --build $B -j 16; } > $R/build.log 2>&1
echo "build rc=$? at $(el) s"; tail -1 $R/build.log
( (echo "# commit $C, $G, command: ctest --test-dir $B -L gpu -j 4 --output-on-failure"
   HOLA_MATRICES_DIR=$PWD/.carry/matrices timeout $(( 585 - $(el) )) ctest --test-dir $B -L gpu -j 4 --output-on-failure) > $R/D-gpu-tests.log 2>&1
  echo "ctest rc=$? at $(el) s" >> $R/D-gpu-tests.log ) &
S=$B/tests/stress/hola-stress
(echo "# commit $C, $G, command: $S --fuzz 2000 --seed 20261128 --kernel hola --kernel auto"
 timeout 240 $S --fuzz 2000 --seed 20261128 --kernel hola --kernel auto) > $R/D-fuzz.txt 2>&1
echo "fuzz rc=$? at $(el) s"; tail -2 $R/D-fuzz.txt
(echo "# commit $C, $G, command: $S --scale --regressions --quick --kernel hola --max-gib 24 -v"
 timeout $(( 580 - $(el) )) $S --scale --regressions --quick --kernel hola --max-gib 24 -v) > $R/D-scale.txt 2>&1
echo "scale rc=$? at $(el) s"; grep -c "^ok" $R/D-scale.txt; grep -E "FAIL|fail" $R/D-scale.txt | head -5
wait; tail -3 $R/D-gpu-tests.log; grep -E "tests passed|Failed" $R/D-gpu-tests.log
