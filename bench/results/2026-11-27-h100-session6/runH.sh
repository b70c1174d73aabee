# Run H: from the repository root on the device, over the export in .carry/src (held-out list data
# in .carry/): auto's check with the gated ProductTimer. The GPU tests of the check and the
# Operator, then the committed trees' held-out matrices with every kernel, auto and auto:check=0
# side by side (as session 5's runs B and F), blocked (--block-us 50) and plain, as time allows.
R=$OUT/H; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
S=$PWD/.carry/src; B=$PWD/build-dev; C=$(cat $S/.commit); G="$(nvidia-smi -L | head -1)"
cmake -S $S -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/build.log 2>&1 && cmake --build $B -j 16 --target hola-bench auto_check_gpu_test operator_gpu_test >> $R/build.log 2>&1; echo "build rc=$? at $(el) s"
for t in auto_check_gpu_test operator_gpu_test; do
  (echo "# commit $C, $G, command: $t"; cd $S/.carry 2>/dev/null; $B/tests/$t; echo "rc=$?") > $R/H-$t.log 2>&1
  echo "$t: $(grep -E '^\[  (PASSED|FAILED)' $R/H-$t.log | tr '\n' ' ') at $(el) s"
done
cd $S && python3 bench/selector/validate.py list .carry/eval.json .carry/data.json.gz > $B/heldout.txt; cd - > /dev/null
K="-k cusparse -k cusparse-alg2 -k hola -k light -k merge -k scalar -k vector -k vector-adaptive -k auto -k auto:check=0"
for round in blocked plain; do
  left=$(( 575 - $(el) )); [ $left -lt 60 ] && break
  X=""; [ $round = blocked ] && X="--block-us 50"
  BENCH="$B/solvers_demo/hola-bench -m @$B/heldout.txt -p double -p float --op N --op T $K --warmup 3 --reps 10 --time-cap-ms 20 -j 16 --commit $C $X"
  (echo "# commit $C, $G, command: $BENCH --json $R/H-$round-heldout.json"; timeout $left $BENCH --json $R/H-$round-heldout.json) > $R/H-$round-heldout.txt 2>$R/H-$round.err; echo "round $round rc=$? at $(el) s"
  gzip -9 $R/H-$round-heldout.json
done
rm -f $R/*.err
(cd $OUT && tar czf H.tgz H)
