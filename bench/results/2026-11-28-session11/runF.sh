# Run F: compute-sanitizer memcheck on the changed kernels' suites (first type combination,
# HOLA_TEST_REDUCED as in device-check.sh's sanitize stage), within the session's last device time.
R=$OUT/F; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); B=build-device
{ cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 && cmake --build $B -j 16 --target hola_test merge_test; } > $R/build.log 2>&1
echo "build rc=$? at $(el) s"
for t in "hola_test 125" "merge_test 65"; do set -- $t
  (echo "# commit $C, $(nvidia-smi -L | head -1), command: HOLA_TEST_REDUCED=1 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/$1 --gtest_filter='*/0.*:-*Capturable*'"
   HOLA_TEST_REDUCED=1 timeout $2 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/$1 --gtest_filter='*/0.*:-*Capturable*'; echo "exit $?") > $R/F-memcheck-$1.log 2>&1
  echo "$1: $(tail -1 $R/F-memcheck-$1.log) at $(el) s"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/F-memcheck-$1.log | tail -3
done
cd $OUT && tar czf F.tgz F && rm -rf F
