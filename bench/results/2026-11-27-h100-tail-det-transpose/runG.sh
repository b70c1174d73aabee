# Run G: from the repository root on the device, over the export in .carry/src: the 2.2e9-nonzero
# case of run F again after CUDA errors are cleared once reported (and the stress tool counts an
# out-of-memory error as a refusal only for deterministic op T).
R=$OUT/G; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
S=$PWD/.carry/src; B=$PWD/build-dev; C=$(cat $S/.commit); G="$(nvidia-smi -L | head -1)"
cmake -S $S -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DHOLA_MATRICES_DIR=$S/.carry/matrices > $R/build.log 2>&1 && cmake --build $B -j 16 --target hola-stress >> $R/build.log 2>&1; echo "build rc=$? at $(el) s"
ST=$B/tests/stress/hola-stress
(echo "# commit $C, $G, command: $ST --spec rows=100000000,cols=100000000,dist=constant,len=22,seed=5 --types double,32,64 --kernel scalar --kernel vector --quick"; timeout 60 $ST --spec rows=100000000,cols=100000000,dist=constant,len=22,seed=5 --types double,32,64 --kernel scalar --kernel vector --quick --output $R/stress-nnz-2e9.json; echo "rc=$?") > $R/stress-nnz-2e9.log 2>&1
echo "stress at $(el) s: $(grep -E '^rc=|passed|refused|FAIL' $R/stress-nnz-2e9.log | tr '\n' ' ')"
(cd $OUT && tar czf G.tgz G)
