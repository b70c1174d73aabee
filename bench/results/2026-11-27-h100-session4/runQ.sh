# Run Q: from the repository root on the device, over the export in .carry/src (with the trees'
# evaluation and training data in .carry/ for the held-out list): hola-bench on the 94 held-out
# matrices of the committed trees with every kernel, auto (its check included) and auto:check=0
# in the same run, double / float, N / T, so that the per-matrix best is measured beside auto;
# then, while time is left, the same command again (a second round, for the spread).
R=$OUT/Q; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
S=$PWD/.carry/src; B=$PWD/build-dev; C=$(cat $S/.commit); G="$(nvidia-smi -L | head -1)"
cmake -S $S -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/build.log 2>&1 && cmake --build $B -j 16 --target hola-bench >> $R/build.log 2>&1; echo "build rc=$? at $(el) s"
cd $S && python3 bench/selector/validate.py list .carry/eval.json .carry/data.json.gz > $B/heldout.txt; cd - > /dev/null
K="-k cusparse -k cusparse-alg2 -k hola -k light -k merge -k scalar -k vector -k vector-adaptive -k auto -k auto:check=0"
for round in 1 2; do
  left=$(( 560 - $(el) )); [ $left -lt 60 ] && break
  BENCH="$B/solvers_demo/hola-bench -m @$B/heldout.txt -p double -p float --op N --op T $K --warmup 3 --reps 10 --time-cap-ms 20 -j 16 --commit $C"
  (echo "# commit $C, $G, command: $BENCH --json $R/Q$round-heldout.json"; timeout $left $BENCH --json $R/Q$round-heldout.json) > $R/Q$round-heldout.txt 2>$R/Q$round-heldout.err; echo "round $round rc=$? at $(el) s"
  gzip -9 $R/Q$round-heldout.json
done
rm -f $R/*.err
(cd $OUT && tar czf Q.tgz Q)
