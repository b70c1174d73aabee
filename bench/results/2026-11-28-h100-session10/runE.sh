# Run E: hola_test's prefetch and configuration tests after the fix of the test's own inputs
# (run D: the bitwise comparison drew a fresh x for each product).
R=$OUT/E; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"; B=build-device
{ cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 && cmake --build $B -j 16 --target hola_test; } > $R/build.log 2>&1
echo "build rc=$? at $(el) s"; tail -1 $R/build.log
F='*L2Prefetch*:HolaConfigurations.InvalidOptionsThrow:*DeterministicModeIsBitwiseReproducible*'
(echo "# commit $C, $G, command: $B/tests/hola_test --gtest_filter='$F'"; timeout $(( 300 - $(el) )) $B/tests/hola_test --gtest_filter="$F") > $R/E-hola-test.log 2>&1
echo "hola_test rc=$? at $(el) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $R/E-hola-test.log | head
