# Run F (session 25): the final code (that of run C; the inode experiment of run E reverted) under
# the device suites beyond rowwise_test that run the changed op N: the conformance suite (every
# registered kernel on the families and the block-boundary corpus, NaN-poisoned outputs, six
# alpha / beta pairs, deterministic mode), the Operator and auto's check suites, and light_test
# (LightSpMV shares the row step code), the four at once.
R=$OUT/F; mkdir -p $R; nvidia-smi -L > $R/F-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
source scripts/env.sh; B=build-device
T="device_conformance_test operator_gpu_test auto_check_gpu_test light_test"
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$(gpu_arch) > $R/F-build.log 2>&1 &&
  cmake --build $B -j $JOBS --target $T >> $R/F-build.log 2>&1 || { tail -30 $R/F-build.log; exit 1; }
echo "built at $(el) s"
for t in $T; do
  (echo "# run F: commit $C, $G, command: $B/tests/$t"; timeout $(( 570 - $(el) )) $B/tests/$t; echo "exit $?") > $R/F-$t.log 2>&1 &
done
wait
for t in $T; do echo "$t: $(grep -E '^\[  (PASSED|FAILED)' $R/F-$t.log | head -2 | tr '\n' ' ') $(tail -1 $R/F-$t.log)"; done
echo "done at $(el) s"
cd $OUT && tar czf F.tgz F && rm -rf F
