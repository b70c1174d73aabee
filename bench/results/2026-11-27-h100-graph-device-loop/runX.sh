# Run X (PageRank paths), from the repository root on the device; sources exported to .carry/src
# (git archive of the commit, corpus matrices in .carry/src/.carry/matrices). Run W was this script
# without the loop1 runs, with spmspv_gpu_test at the end; its graph_gpu_test used --gtest_brief=1.
R=$OUT/X; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s)
pack() { (cd $OUT && tar czf X.tgz X); }
S=$PWD/.carry/src; B=$PWD/build-dev-new; MX=$S/.carry/matrices
cmake -S $S -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DHOLA_MATRICES_DIR=$MX > $R/build.log 2>&1 && cmake --build $B -j 16 --target hola-pagerank graph_gpu_test >> $R/build.log 2>&1; echo "build rc=$? at $(( $(date +%s) - T0 )) s"; tail -1 $R/build.log
(echo "# commit $(cat $S/.commit), $(nvidia-smi -L | head -1), command: $B/tests/graph_gpu_test"; timeout 150 $B/tests/graph_gpu_test) > $R/graph-gpu-test.log 2>&1
echo "graph_gpu_test rc=$? at $(( $(date +%s) - T0 )) s"; grep -E "FAILED|PASSED|OK \]|Failure" $R/graph-gpu-test.log | tail -40
PR=$B/solvers_demo/graph/hola-pagerank
echo "# run X: commit $(cat $S/.commit), $(nvidia-smi -L | head -1); each block: hola-pagerank --backend gpu with the arguments named (its JSON holds the exact command)" > $R/pagerank.txt
run_pr() { tag=$1; shift; echo "== $tag: $*" >> $R/pagerank.txt; HOLA_COMMIT=$(cat $S/.commit) timeout 120 $PR --backend gpu "$@" --output $R/pr-$tag.json >> $R/pagerank.txt 2>&1; echo "rc=$?" >> $R/pagerank.txt; }
for rep in 1 2; do
for f in $MX/*.mtx; do
  name=$(basename $f .mtx)
  head -c 4096 $f | grep -v '^%' | head -1 | awk '{exit !($1 == $2)}' || continue
  run_pr $name-loop-$rep --matrix $f --max-iter 300
  run_pr $name-chunks-$rep --matrix $f --max-iter 300 --no-device-loop
  run_pr $name-loop1-$rep --matrix $f --max-iter 300 --check-every 1
done
done
for s in 18 20 21; do run_pr kron$s-loop --kronecker $s --edge-factor 16 --undirected; run_pr kron$s-chunks --kronecker $s --edge-factor 16 --undirected --no-device-loop; done
run_pr kron21-loop-float --precision float --kronecker 21 --edge-factor 16 --undirected
# summary.txt: one line per JSON (see X-summary.txt's header)
pack
