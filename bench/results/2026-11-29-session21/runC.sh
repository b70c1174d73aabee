# Run C (session 21): the final code. Builds the test executables that cover the changed kernels
# and hola-stress; runs all of rowwise_test, operator_gpu_test, auto_check_gpu_test,
# stress_regression_test, device_conformance_test, then the scale stage's cases on vector and
# vector-adaptive (the windows' trial on bands up to 10^8 rows and 2.4e9 nonzeros).
R=$OUT/C; mkdir -p $R; nvidia-smi -L > $R/C-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
source scripts/env.sh; B=build-device
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$(gpu_arch) > $R/C-build.log 2>&1 &&
  cmake --build $B -j $JOBS --target rowwise_test operator_gpu_test auto_check_gpu_test stress_regression_test device_conformance_test hola-stress >> $R/C-build.log 2>&1 || { tail -30 $R/C-build.log; exit 1; }
echo "built at $(el) s"
for t in rowwise_test operator_gpu_test auto_check_gpu_test stress/stress_regression_test device_conformance_test; do
  n=$(basename $t)
  (echo "# run C: commit $C, $G"; timeout 200 $B/tests/$t) > $R/C-$n.log 2>&1; echo "$n rc=$? at $(el) s"; tail -2 $R/C-$n.log
done
S="$B/tests/stress/hola-stress --scale --quick --kernel vector --kernel vector-adaptive --output $R/C-scale.json"
(echo "# run C: commit $C, $G, command: $S"; timeout $(( 570 - $(el) )) $S) > $R/C-scale.log 2>&1; echo "scale rc=$? at $(el) s"
tail -4 $R/C-scale.log
gzip -9 $R/*.json 2>/dev/null
cd $OUT && tar czf C.tgz C && rm -rf C
