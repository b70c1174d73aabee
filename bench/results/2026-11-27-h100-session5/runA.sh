# Run A: from the repository root on the device, over the export in .carry/src (corpus matrices in
# .carry/src/.carry/matrices): graph_gpu_test, auto_check_gpu_test, the C API SpMSpV GPU tests;
# hola-pagerank --backend gpu on the square corpus graphs and Kronecker 18, by default (the loop's
# graph replayed while the Operator's work_version holds) and with --rebuild-graph (built at every
# run), alternating, two rounds, 5 timed runs each; hola-bench --graph on 13 small matrices.
R=$OUT/A; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
S=$PWD/.carry/src; B=$PWD/build-dev; C=$(cat $S/.commit); G="$(nvidia-smi -L | head -1)"; MX=$S/.carry/matrices
cmake -S $S -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DHOLA_MATRICES_DIR=$MX > $R/build.log 2>&1 && cmake --build $B -j 16 --target graph_gpu_test auto_check_gpu_test spmspv_gpu_test hola-pagerank hola-bench >> $R/build.log 2>&1; echo "build rc=$? at $(el) s"; tail -3 $R/build.log
run_t() { t=$1; shift; (echo "# commit $C, $G, command: $B/tests/$t $*"; timeout 240 $B/tests/$t "$@"; echo "rc=$?") > $R/A-$t.log 2>&1; }
run_t graph_gpu_test & run_t auto_check_gpu_test & run_t spmspv_gpu_test --gtest_filter='SpmspvGpuCApiTyped*:SpmspvGpuCApi.*' & wait
for t in graph_gpu_test auto_check_gpu_test spmspv_gpu_test; do echo "$t: $(grep -E '^rc=|PASSED|FAILED  \]' $R/A-$t.log | tr '\n' ' ')"; done; echo "tests at $(el) s"
grep -h -B2 -A12 "Failure" $R/A-*.log | head -60
BENCH=$(find $B -name hola-bench -type f | head -1)
(echo "# commit $C, $G"; echo "# command: hola-bench --graph ... (the JSON holds it)"; timeout 150 $BENCH --commit $C --graph --graph-products 20 --reps 30 \
  -k cusparse -k cusparse-alg2 -k auto -k hola -k merge -k light -k scalar -k vector -k vector-adaptive \
  -p double -p float --op N --op T --no-progress \
  -m poisson2d:n=64 -m poisson2d:n=180 -m poisson3d:n=24 -m poisson3d:n=30 -m stencil27:n=16 \
  -m elasticity:n=8 -m banded:rows=20000,per_row=10,sigma=50 -m banded:rows=5000,per_row=22,sigma=1000 \
  -m random:rows=8192,per_row=16 -m rmat:scale=14,ef=8 -m powerlaw:rows=10000,mean=8 \
  -m circuit:rows=30000,mean=4,long_rows=8,long_len=2000 -m poisson2d:n=128,perm=1 \
  --json $R/A-graph-small.json; echo "rc=$?") > $R/A-graph-small.txt 2>&1
echo "graph bench at $(el) s: $(tail -1 $R/A-graph-small.txt)"
PR=$B/solvers_demo/graph/hola-pagerank
echo "# run A: commit $C, $G; each block: hola-pagerank --backend gpu with the arguments named (its JSON holds the exact command)" > $R/A-pagerank.txt
mkdir -p $R/pr
run_pr() { tag=$1; shift; echo "== $tag: $*" >> $R/A-pagerank.txt; HOLA_COMMIT=$C timeout 120 $PR --backend gpu "$@" --runs 5 --output $R/pr/$tag.json >> $R/A-pagerank.txt 2>&1; echo "rc=$?" >> $R/A-pagerank.txt; }
for rep in 1 2; do
for f in $MX/*.mtx; do
  name=$(basename $f .mtx)
  head -c 4096 $f | grep -v '^%' | head -1 | awk '{exit !($1 == $2)}' || continue
  [ $(el) -gt 500 ] && break
  run_pr $name-version-$rep --matrix $f --max-iter 300
  run_pr $name-rebuild-$rep --matrix $f --max-iter 300 --rebuild-graph
done
[ $(el) -lt 510 ] && run_pr kron18-version-$rep --kronecker 18 --edge-factor 16 --undirected && run_pr kron18-rebuild-$rep --kronecker 18 --edge-factor 16 --undirected --rebuild-graph
done
python3 - $R/pr <<'PY' > $R/A-pagerank-summary.txt
import json, sys, glob, os
def find(d, key):
    if isinstance(d, dict):
        if key in d: return d[key]
        for v in d.values():
            r = find(v, key)
            if r is not None: return r
    if isinstance(d, list):
        for v in d:
            r = find(v, key)
            if r is not None: return r
    return None
print("# tag: iterations applied / queued, run seconds (median of 5), time per applied iteration over one auto SpMV, versioned_graph, runs_replayed of 5, reused_graph (median run)")
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    d = json.load(open(f)); tag = os.path.basename(f)[:-5]
    print(tag, find(d, "iterations"), find(d, "iterations_run"), find(d, "seconds"), find(d, "applied_iteration_over_auto_spmv"), find(d, "versioned_graph"), find(d, "runs_replayed"), find(d, "reused_graph"))
PY
cat $R/A-pagerank-summary.txt | head -60
echo "done at $(el) s"
(cd $OUT && tar czf A.tgz A)
