# Run T: from the repository root on the device, over the export in .carry/src (corpus matrices in
# .carry/src/.carry/matrices), at 9681984: graph_gpu_test; then hola-pagerank --backend gpu on the
# square corpus graphs and Kronecker 18 in four configurations, alternating, two rounds, 5 timed
# runs each: the device loop with its one-iteration tail or --no-loop-tail, each with the loop's
# graph built per run or kept (--keep-graph: built at the warm-up run, replayed by the timed ones).
R=$OUT/T; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
S=$PWD/.carry/src; B=$PWD/build-dev; C=$(cat $S/.commit); G="$(nvidia-smi -L | head -1)"; MX=$S/.carry/matrices
cmake -S $S -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DHOLA_MATRICES_DIR=$MX > $R/build.log 2>&1 && cmake --build $B -j 16 --target graph_gpu_test hola-pagerank >> $R/build.log 2>&1; echo "build rc=$? at $(el) s"
for t in graph_gpu_test; do
  (echo "# commit $C, $G, command: $B/tests/$t"; timeout 200 $B/tests/$t; echo "rc=$?") > $R/T-$t.log 2>&1 &
done; wait
for t in graph_gpu_test; do echo "$t: $(grep -E '^rc=|PASSED|FAILED  \]' $R/T-$t.log | tr '\n' ' ')"; done; echo "tests at $(el) s"
grep -B2 -A10 "Failure" $R/T-graph_gpu_test.log | head -40
PR=$B/solvers_demo/graph/hola-pagerank
echo "# run T: commit $C, $G; each block: hola-pagerank --backend gpu with the arguments named (its JSON holds the exact command)" > $R/T-pagerank.txt
mkdir -p $R/pr
run_pr() { tag=$1; shift; echo "== $tag: $*" >> $R/T-pagerank.txt; HOLA_COMMIT=$C timeout 120 $PR --backend gpu "$@" --runs 5 --output $R/pr/$tag.json >> $R/T-pagerank.txt 2>&1; echo "rc=$?" >> $R/T-pagerank.txt; }
for rep in 1 2; do
for f in $MX/*.mtx; do
  name=$(basename $f .mtx)
  head -c 4096 $f | grep -v '^%' | head -1 | awk '{exit !($1 == $2)}' || continue
  [ $(el) -gt 520 ] && break
  run_pr $name-tail-$rep --matrix $f --max-iter 300
  run_pr $name-notail-$rep --matrix $f --max-iter 300 --no-loop-tail
  run_pr $name-tailkeep-$rep --matrix $f --max-iter 300 --keep-graph
  run_pr $name-notailkeep-$rep --matrix $f --max-iter 300 --no-loop-tail --keep-graph
done
done
[ $(el) -lt 500 ] && for c in tail notail tailkeep notailkeep; do F=""; case $c in notail) F="--no-loop-tail";; tailkeep) F="--keep-graph";; notailkeep) F="--no-loop-tail --keep-graph";; esac; run_pr kron18-$c --kronecker 18 --edge-factor 16 --undirected $F; done
python3 - $R/pr <<'PY' > $R/T-pagerank-summary.txt
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
print("# tag: iterations applied / queued, run seconds, time per applied iteration over one auto SpMV, loop_tail, keep_graph, reused_graph")
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    d = json.load(open(f)); tag = os.path.basename(f)[:-5]
    print(tag, find(d, "iterations"), find(d, "iterations_run"), find(d, "seconds"), find(d, "applied_iteration_over_auto_spmv"), find(d, "loop_tail"), find(d, "keep_graph"), find(d, "reused_graph"))
PY
cat $R/T-pagerank-summary.txt | head -50
(cd $OUT && tar czf T.tgz T)
