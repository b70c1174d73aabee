# Run E: the rest of run B's corpus (the 42 generated matrices its time budget left out, listed in
# E-missing.txt, and the real matrices), with the same candidates and settings as
# scripts/selector-device.sh, for a training on runs B and E together.
R=$OUT/E; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"; B=build-device
mkdir -p .carry/matrices; for f in .carry/mgz/*.gz; do gunzip -c $f > .carry/matrices/$(basename $f .gz); done
source scripts/env.sh
{ cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 && cmake --build $B -j "$JOBS" --target hola-bench; } > $R/build.log 2>&1
echo "build rc=$? at $(el) s"; tail -1 $R/build.log
CMD="$B/solvers_demo/hola-bench -m @bench/results/2026-11-28-session12/E-missing.txt -m .carry/matrices -p double -p float --op N --op T -k hola -k merge -k light -k scalar -k vector -k vector-adaptive -k cusparse-alg2 --warmup 3 --reps 10 --time-cap-ms 20 --time-budget-s $(( 265 - $(el) )) -j $JOBS --commit $C --no-progress --json $R/E-corpus-rest.json"
(echo "# commit $C, $G, command: $CMD"; $CMD) > $R/E-corpus-rest.txt 2>$R/E-corpus-rest.err
echo "bench rc=$? at $(el) s"; tail -2 $R/E-corpus-rest.err; gzip -9 $R/E-corpus-rest.json
cd $OUT && tar czf E.tgz E && rm -rf E
