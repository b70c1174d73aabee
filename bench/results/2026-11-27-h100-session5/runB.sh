# Run B: from the repository root on the device, over the export in .carry/src (with the trees'
# evaluation and training data in .carry/ for the held-out list): hola-bench on the committed
# trees' held-out matrices with every kernel, auto and auto:check=0 side by side (as run Q of
# 2026-11-27-h100-session4), first with --block-us 50 (each product timed on the GPU alone), then
# the same command without it; then the 13 small matrices of run A in graph mode with --block-us 50.
R=$OUT/B; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
S=$PWD/.carry/src; B=$PWD/build-dev; C=$(cat $S/.commit); G="$(nvidia-smi -L | head -1)"
cmake -S $S -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/build.log 2>&1 && cmake --build $B -j 16 --target hola-bench >> $R/build.log 2>&1; echo "build rc=$? at $(el) s"
cd $S && python3 bench/selector/validate.py list .carry/eval.json .carry/data.json.gz > $B/heldout.txt; cd - > /dev/null
wc -l $B/heldout.txt
K="-k cusparse -k cusparse-alg2 -k hola -k light -k merge -k scalar -k vector -k vector-adaptive -k auto -k auto:check=0"
for round in blocked plain; do
  left=$(( 520 - $(el) )); [ $left -lt 60 ] && break
  X=""; [ $round = blocked ] && X="--block-us 50"
  BENCH="$B/solvers_demo/hola-bench -m @$B/heldout.txt -p double -p float --op N --op T $K --warmup 3 --reps 10 --time-cap-ms 20 -j 16 --commit $C $X"
  (echo "# commit $C, $G, command: $BENCH --json $R/B-$round-heldout.json"; timeout $left $BENCH --json $R/B-$round-heldout.json) > $R/B-$round-heldout.txt 2>$R/B-$round.err; echo "round $round rc=$? at $(el) s"
  gzip -9 $R/B-$round-heldout.json
done
left=$(( 585 - $(el) ))
[ $left -gt 15 ] && (echo "# commit $C, $G"; timeout $left $B/solvers_demo/hola-bench --commit $C --graph --graph-products 20 --reps 30 --block-us 50 \
  -k cusparse -k cusparse-alg2 -k auto -k hola -k merge -k light -k scalar -k vector -k vector-adaptive \
  -p double -p float --op N --op T --no-progress \
  -m poisson2d:n=64 -m poisson2d:n=180 -m poisson3d:n=24 -m poisson3d:n=30 -m stencil27:n=16 \
  -m elasticity:n=8 -m banded:rows=20000,per_row=10,sigma=50 -m banded:rows=5000,per_row=22,sigma=1000 \
  -m random:rows=8192,per_row=16 -m rmat:scale=14,ef=8 -m powerlaw:rows=10000,mean=8 \
  -m circuit:rows=30000,mean=4,long_rows=8,long_len=2000 -m poisson2d:n=128,perm=1 \
  --json $R/B-graph-small-blocked.json; echo "rc=$?") > $R/B-graph-small-blocked.txt 2>&1
echo "done at $(el) s"
rm -f $R/*.err
(cd $OUT && tar czf B.tgz B)
