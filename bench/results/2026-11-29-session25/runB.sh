# Run B (session 25, experiment branch exp-loop): vector / vector-adaptive op N with every step
# predicated (KernelOptions::row_loop, bench option loop=4|8; 5|9: the same with evict-first
# matrix loads, __ldcs; 0 = the unrolled-by-4 loop with a serial tail) against the current loop and cuSPARSE: Nsight Compute of the 27-point stencil
# 128^3 (double), then hola-bench on the anchors and five larger regular matrices, then on the
# 90 generated held-out matrices of session 16 (op N, double and float).
R=$OUT/B; mkdir -p $R; nvidia-smi -L > $R/B-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
source scripts/env.sh; B=build-device
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$(gpu_arch) > $R/B-build.log 2>&1 &&
  cmake --build $B -j $JOBS --target hola-bench >> $R/B-build.log 2>&1 || { tail -30 $R/B-build.log; exit 1; }
echo "built at $(el) s"
for L in 5 9; do
  for P in double float; do
    N="ncu --clock-control none --kernel-name regex:vector_rows --launch-skip 1 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats --section LaunchStats --csv --page details"
    A="$B/solvers_demo/hola-bench -m stencil27:n=128 -p $P --op N -k vector-adaptive:loop=$L --reps 1 --warmup 1 --no-check --no-progress"
    (echo "# run B: commit $C, $G, command: $N $A"; timeout 60 $N $A) > $R/B-ncu-loop$L-$P.csv 2>&1
  done
done
echo "ncu done at $(el) s"
K="-k cusparse -k vector-adaptive -k vector-adaptive:loop=4 -k vector-adaptive:loop=5 -k vector-adaptive:loop=8 -k vector-adaptive:loop=9 -p double -p float --op N --warmup 5 --reps 20 -j $JOBS --no-progress --commit $C"
ARGS="-m anchors -m stencil27:n=100 -m stencil27:n=160 -m elasticity:n=64 -m poisson3d:n=150 -m banded:rows=2000000,per_row=40,sigma=10 $K --json $R/B-large.json"
(echo "# run B: commit $C, $G, command: hola-bench $ARGS"; timeout 220 $B/solvers_demo/hola-bench $ARGS) > $R/B-large.txt 2> $R/B-large.err
echo "large rc=$? at $(el) s"
grep -v '\.carry' bench/results/2026-11-28-session16/D-heldout.txt > /tmp/heldout-generated.txt
ARGS="-m @/tmp/heldout-generated.txt $K --time-cap-ms 20 --json $R/B-heldout.json"
(echo "# run B: commit $C, $G, command: hola-bench $ARGS (the list: session 16's D-heldout.txt less its .carry matrices)"; timeout $(( 585 - $(el) )) $B/solvers_demo/hola-bench $ARGS) > $R/B-heldout.txt 2> $R/B-heldout.err
echo "heldout rc=$? at $(el) s"
gzip -9 $R/*.json $R/*.csv 2>/dev/null
cd $OUT && tar czf B.tgz B && rm -rf A
