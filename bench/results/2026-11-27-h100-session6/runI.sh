# Run I: from the repository root on the device, over the export in .carry/src (the real matrices
# in .carry/src/.carry/matrices): the trees retrained on products timed on the GPU alone
# (scripts/selector-device.sh with BENCH_ARGS="--block-us 50", the whole corpus), then, with the
# new trees built in, their held-out matrices with every kernel, auto and auto:check=0 side by
# side, blocked (--block-us 50), as run H, as far as time allows.
R=$OUT/I; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
S=$PWD/.carry/src; C=$(cat $S/.commit); G="$(nvidia-smi -L | head -1)"
(cd $S && SELECTOR_TOTAL_S=390 BENCH_ARGS="--block-us 50" OUT=$R/sel bash scripts/selector-device.sh > $R/selector-stdout.txt 2>&1); echo "selector rc=$? at $(el) s"
B=$S/build-device
EV=$(ls $R/sel/bench/results/selector-*.json | grep -v auto | head -1); DA=$(ls $R/sel/bench/selector/data/*.json.gz | head -1)
(cd $S && python3 bench/selector/validate.py list $EV $DA) > $B/heldout.txt; echo "held-out: $(wc -l < $B/heldout.txt) lines"
K="-k cusparse -k cusparse-alg2 -k hola -k light -k merge -k scalar -k vector -k vector-adaptive -k auto -k auto:check=0"
left=$(( 575 - $(el) ))
if [ $left -ge 60 ]; then
  BENCH="$B/solvers_demo/hola-bench -m @$B/heldout.txt -p double -p float --op N --op T $K --warmup 3 --reps 10 --time-cap-ms 20 -j 16 --commit $C --block-us 50"
  (echo "# commit $C with the trees of this run (sel/plugin/src), $G, command: $BENCH --json $R/I-blocked-heldout.json"; timeout $left $BENCH --json $R/I-blocked-heldout.json) > $R/I-blocked-heldout.txt 2>$R/I.err; echo "round rc=$? at $(el) s"
  gzip -9 $R/I-blocked-heldout.json
fi
rm -f $R/*.err
(cd $OUT && tar czf I.tgz I)
