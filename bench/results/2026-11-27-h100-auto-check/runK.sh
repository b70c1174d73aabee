# Run K: from the repository root on the device, over the export in .carry/src: auto's check with the
# runner-up as a third candidate (margin 1.03): its GPU tests, operator_gpu_test, spmspv_gpu_test and
# graph_gpu_test (densify and the graph loops go through auto), then
# hola-bench cuSPARSE / auto / auto:check=0 on the anchor set (run G's line) and on the 94
# held-out matrices (run H's line).
R=$OUT/K; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
S=$PWD/.carry/src; B=$PWD/build-dev; C=$(cat $S/.commit); G="$(nvidia-smi -L | head -1)"
cmake -S $S -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DHOLA_MATRICES_DIR=$S/.carry/matrices > $R/build.log 2>&1 && cmake --build $B -j 16 --target auto_check_gpu_test operator_gpu_test spmspv_gpu_test graph_gpu_test hola-bench >> $R/build.log 2>&1; echo "build rc=$? at $(el) s"
for t in auto_check_gpu_test operator_gpu_test spmspv_gpu_test graph_gpu_test; do
  (echo "# commit $C, $G, command: $B/tests/$t"; timeout 170 $B/tests/$t; echo "rc=$?") > $R/$t.log 2>&1 &
done; wait
for t in auto_check_gpu_test operator_gpu_test spmspv_gpu_test graph_gpu_test; do echo "$t: $(grep -E '^rc=|PASSED|FAILED  \]' $R/$t.log | tr '\n' ' ')"; done; echo "tests at $(el) s"
BENCH="$B/solvers_demo/hola-bench -m anchors -m poisson3d:n=215 -m poisson2d:n=2000 -m elasticity:n=64 -m poisson3d:n=160,perm=1 -m powerlaw:rows=2000000,mean=16,tail=1.5 -m $S/.carry/matrices -k cusparse -k auto -k auto:check=0 -p double -p float --op N --op T --reps 20 --time-budget-s 60 -j 16 --commit $C"
(echo "# commit $C, $G, command: $BENCH --json $R/K-anchors.json"; $BENCH --json $R/K-anchors.json) > $R/K-anchors.txt 2>$R/K-anchors.err; echo "anchors rc=$? at $(el) s"
cd $S && python3 bench/selector/validate.py list .carry/eval.json .carry/data.json.gz > $B/heldout.txt; cd - > /dev/null
BENCH="$B/solvers_demo/hola-bench -m @$B/heldout.txt -p double -p float --op N --op T -k cusparse -k auto -k auto:check=0 --warmup 3 --reps 10 --time-cap-ms 20 -j 16 --commit $C"
(echo "# commit $C, $G, command: $BENCH --json $R/K-heldout.json"; timeout $(( 470 - $(el) )) $BENCH --json $R/K-heldout.json) > $R/K-heldout.txt 2>$R/K-heldout.err; echo "heldout rc=$? at $(el) s"
gzip -9 $R/K-heldout.json $R/K-anchors.json; rm -f $R/K-anchors.err $R/K-heldout.err
(cd $OUT && tar czf K.tgz K)
