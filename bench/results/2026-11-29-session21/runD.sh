# Run D (session 21): the held-out set of session 16 (92 matrices, two of them real), op T only,
# at the final kernels: cuSPARSE, vector, vector-adaptive (windows timed) and auto, to see what
# the windows and their trial change on families they were not designed on (session 18's run D
# timed the same set at 620fa16).
R=$OUT/D; mkdir -p $R; nvidia-smi -L > $R/D-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
mkdir -p .carry/matrices; for f in .carry/mgz-small/*.gz; do gunzip -c $f > .carry/matrices/$(basename $f .gz); done
source scripts/env.sh; B=build-device
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$(gpu_arch) > $R/D-build.log 2>&1 &&
  cmake --build $B -j $JOBS --target hola-bench >> $R/D-build.log 2>&1 || { tail -30 $R/D-build.log; exit 1; }
echo "built at $(el) s"
ARGS="-m @bench/results/2026-11-28-session16/D-heldout.txt -p double -p float --op T -k cusparse -k vector -k vector-adaptive -k auto --warmup 5 --reps 20 --time-cap-ms 20 -j $JOBS --no-progress --commit $C --json $R/D-heldout-T.json"
(echo "# run D: commit $C, $G, command: hola-bench $ARGS"; timeout $(( 400 - $(el) )) $B/solvers_demo/hola-bench $ARGS) > $R/D-heldout-T.txt 2> $R/D-heldout-T.err
echo "heldout rc=$? at $(el) s"
gzip -9 $R/*.json 2>/dev/null
cd $OUT && tar czf D.tgz D && rm -rf D
