# Run C (session 18): auto against every candidate kernel in the same run on the selector's
# held-out matrices (bench/results/2026-11-28-session16/D-heldout.txt: 92 of the 93 held out by
# the 2026-11-28 training; CA-HepPh's file does not travel), so that "auto >= 0.97 of the
# per-matrix best" and "never below 0.97x cuSPARSE" are measured without comparing runs:
# hola-bench with train.py's nine candidates and auto (its check on), double and float, N and T,
# the selector's settings except 5 warm-up and 20 timed runs.
R=$OUT/C; mkdir -p $R; nvidia-smi -L > $R/C-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
mkdir -p .carry/matrices; for f in .carry/mgz-small/*.gz; do gunzip -c $f > .carry/matrices/$(basename $f .gz); done
source scripts/env.sh; B=build-device
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$(gpu_arch) > $R/C-build.log 2>&1 &&
  cmake --build $B -j $JOBS --target hola-bench >> $R/C-build.log 2>&1 || { tail -30 $R/C-build.log; exit 1; }
echo "built at $(el) s"
ARGS="-m @bench/results/2026-11-28-session16/D-heldout.txt -p double -p float --op N --op T -k cusparse -k hola -k merge -k light -k scalar -k vector -k vector-adaptive -k cusparse-alg2 -k inode -k auto --warmup 5 --reps 20 --time-cap-ms 20 -j $JOBS --no-progress --commit $C --json $R/C-heldout.json"
(echo "# run C: commit $C, $G, command: hola-bench $ARGS"; timeout $(( 590 - $(el) )) $B/solvers_demo/hola-bench $ARGS) > $R/C-heldout.txt 2> $R/C-heldout.err
echo "heldout rc=$? at $(el) s"; tail -3 $R/C-heldout.err
gzip -9 $R/*.json 2>/dev/null
cd $OUT && tar czf C.tgz C && rm -rf C
