# Run F: compute-sanitizer (memcheck, then synccheck) on hola's and merge's fused fix-up tests,
# the first type of each suite (float, 32-bit indices and offsets), within what the session's device time left.
R=$OUT/F; mkdir -p $R
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"; B=build-device
{ cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DHOLA_WITH_PETSC=OFF \
    -DHOLA_WITH_TPETRA=OFF -DHOLA_WITH_HYPRE=OFF && cmake --build $B -j 16 --target hola_test merge_test; } > $R/build.log 2>&1
echo "build rc=$? at $(el) s"
for tool in memcheck synccheck; do for t in hola_test merge_test; do
  left=$(( 165 - $(el) )); [ $left -lt 10 ] && { echo "$tool $t: not run (time)"; continue; }
  f=$(find $B/tests -name $t -type f | head -1)
  cmd="compute-sanitizer --tool $tool --error-exitcode 9 $f --gtest_filter=*Test/0.FusedFixup*"
  (echo "# commit $C, $G, command: $cmd"; timeout $left $cmd; echo "rc=$?") > $R/F-$tool-$t.log 2>&1
  echo "$tool $t at $(el) s: $(grep -E '^rc=|ERROR SUMMARY|^\[  PASSED|FAILED  \]' $R/F-$tool-$t.log | tr '\n' ' ')"
done; done
