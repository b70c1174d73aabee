# Run E: as run D, the hubs found through a hash table in shared memory (merge:hubs=1: a table
# of 2 048 entries, at most 1 024 hubs; hubs=N: N entries, N/2 hubs) against plain merge,
# cuSPARSE and hola on the irregular matrices of run C and two regular ones (no hubs: the plain kernel runs);
# merge_test (with the new TransposeHubs) first.
R=$OUT/E; mkdir -p $R; nvidia-smi -L > $R/E-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
source scripts/env.sh; B=build-device
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$(gpu_arch) > $R/E-build.log 2>&1 &&
  cmake --build $B -j $JOBS --target hola-bench merge_test >> $R/E-build.log 2>&1 || { tail -30 $R/E-build.log; exit 1; }
echo "built at $(el) s"
T=$(find $B -name merge_test -type f -executable | head -1)
(echo "# run E: commit $C, $G, command: $T"; timeout 200 $T) > $R/E-merge_test.log 2>&1; echo "merge_test rc=$? at $(el) s"; grep -E "PASSED|FAILED|tests ran" $R/E-merge_test.log | head -20
M="-m rmat:scale=21,ef=16 -m rmat:scale=20,ef=32 -m rmat:scale=22,ef=8 -m rmat:scale=21,ef=16,a=0.45,b=0.22,c=0.22 -m powerlaw -m circuit -m random -m banded:sigma=1000 -m poisson3d:n=160 -m stencil27:n=100"
ARGS="$M -k cusparse -k hola -k merge -k merge:hubs=1 -k merge:hubs=4096 -k merge:hubs=8192 -p double -p float --op T --warmup 5 --reps 20 -j $JOBS --no-progress --commit $C --json $R/E-hubs.json"
(echo "# run E: commit $C, $G, command: hola-bench $ARGS"; timeout $(( 590 - $(el) )) $B/solvers_demo/hola-bench $ARGS) > $R/E-hubs.txt 2> $R/E-hubs.err
echo "bench rc=$? at $(el) s"
gzip -9 $R/*.json 2>/dev/null
cd $OUT && tar czf E.tgz E && rm -rf E
