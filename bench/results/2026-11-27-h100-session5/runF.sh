# Run F: from the repository root on the device, over the export in .carry/src (held-out list data
# in .carry/), at the commit of run E: hola-bench on the 15 small matrices of run D with merge (its
# default fused fix-up bound) and merge:fuse=0 side by side, blocked and plain, with graph mode;
# then the committed trees' held-out matrices with every kernel, auto and auto:check=0 side by side
# (as run B), blocked (--block-us 50) and plain, as far as time allows.
R=$OUT/F; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
S=$PWD/.carry/src; B=$PWD/build-dev; C=$(cat $S/.commit); G="$(nvidia-smi -L | head -1)"
cmake -S $S -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/build.log 2>&1 && cmake --build $B -j 16 --target hola-bench >> $R/build.log 2>&1; echo "build rc=$? at $(el) s"
M="-m poisson2d:n=64 -m poisson2d:n=180 -m poisson3d:n=24 -m poisson3d:n=30 -m stencil27:n=16 -m elasticity:n=8 -m banded:rows=20000,per_row=10,sigma=50 -m banded:rows=5000,per_row=22,sigma=1000 -m random:rows=8192,per_row=16 -m rmat:scale=14,ef=8 -m powerlaw:rows=10000,mean=8 -m circuit:rows=30000,mean=4,long_rows=8,long_len=2000 -m poisson2d:n=128,perm=1 -m poisson2d:n=250 -m random:rows=40000,per_row=10"
for mode in blocked plain; do
  X=""; [ $mode = blocked ] && X="--block-us 50"
  (echo "# commit $C, $G"; timeout 120 $B/solvers_demo/hola-bench --commit $C --graph --graph-products 20 --reps 30 $X \
    -k cusparse -k merge -k merge:fuse=0 -k auto -p double -p float --op N --no-progress $M \
    --json $R/F-fuse-$mode.json; echo "rc=$?") > $R/F-fuse-$mode.txt 2>&1
  gzip -9 $R/F-fuse-$mode.json
  echo "$mode at $(el) s: $(tail -1 $R/F-fuse-$mode.txt)"
done
cd $S && python3 bench/selector/validate.py list .carry/eval.json .carry/data.json.gz > $B/heldout.txt; cd - > /dev/null
K="-k cusparse -k cusparse-alg2 -k hola -k light -k merge -k scalar -k vector -k vector-adaptive -k auto -k auto:check=0"
for round in blocked plain; do
  left=$(( 565 - $(el) )); [ $left -lt 60 ] && break
  X=""; [ $round = blocked ] && X="--block-us 50"
  BENCH="$B/solvers_demo/hola-bench -m @$B/heldout.txt -p double -p float --op N --op T $K --warmup 3 --reps 10 --time-cap-ms 20 -j 16 --commit $C $X"
  (echo "# commit $C, $G, command: $BENCH --json $R/F-$round-heldout.json"; timeout $left $BENCH --json $R/F-$round-heldout.json) > $R/F-$round-heldout.txt 2>$R/F-$round.err; echo "round $round rc=$? at $(el) s"
  gzip -9 $R/F-$round-heldout.json
done
rm -f $R/*.err
(cd $OUT && tar czf F.tgz F)
