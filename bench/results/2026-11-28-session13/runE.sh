# Run E (session 13, after run D on the same machine and build): auto on the trees' held-out
# matrices (scripts/selector-validate.sh), hola-pagerank --backend gpu on the square corpus
# graphs and Kronecker 18 (the SpMV's version replays the loop's graph, as by default), and auto
# against cuSPARSE on session 12's run C matrices that run C here did not have.
R=$OUT/E; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"; B=build-device
mkdir -p .carry/matrices; for f in .carry/mgz/*.gz; do gunzip -c $f > .carry/matrices/$(basename $f .gz); done
source scripts/env.sh
cmake --build $B -j "$JOBS" --target hola-bench hola-pagerank > $R/build.log 2>&1; echo "build rc=$? at $(el) s"
(echo "# commit $C, $G, command: bash scripts/selector-validate.sh bench/results/selector-2026-11-28.json bench/selector/data/2026-11-28-h200.json.gz (on a copy of the evaluation)"
 cp bench/results/selector-2026-11-28.json $R/selector-eval.json
 timeout 80 bash scripts/selector-validate.sh $R/selector-eval.json bench/selector/data/2026-11-28-h200.json.gz) > $R/E-validate.log 2>&1
echo "validate rc=$? at $(el) s"; tail -3 $R/E-validate.log
PR=$B/solvers_demo/graph/hola-pagerank; mkdir -p $R/pr
echo "# commit $C, $G; each block: hola-pagerank --backend gpu with the arguments named (its JSON holds the exact command)" > $R/E-pagerank.txt
run_pr() { tag=$1; shift; echo "== $tag: $*" >> $R/E-pagerank.txt; HOLA_COMMIT=$C timeout 60 $PR --backend gpu "$@" --runs 5 --output $R/pr/$tag.json >> $R/E-pagerank.txt 2>&1; echo "rc=$?" >> $R/E-pagerank.txt; }
for rep in 1 2; do
  for f in .carry/matrices/*.mtx; do
    name=$(basename $f .mtx)
    head -c 4096 $f | grep -v '^%' | head -1 | awk '{exit !($1 == $2)}' || continue
    [ $(el) -gt 150 ] && break
    run_pr $name-$rep --matrix $f --max-iter 300
  done
  run_pr kron18-$rep --kronecker 18 --edge-factor 16 --undirected
done
echo "pagerank at $(el) s"
M="-m stencil27:n=100 -m stencil27:n=64 -m banded:sigma=10 -m banded:sigma=1000 -m random:per_row=22 -m powerlaw:rows=2000000,mean=16,tail=1.5 -m poisson3d:n=160,perm=1 -m poisson2d:n=3000 -m random:rows=2000000,per_row=5 -m poisson3d:n=40 -m stencil27:n=24 -m random:rows=20000,per_row=10 -m .carry/matrices/CA-HepPh.mtx"
CMD="$B/solvers_demo/hola-bench --commit $C $M -k cusparse -k auto -p double -p float --op N --op T --warmup 5 --reps 20 --json $R/E-auto-others.json"
left=$(( 280 - $(el) )); [ $left -gt 10 ] || left=10
(echo "# commit $C, $G, command: $CMD"; timeout $left $CMD) > $R/E-auto-others.txt 2>$R/E-auto-others.err
echo "bench rc=$? at $(el) s"; gzip -9 $R/E-auto-others.json; tail -n 1 $R/E-auto-others.err
(cd $R && tar czf E-pagerank-json.tgz pr && rm -rf pr)
cd $OUT && tar czf E.tgz E && rm -rf E
