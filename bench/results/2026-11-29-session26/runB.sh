# Run B (session 26): the selector's training corpus timed again at this code (session 25 made
# vector-adaptive's op N 1.07x faster; the trees were trained on session 16's times of the old
# loop): bench/selector/corpus.py --count 300 (the same 298 generated matrices as
# bench/selector/data/2026-11-28-h200-inode.json.gz) and the 11 real matrices, every candidate
# kernel, double and float, ops N and T, with scripts/selector-device.sh's hola-bench arguments.
# The real matrices travel gzipped in .carry/mgz-small (bcsstk13, pushpull) and, xz, .carry/mxz (the
# other nine). Training runs off the device (bench/selector/train.py).
R=$OUT/B; mkdir -p $R; nvidia-smi -L > $R/B-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
mkdir -p .carry/matrices; for f in .carry/mgz-small/*.gz; do gunzip -c $f > .carry/matrices/$(basename $f .gz); done
for f in .carry/mxz/*.xz; do xz -dc $f > .carry/matrices/$(basename $f .xz); done
source scripts/env.sh; B=build-device
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$(gpu_arch) > $R/B-build.log 2>&1 &&
  cmake --build $B -j $JOBS --target hola-bench >> $R/B-build.log 2>&1 || { tail -30 $R/B-build.log; exit 1; }
echo "built at $(el) s"
python3 bench/selector/corpus.py --count 300 --out $B/selector-corpus.txt 2> $R/B-corpus-families.txt
cp $B/selector-corpus.txt $R/B-corpus.txt
BUDGET=$(( 540 - $(el) ))
ARGS="-m @$B/selector-corpus.txt -m .carry/matrices -p double -p float --op N --op T -k hola -k merge -k light -k scalar -k vector -k vector-adaptive -k cusparse-alg2 -k inode --warmup 3 --reps 10 --time-cap-ms 20 --time-budget-s $BUDGET -j $JOBS --no-progress --commit $C --json $R/B-corpus.json"
(echo "# run B: commit $C, $G, command: hola-bench $ARGS"; timeout $(( 593 - $(el) )) $B/solvers_demo/hola-bench $ARGS) > $R/B-corpus-bench.txt 2> $R/B-corpus-bench.err
echo "corpus rc=$? at $(el) s"; tail -3 $R/B-corpus-bench.err
gzip -9 $R/*.json 2>/dev/null
cd $OUT && tar czf B.tgz B && rm -rf B
