# Run D: from the repository root on the device, over the export in .carry/src: compute-sanitizer
# memcheck of the deterministic op T tests (first type combination: double, 32-bit indices).
R=$OUT/D; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
S=$PWD/.carry/src; B=$PWD/build-dev; C=$(cat $S/.commit); G="$(nvidia-smi -L | head -1)"
cmake -S $S -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DHOLA_MATRICES_DIR=$S/.carry/matrices > $R/build.log 2>&1 && cmake --build $B -j 16 --target rowwise_test operator_gpu_test >> $R/build.log 2>&1; echo "build rc=$? at $(el) s"
ms() { tag=$1; shift; (echo "# commit $C, $G, command: compute-sanitizer --tool memcheck --error-exitcode 1 $*"; timeout 200 compute-sanitizer --tool memcheck --error-exitcode 1 "$@"; echo "rc=$?") > $R/memcheck-$tag.log 2>&1; echo "$tag at $(el) s: $(grep -E 'ERROR SUMMARY|PASSED|FAILED|^rc=' $R/memcheck-$tag.log | tr '\n' ' ')"; }
ms rowwise $B/tests/rowwise_test --gtest_filter='RowwiseTest/0.BitwiseReproducibleOpT:RowwiseTest/0.DeterministicMode'
ms operator $B/tests/operator_gpu_test --gtest_filter='*Deterministic*'
(cd $OUT && tar czf D.tgz D)
