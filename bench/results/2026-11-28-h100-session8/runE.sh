# Run E: run B again, plain timing only (a second sample of the plain round at the same code).
R=$OUT/E; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"; B=build-device
{ cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 && cmake --build $B -j 16 --target hola-bench; } > $R/build.log 2>&1
echo "build rc=$? at $(el) s"; tail -1 $R/build.log
sed "s#@MX@#$PWD/.carry/matrices#" bench/results/2026-11-28-h100-session8/heldout.txt > $B/heldout.txt
K="-k cusparse -k cusparse-alg2 -k hola -k light -k merge -k scalar -k vector -k vector-adaptive -k auto -k auto:check=0"
for round in plain; do
  left=$(( 585 - $(el) )); [ $left -lt 60 ] && break
  X=""; [ $round = blocked ] && X="--block-us 50"
  BENCH="$B/solvers_demo/hola-bench -m @$B/heldout.txt -p double -p float --op N --op T $K --warmup 3 --reps 10 --time-cap-ms 20 -j 16 --commit $C $X"
  (echo "# commit $C, $G, command: $BENCH --json $R/E-$round-heldout.json"; timeout $left $BENCH --json $R/E-$round-heldout.json) > $R/E-$round-heldout.txt 2>$R/E-$round.err; echo "round $round rc=$? at $(el) s"
  gzip -9 $R/E-$round-heldout.json
done
(cd $OUT && tar czf E.tgz E)
