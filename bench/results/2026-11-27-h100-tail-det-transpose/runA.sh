# Run A: from the repository root on the device; sources exported to .carry/src (git archive of the
# commit; the corpus matrices in .carry/src/.carry/matrices). GPU tests of the changed code, the
# PageRank device loop with and without the predicted tail, deterministic op T against the rest.
R=$OUT/A; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
pack() { (cd $OUT && tar czf A.tgz A); }
S=$PWD/.carry/src; B=$PWD/build-dev; MX=$S/.carry/matrices; C=$(cat $S/.commit); G="$(nvidia-smi -L | head -1)"
cmake -S $S -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DHOLA_MATRICES_DIR=$MX > $R/build.log 2>&1 && cmake --build $B -j 16 --target hola-pagerank graph_gpu_test rowwise_test operator_gpu_test hola-bench >> $R/build.log 2>&1; echo "build rc=$? at $(el) s"; tail -1 $R/build.log
gt() { name=$1; shift; (echo "# commit $C, $G, command: $B/tests/$name $*"; timeout 150 $B/tests/$name "$@") > $R/$name.log 2>&1; echo "$name rc=$? at $(el) s"; grep -E "FAILED|PASSED|Failure" $R/$name.log | tail -12; }
gt graph_gpu_test
gt rowwise_test --gtest_filter='*Deterministic*:*BitwiseReproducibleOpT*:*NamesWorkspace*'
gt operator_gpu_test --gtest_filter='*Deterministic*'
pack
PR=$B/solvers_demo/graph/hola-pagerank
echo "# run A: commit $C, $G; each block: hola-pagerank --backend gpu with the arguments named (its JSON holds the exact command)" > $R/pagerank.txt
run_pr() { tag=$1; shift; echo "== $tag: $*" >> $R/pagerank.txt; HOLA_COMMIT=$C timeout 120 $PR --backend gpu "$@" --output $R/pr-$tag.json >> $R/pagerank.txt 2>&1; echo "rc=$?" >> $R/pagerank.txt; }
for f in $MX/*.mtx; do
  name=$(basename $f .mtx)
  head -c 4096 $f | grep -v '^%' | head -1 | awk '{exit !($1 == $2)}' || continue
  run_pr $name-tail --matrix $f --max-iter 300 --runs 5
  run_pr $name-notail --matrix $f --max-iter 300 --runs 5 --no-predict-tail
  run_pr $name-k1 --matrix $f --max-iter 300 --runs 5 --check-every 1
done
echo "pagerank corpus done at $(el) s"
for s in 18 20; do run_pr kron$s-tail --kronecker $s --edge-factor 16 --undirected --runs 3; run_pr kron$s-notail --kronecker $s --edge-factor 16 --undirected --runs 3 --no-predict-tail; done
echo "pagerank kronecker done at $(el) s"
pack
HB=$B/solvers_demo/hola-bench
echo "# commit $C, $G" > $R/det-t.txt
(timeout 200 $HB --commit $C --op T -p double -p float --reps 20 --no-progress --json $R/det-t.json \
  -m poisson3d:n=200 -m stencil27:n=128 -m rmat:scale=21,ef=16 -m circuit:rows=4000000,mean=4.4 -m banded:rows=1048576,per_row=22,sigma=1000 -m elasticity:n=64 \
  -k cusparse -k auto -k scalar -k hola -k merge -k scalar:det=1 -k vector:det=1) >> $R/det-t.txt 2>&1
echo "det-t rc=$? at $(el) s"; grep -E "det|cusparse " $R/det-t.txt | head -60
pack
