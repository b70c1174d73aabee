# Run E: the installed trees (21d69af: this session's, with session 12's double op N tree) on a
# GPU: the two GPU test programs whose checks depend on auto's picks (auto_check_gpu_test,
# operator_gpu_test), built alone.
R=$OUT/E; mkdir -p $R; nvidia-smi -L > $R/E-gpu.txt
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
source scripts/env.sh; B=build-device
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$(gpu_arch) > $R/E-build.log 2>&1 &&
  cmake --build $B -j $JOBS --target auto_check_gpu_test operator_gpu_test >> $R/E-build.log 2>&1 || { tail -30 $R/E-build.log; exit 1; }
for t in auto_check_gpu_test operator_gpu_test; do
  (echo "# run E: commit $C, $G, command: $B/tests/$t"; $B/tests/$t) > $R/E-$t.log 2>&1; echo "$t rc=$?"; tail -3 $R/E-$t.log
done
cd $OUT && tar czf E.tgz E && rm -rf E
