# Run P: from the repository root on the device, over the export in .carry/src: spmspv_gpu_test
# alone (the sorted write-back's test with fewer chunks; run O's timed out in it), on 2 shards of
# the type list in parallel, and the C API / graph capture suites in it.
R=$OUT/P; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
S=$PWD/.carry/src; B=$PWD/build-dev; C=$(cat $S/.commit); G="$(nvidia-smi -L | head -1)"
cmake -S $S -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/build.log 2>&1 && cmake --build $B -j 16 --target spmspv_gpu_test >> $R/build.log 2>&1; echo "build rc=$? at $(el) s"
(echo "# commit $C, $G, command: $B/tests/spmspv_gpu_test"; timeout 420 $B/tests/spmspv_gpu_test; echo "rc=$?") > $R/spmspv_gpu_test.log 2>&1
echo "spmspv_gpu_test: $(grep -E '^rc=|PASSED|FAILED  \]' $R/spmspv_gpu_test.log | tr '\n' ' ') at $(el) s"
grep -E "^\[       OK|FAILED" $R/spmspv_gpu_test.log | grep -E "Sorted|Determin|FAILED" | head -20
grep -B3 -A12 "Failure" $R/spmspv_gpu_test.log | head -60
(cd $OUT && tar czf P.tgz P)
