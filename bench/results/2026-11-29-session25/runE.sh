# Run E (session 25, experiment): inode op N with 2 or 4 column steps of a lane in flight
# together, each behind its own bound (KernelOptions::inode_steps, bench isteps=2|4; 1 = one
# step at a time, the code so far), on session 17's 26 block-row matrices (session 18 run B's
# list), elasticity 64^3 and the held-out block-row matrices of session 16, against cuSPARSE and
# vector-adaptive (op N, double and float).
R=$OUT/E; mkdir -p $R; nvidia-smi -L > $R/E-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
source scripts/env.sh; B=build-device
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$(gpu_arch) > $R/E-build.log 2>&1 &&
  cmake --build $B -j $JOBS --target hola-bench >> $R/E-build.log 2>&1 || { tail -30 $R/E-build.log; exit 1; }
echo "built at $(el) s"
M=""
for s in "1 7 2000" "2 7 1000" "3 7 667" "4 7 500" "5 7 400" "6 7 333" "1 27 1490" "2 27 745" "3 27 497" "4 27 373" "5 27 298" "6 27 248"; do
  set -- $s; M="$M -m elasticity:nx=$3,ny=$3,nz=1,block=$1,points=$2"; done
for s in "1 7 142" "2 7 89" "3 7 68" "4 7 56" "5 7 49" "6 7 43" "1 27 90" "2 27 57" "3 27 44" "4 27 36" "5 27 31" "6 27 27"; do
  set -- $s; M="$M -m elasticity:n=$3,block=$1,points=$2"; done
M="$M -m elasticity:nx=150,ny=150,nz=1,block=2,points=27 -m elasticity:n=16,block=3,points=27 -m elasticity:n=64"
grep -E '^(block_stencil|elasticity)' bench/results/2026-11-28-session16/D-heldout.txt > /tmp/heldout-blocks.txt
M="$M -m @/tmp/heldout-blocks.txt"
K="-k cusparse -k vector-adaptive -k inode -k inode:isteps=2 -k inode:isteps=4 -p double -p float --op N --warmup 5 --reps 20 -j $JOBS --no-progress --commit $C"
ARGS="$M $K --time-cap-ms 20 --json $R/E-blocks.json"
(echo "# run E: commit $C, $G, command: hola-bench $ARGS (the @ list: session 16's D-heldout.txt, its block_stencil and elasticity lines)"; timeout $(( 585 - $(el) )) $B/solvers_demo/hola-bench $ARGS) > $R/E-blocks.txt 2> $R/E-blocks.err
echo "blocks rc=$? at $(el) s"
gzip -9 $R/*.json 2>/dev/null
cd $OUT && tar czf E.tgz E && rm -rf E
