# Run G: from the repository root on the device, over the export in .carry/src: auto's check at
# the first products (tests; hola-bench auto / auto:check=0 / cuSPARSE on the anchor set), the
# GPU tests touched by it, and run F's stress command (the stale out-of-memory error, 45bb0aa).
R=$OUT/G; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
S=$PWD/.carry/src; B=$PWD/build-dev; C=$(cat $S/.commit); G="$(nvidia-smi -L | head -1)"
cmake -S $S -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DHOLA_MATRICES_DIR=$S/.carry/matrices > $R/build.log 2>&1 && cmake --build $B -j 16 --target auto_check_gpu_test operator_gpu_test spmspv_gpu_test graph_gpu_test hola-bench hola-stress >> $R/build.log 2>&1; echo "build rc=$? at $(el) s"
for t in auto_check_gpu_test operator_gpu_test spmspv_gpu_test graph_gpu_test; do
  (echo "# commit $C, $G, command: $B/tests/$t"; timeout 240 $B/tests/$t; echo "rc=$?") > $R/$t.log 2>&1 &
done; wait
for t in auto_check_gpu_test operator_gpu_test spmspv_gpu_test graph_gpu_test; do echo "$t: $(grep -E '^rc=|PASSED|FAILED  \]' $R/$t.log | tr '\n' ' ')"; done; echo "tests at $(el) s"
BENCH="$B/solvers_demo/hola-bench -m anchors -m poisson3d:n=215 -m poisson2d:n=2000 -m elasticity:n=64 -m poisson3d:n=160,perm=1 -m powerlaw:rows=2000000,mean=16,tail=1.5 -m $S/.carry/matrices -k cusparse -k auto -k auto:check=0 -p double -p float --op N --op T --reps 20 --time-budget-s 130 -j 16 --commit $C"
(echo "# commit $C, $G, command: $BENCH --json $R/G-anchors.json"; $BENCH --json $R/G-anchors.json) > $R/G-anchors.txt 2>$R/G-anchors.err; echo "bench rc=$? at $(el) s"
ST=$B/tests/stress/hola-stress
(echo "# commit $C, $G, command: $ST --spec rows=100000000,cols=100000000,dist=constant,len=22,seed=5 --types double,32,64 --kernel scalar --kernel vector --quick"; timeout $(( 560 - $(el) )) $ST --spec rows=100000000,cols=100000000,dist=constant,len=22,seed=5 --types double,32,64 --kernel scalar --kernel vector --quick --output $R/stress-nnz-2e9.json; echo "rc=$?") > $R/stress-nnz-2e9.log 2>&1
echo "stress at $(el) s: $(grep -E '^rc=|^ok|FAIL|refused' $R/stress-nnz-2e9.log | tr '\n' ' ')"
(cd $OUT && tar czf G.tgz G)
