# Run E (session 18): the suites of kernels whose headers changed at e864f88 only where the warp
# size constants live (inode, light), and the graph suite (BFS / PageRank over the Operator), at
# the session's last code: build, then inode_test, graph_gpu_test, light_test (as time allows).
R=$OUT/E; mkdir -p $R; nvidia-smi -L > $R/E-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
source scripts/env.sh; B=build-device
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$(gpu_arch) > $R/E-build.log 2>&1 &&
  cmake --build $B -j $JOBS --target inode_test graph_gpu_test light_test >> $R/E-build.log 2>&1 || { tail -30 $R/E-build.log; exit 1; }
echo "built at $(el) s"
for t in inode_test graph_gpu_test light_test; do
  left=$(( 280 - $(el) )); [ $left -gt 20 ] || { echo "$t not run (time)"; continue; }
  (echo "# run E: commit $C, $G, command: $B/tests/$t"; timeout $left $B/tests/$t) > $R/E-$t.log 2>&1; echo "$t rc=$? at $(el) s"; tail -1 $R/E-$t.log
done
cd $OUT && tar czf E.tgz E && rm -rf E
