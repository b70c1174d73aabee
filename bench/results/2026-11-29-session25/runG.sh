# Run G (session 25): vector-adaptive's op N at every width forced (lanes=2, 4, 8, 16; the steps
# in flight together wherever the rows hold at least one entry a lane) beside its rule's width and
# cuSPARSE, on run A's large matrices and the 90 generated held-out matrices: does the width rule
# (about six entries a lane, fitted in session 12 with the old loop) still pick the best width?
R=$OUT/G; mkdir -p $R; nvidia-smi -L > $R/G-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
source scripts/env.sh; B=build-device
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$(gpu_arch) > $R/G-build.log 2>&1 &&
  cmake --build $B -j $JOBS --target hola-bench >> $R/G-build.log 2>&1 || { tail -30 $R/G-build.log; exit 1; }
echo "built at $(el) s"
K="-k cusparse -k vector-adaptive -k vector-adaptive:lanes=2 -k vector-adaptive:lanes=4 -k vector-adaptive:lanes=8 -k vector-adaptive:lanes=16 -p double -p float --op N --warmup 5 --reps 20 -j $JOBS --no-progress --commit $C"
ARGS="-m anchors -m stencil27:n=100 -m stencil27:n=160 -m elasticity:n=64 -m poisson3d:n=150 -m banded:rows=2000000,per_row=40,sigma=10 $K --json $R/G-large.json"
(echo "# run G: commit $C, $G, command: hola-bench $ARGS"; timeout 150 $B/solvers_demo/hola-bench $ARGS) > $R/G-large.txt 2> $R/G-large.err
echo "large rc=$? at $(el) s"
grep -v '\.carry' bench/results/2026-11-28-session16/D-heldout.txt > /tmp/heldout-generated.txt
ARGS="-m @/tmp/heldout-generated.txt $K --time-cap-ms 20 --json $R/G-heldout.json"
(echo "# run G: commit $C, $G, command: hola-bench $ARGS (the list: session 16's D-heldout.txt less its .carry matrices)"; timeout $(( 330 - $(el) )) $B/solvers_demo/hola-bench $ARGS) > $R/G-heldout.txt 2> $R/G-heldout.err
echo "heldout rc=$? at $(el) s"
gzip -9 $R/*.json 2>/dev/null
cd $OUT && tar czf G.tgz G && rm -rf G
