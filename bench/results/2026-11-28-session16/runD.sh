# Run D: the trees before (735c1fe, D-trees-before.cpp.txt) and after this session's retraining,
# measured in one run on the same GPU: hola-bench -k auto (cuSPARSE ALG1 timed beside it) on the
# held-out matrices of bench/results/selector-2026-11-28-inode.json (D-heldout.txt: 92 of the 93;
# CA-HepPh's file did not travel). One build, the second hola-bench by swapping in the old trees
# and rebuilding; then after, before, after, before, so that a drift of the GPU hits both.
R=$OUT/D; mkdir -p $R; nvidia-smi -L > $R/D-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
mkdir -p .carry/matrices; for f in .carry/mgz-small/*.gz; do gunzip -c $f > .carry/matrices/$(basename $f .gz); done
source scripts/env.sh; B=build-device; S=bench/results/2026-11-28-session16
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$(gpu_arch) > $R/D-build.log 2>&1 &&
  cmake --build $B -j $JOBS --target hola-bench >> $R/D-build.log 2>&1 || { tail -30 $R/D-build.log; exit 1; }
mkdir -p /tmp/hb && cp $B/solvers_demo/hola-bench /tmp/hb/after
cp plugin/src/selector_tree_generated.cpp /tmp/hb/trees-after.cpp
cp $S/D-trees-before.cpp.txt plugin/src/selector_tree_generated.cpp
cmake --build $B -j $JOBS --target hola-bench >> $R/D-build.log 2>&1 || { tail -30 $R/D-build.log; exit 1; }
cp $B/solvers_demo/hola-bench /tmp/hb/before; cp /tmp/hb/trees-after.cpp plugin/src/selector_tree_generated.cpp
echo "built both at $(el) s"
for round in 1 2; do
  for t in after before; do
    ARGS="-m @$S/D-heldout.txt -p double -p float --op N --op T -k auto --warmup 3 --reps 10 --time-cap-ms 20 -j $JOBS --no-progress --commit $C --json $R/D-$t-$round.json"
    (echo "# run D: commit $C, $G, trees $t (round $round), command: hola-bench $ARGS"; /tmp/hb/$t $ARGS) > $R/D-$t-$round.txt 2> $R/D-$t-$round.err
    echo "$t round $round rc=$? at $(el) s"
  done
done
gzip -9 $R/*.json
cd $OUT && tar czf D.tgz D && rm -rf D
