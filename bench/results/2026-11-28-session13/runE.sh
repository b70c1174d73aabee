# Run E (session 13, the code of run D): auto on the trees' held-out matrices
# (scripts/selector-validate.sh) and hola-pagerank --backend gpu on the square corpus graphs and
# Kronecker 18 (the SpMV's version replays the loop's graph, as by default), in the device time
# that was left (about 240 s).
R=$OUT/E; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"; B=build-device
mkdir -p .carry/matrices; for f in .carry/mgz/*.gz; do gunzip -c $f > .carry/matrices/$(basename $f .gz); done
source scripts/env.sh
{ cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 && cmake --build $B -j "$JOBS" --target hola-bench hola-pagerank; } > $R/build.log 2>&1; echo "build rc=$? at $(el) s"
(echo "# commit $C, $G, command: bash scripts/selector-validate.sh bench/results/selector-2026-11-28.json bench/selector/data/2026-11-28-h200.json.gz (on a copy of the evaluation)"
 cp bench/results/selector-2026-11-28.json $R/selector-eval.json
 timeout 60 bash scripts/selector-validate.sh $R/selector-eval.json bench/selector/data/2026-11-28-h200.json.gz) > $R/E-validate.log 2>&1
echo "validate rc=$? at $(el) s"; tail -3 $R/E-validate.log
PR=$B/solvers_demo/graph/hola-pagerank; mkdir -p $R/pr
echo "# commit $C, $G; each block: hola-pagerank --backend gpu with the arguments named (its JSON holds the exact command)" > $R/E-pagerank.txt
run_pr() { tag=$1; shift; echo "== $tag: $*" >> $R/E-pagerank.txt; HOLA_COMMIT=$C timeout 20 $PR --backend gpu "$@" --runs 5 --output $R/pr/$tag.json >> $R/E-pagerank.txt 2>&1; echo "rc=$?" >> $R/E-pagerank.txt; }
for rep in 1; do
  for f in .carry/matrices/*.mtx; do
    name=$(basename $f .mtx)
    head -c 4096 $f | grep -v '^%' | head -1 | awk '{exit !($1 == $2)}' || continue
    [ $(el) -gt 190 ] && break
    run_pr $name-$rep --matrix $f --max-iter 300
  done
  run_pr kron18-$rep --kronecker 18 --edge-factor 16 --undirected
done
echo "pagerank at $(el) s"
(cd $R && tar czf E-pagerank-json.tgz pr && rm -rf pr)
cd $OUT && tar czf E.tgz E && rm -rf E
