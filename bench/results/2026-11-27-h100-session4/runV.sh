# Run V: from the repository root on the device, over the export in .carry/src, at the review
# commit (PageRank's device-loop branches, calibrate_on_device's deterministic argument):
# graph_gpu_test, and spmspv_gpu_test's operator suites (calibration and deterministic mode).
R=$OUT/V; mkdir -p $R
S=$PWD/.carry/src; B=$PWD/build-dev; C=$(cat $S/.commit); G="$(nvidia-smi -L | head -1)"
cmake -S $S -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/build.log 2>&1 && cmake --build $B -j 16 --target graph_gpu_test spmspv_gpu_test >> $R/build.log 2>&1; echo "build rc=$?"
(echo "# commit $C, $G, command: $B/tests/graph_gpu_test"; timeout 150 $B/tests/graph_gpu_test; echo "rc=$?") > $R/V-graph_gpu_test.log 2>&1 &
(echo "# commit $C, $G, command: $B/tests/spmspv_gpu_test --gtest_filter=SpmspvOperatorGpu*"; timeout 150 $B/tests/spmspv_gpu_test --gtest_filter='SpmspvOperatorGpu*'; echo "rc=$?") > $R/V-spmspv_operator_gpu.log 2>&1 &
wait
for f in $R/V-*.log; do echo "$(basename $f): $(grep -E '^rc=|PASSED|FAILED  \]' $f | tr '\n' ' ')"; done
