R=$OUT/CC; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s)
S=$PWD/.carry/src; B=$PWD/build-dev-new; MX=$S/.carry/matrices
cmake -S $S -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DHOLA_MATRICES_DIR=$MX > $R/build.log 2>&1 && cmake --build $B -j 16 --target hola-bfs hola-pagerank graph_gpu_test >> $R/build.log 2>&1; echo "build rc=$? at $(( $(date +%s) - T0 )) s"; tail -1 $R/build.log
(echo "# commit $(cat $S/.commit), $(nvidia-smi -L | head -1), command: $B/tests/graph_gpu_test"; timeout 100 $B/tests/graph_gpu_test) > $R/graph-gpu-test.log 2>&1
echo "graph_gpu_test rc=$? at $(( $(date +%s) - T0 )) s"; grep -E "FAILED|PASSED|OK \]|Failure" $R/graph-gpu-test.log | tail -20
echo "# run CC: commit $(cat $S/.commit), $(nvidia-smi -L | head -1); hola-bfs / hola-pagerank --backend gpu with the arguments named" > $R/demos.txt
for a in "--kronecker 21 --edge-factor 16 --roots 16" "--matrix $MX/usroads.mtx --directed --roots 16"; do echo "== hola-bfs $a" >> $R/demos.txt; HOLA_COMMIT=$(cat $S/.commit) timeout 60 $B/solvers_demo/graph/hola-bfs --backend gpu $a | tail -3 >> $R/demos.txt 2>&1; done
for a in "--matrix $MX/arrow.mtx --max-iter 300" "--kronecker 20 --edge-factor 16 --undirected"; do echo "== hola-pagerank $a" >> $R/demos.txt; HOLA_COMMIT=$(cat $S/.commit) timeout 60 $B/solvers_demo/graph/hola-pagerank --backend gpu $a 2>&1 | grep -E "^gpu|one SpMV|rank|differ" | head -4 >> $R/demos.txt; done
echo "demos at $(( $(date +%s) - T0 )) s"; cat $R/demos.txt
