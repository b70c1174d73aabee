# Run C: op T with hub columns summed per block (vector-adaptive:hubs=1, the commit in .carry/commit)
# against the plain scatter, cuSPARSE, hola and merge on irregular matrices (R-MAT / Kronecker
# graphs, power-law rows, circuit, uniform random) and two regular ones (no hubs: the plain
# scatter runs); rowwise_test (the row kernels' GPU suite, with the new TransposeHubs) first.
R=$OUT/C; mkdir -p $R; nvidia-smi -L > $R/C-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
source scripts/env.sh; B=build-device
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$(gpu_arch) > $R/C-build.log 2>&1 &&
  cmake --build $B -j $JOBS --target hola-bench rowwise_test >> $R/C-build.log 2>&1 || { tail -30 $R/C-build.log; exit 1; }
echo "built at $(el) s"
T=$(find $B -name rowwise_test -type f -executable | head -1)
(echo "# run C: commit $C, $G, command: $T"; timeout 240 $T) > $R/C-rowwise_test.log 2>&1; echo "rowwise_test rc=$? at $(el) s"; grep -E "PASSED|FAILED|tests ran" $R/C-rowwise_test.log | head -20
M="-m rmat:scale=21,ef=16 -m rmat:scale=20,ef=32 -m rmat:scale=22,ef=8 -m rmat:scale=21,ef=16,a=0.45,b=0.22,c=0.22 -m powerlaw -m circuit -m random -m banded:sigma=1000 -m poisson3d:n=160 -m stencil27:n=100"
ARGS="$M -k cusparse -k hola -k merge -k vector-adaptive -k vector-adaptive:hubs=1 -k vector:hubs=1 -p double -p float --op T --warmup 5 --reps 20 -j $JOBS --no-progress --commit $C --json $R/C-hubs.json"
(echo "# run C: commit $C, $G, command: hola-bench $ARGS"; timeout $(( 590 - $(el) )) $B/solvers_demo/hola-bench $ARGS) > $R/C-hubs.txt 2> $R/C-hubs.err
echo "bench rc=$? at $(el) s"
gzip -9 $R/*.json 2>/dev/null
cd $OUT && tar czf C.tgz C && rm -rf C
