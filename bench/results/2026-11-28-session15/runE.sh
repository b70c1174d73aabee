# Run E (session 15): the fuzzer over auto's check with its scratch output: hola-stress's short
# fuzz (300 random structures, every device kernel, auto and the C API; ctest stress_fuzz_short)
# and the regression cases, then 20 fuzzed structures with auto alone under memcheck.
R=$OUT/E; mkdir -p $R; nvidia-smi -L > $R/E-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
(echo "# run E: commit $C, $G, command: cmake -S . -B build-device -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$arch && cmake --build build-device -j 16 --target hola-stress stress_regression_test"
 cmake -S . -B build-device -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$arch && timeout 170 cmake --build build-device -j 16 --target hola-stress stress_regression_test) > $R/E-build.log 2>&1
echo "build rc=$? at $(el) s"; tail -2 $R/E-build.log
(echo "# run E: commit $C, $G, command: ctest --test-dir build-device -R '^stress_(fuzz_short|regression_test)\$' -V"
 timeout 60 ctest --test-dir build-device -R '^stress_(fuzz_short|regression_test)$' -V) > $R/E-stress.log 2>&1
echo "stress rc=$? at $(el) s"; grep -E "tests passed|Passed|Failed|failures" $R/E-stress.log | tail -5
S=$(find build-device -name hola-stress -type f | head -1)
(echo "# run E: commit $C, $G, command: compute-sanitizer --tool memcheck --error-exitcode 9 $S --fuzz 20 --seed 1515 --no-shrink --kernel auto"
 timeout $(( 235 - $(el) )) compute-sanitizer --tool memcheck --error-exitcode 9 $S --fuzz 20 --seed 1515 --no-shrink --kernel auto) > $R/E-memcheck.log 2>&1
echo "memcheck rc=$? at $(el) s"; tail -4 $R/E-memcheck.log
cd $OUT && tar czf E.tgz E && rm -rf E
