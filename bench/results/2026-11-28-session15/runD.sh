# Run D (session 15): compute-sanitizer memcheck over auto's check with its new scratch output
# (both ops, the verdict either way, the caller seeing only the pick's products).
R=$OUT/D; mkdir -p $R; nvidia-smi -L > $R/D-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
(echo "# run D: commit $C, $G, command: cmake -S . -B build-device -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$arch && cmake --build build-device -j 16 --target auto_check_gpu_test"
 cmake -S . -B build-device -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$arch && cmake --build build-device -j 16 --target auto_check_gpu_test) > $R/D-build.log 2>&1
echo "build rc=$? at $(el) s"; tail -2 $R/D-build.log
F='AutoCheckGpu.FasterChallengerTakesOver:AutoCheckGpu.PickStaysWhenNotBeaten:AutoCheckGpu.CallerSeesOnlyThePicksProducts'
(echo "# run D: commit $C, $G, command: compute-sanitizer --tool memcheck --error-exitcode 1 build-device/tests/auto_check_gpu_test --gtest_filter=$F"
 timeout $(( 270 - $(el) )) compute-sanitizer --tool memcheck --error-exitcode 1 build-device/tests/auto_check_gpu_test --gtest_filter=$F) > $R/D-memcheck.log 2>&1
echo "memcheck rc=$? at $(el) s"; tail -6 $R/D-memcheck.log
cd $OUT && tar czf D.tgz D && rm -rf D
