# Run D (session 26): at run C's code (the commits after c2e0055 add results and scripts only),
# what run C's time limit left out: auto_check_memory_full_test (the gpu label's serial test), the sanitize stage's fuzzer part
# (30 random structures on every device kernel under memcheck, racecheck, initcheck, synccheck;
# the first sanitizer run since vector-adaptive's predicated steps), then compute-sanitizer
# memcheck of rowwise_test's first type pair on the reduced corpus for the time that is left.
R=$OUT/D; mkdir -p $R; nvidia-smi -L > $R/D-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
source scripts/env.sh; B=build-device
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$(gpu_arch) > $R/D-build.log 2>&1 &&
  cmake --build $B -j $JOBS --target hola-stress auto_check_memory_full_test rowwise_test >> $R/D-build.log 2>&1 || { tail -30 $R/D-build.log; exit 1; }
echo "built at $(el) s"
(echo "# run D: commit $C, $G, command: $B/tests/auto_check_memory_full_test"; timeout 60 $B/tests/auto_check_memory_full_test) > $R/D-auto_check_memory_full_test.log 2>&1
echo "memory_full rc=$? at $(el) s"; tail -2 $R/D-auto_check_memory_full_test.log
export LOGS=$PWD/device-out-D  # outside $OUT: the stage packs and removes what lies inside it
(echo "# run D: commit $C, $G, command: SANITIZE_TESTS=none SANITIZE_FUZZ=30 bash scripts/device-check.sh sanitize"
 SANITIZE_TESTS=none SANITIZE_FUZZ=30 timeout 200 bash scripts/device-check.sh sanitize) > $R/D-sanitize-stage.log 2>&1; echo "sanitize rc=$? at $(el) s"
rm -f $OUT/device-check.tgz $OUT/summary.txt; cp $LOGS/summary.txt $R/D-sanitize-summary.txt; cp $LOGS/sanitizer.log $R/D-sanitizer.log
grep "sanitize:" $R/D-sanitize-summary.txt
LEFT=$(( 300 - $(el) ))
if [ $LEFT -gt 20 ]; then
  (echo "# run D: commit $C, $G, command: HOLA_TEST_REDUCED=1 timeout $LEFT compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/rowwise_test --gtest_filter='*/0.*:-*Capturable*'"
   HOLA_TEST_REDUCED=1 timeout $LEFT compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/rowwise_test --gtest_filter='*/0.*:-*Capturable*') > $R/D-memcheck-rowwise.log 2>&1
  echo "memcheck rowwise rc=$? at $(el) s"; grep -E "ERROR SUMMARY|PASSED|FAILED|tests ran" $R/D-memcheck-rowwise.log | tail -4
fi
cd $OUT && tar czf D.tgz D && rm -rf D
