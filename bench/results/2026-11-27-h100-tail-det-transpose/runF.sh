# Run F: from the repository root on the device, over the export in .carry/src: rowwise_test after
# the gather releases a half-built index on failure, and the 2.2e9-nonzero case whose deterministic
# op T runs out of memory (scalar and vector, each plain and deterministic).
R=$OUT/F; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
S=$PWD/.carry/src; B=$PWD/build-dev; C=$(cat $S/.commit); G="$(nvidia-smi -L | head -1)"
cmake -S $S -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DHOLA_MATRICES_DIR=$S/.carry/matrices > $R/build.log 2>&1 && cmake --build $B -j 16 --target rowwise_test hola-stress >> $R/build.log 2>&1; echo "build rc=$? at $(el) s"
ST=$B/tests/stress/hola-stress
(echo "# commit $C, $G, command: $ST --spec rows=100000000,cols=100000000,dist=constant,len=22,seed=5 --types double,32,64 --kernel scalar --kernel vector --quick"; timeout 120 $ST --spec rows=100000000,cols=100000000,dist=constant,len=22,seed=5 --types double,32,64 --kernel scalar --kernel vector --quick --output $R/stress-nnz-2e9.json; echo "rc=$?") > $R/stress-nnz-2e9.log 2>&1
echo "stress at $(el) s: $(grep -E '^rc=|passed|refused' $R/stress-nnz-2e9.log | tr '\n' ' ')"
(echo "# commit $C, $G, command: $B/tests/rowwise_test"; timeout 300 $B/tests/rowwise_test; echo "rc=$?") > $R/rowwise_test.log 2>&1
echo "rowwise_test at $(el) s: $(grep -E '^rc=|PASSED|FAILED  \]' $R/rowwise_test.log | tr '\n' ' ')"
(cd $OUT && tar czf F.tgz F)
