# Run D (session 19): merge's op T with hubs ran at 37 % occupancy on R-MAT (run C's profile:
# 35 KB of shared memory a block in double, 2 048-slot hub table + tile). Times the shapes that
# fit more blocks: a 1 024-slot table, 256 threads a block, fewer items a thread, against the
# default and cuSPARSE, op T, double and float, on hub and tall matrices (every result checked
# against the CPU reference). Builds hola-bench only (the last of the session's device time).
R=$OUT/D; mkdir -p $R; nvidia-smi -L > $R/D-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
source scripts/env.sh; B=build-device
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$(gpu_arch) > $R/D-build.log 2>&1 &&
  cmake --build $B -j $JOBS --target hola-bench >> $R/D-build.log 2>&1 || { tail -30 $R/D-build.log; exit 1; }
echo "built at $(el) s"
M="-m rmat:scale=21,ef=16 -m rmat:scale=20,ef=16 -m arrow:n=4000000 -m random:rows=2000000,cols=1000,per_row=8,seed=3 -m random:rows=8000000,cols=64,per_row=3,seed=2"
K="-k cusparse -k merge -k merge:hubs=1024 -k merge:tpb=256 -k merge:tpb=256,hubs=1024 -k merge:tpb=256,npt=5,hubs=1024"
ARGS="$M $K -p double -p float --op T --warmup 5 --reps 20 --time-cap-ms 40 -j $JOBS --no-progress --commit $C --json $R/D-hubshape.json"
(echo "# run D: commit $C, $G, command: hola-bench $ARGS"; timeout $(( 178 - $(el) )) $B/solvers_demo/hola-bench $ARGS) > $R/D-hubshape.txt 2> $R/D-hubshape.err
echo "bench rc=$? at $(el) s"; grep -E "merge|cusparse" $R/D-hubshape.txt | head -70
gzip -9 $R/*.json 2>/dev/null
cd $OUT && tar czf D.tgz D && rm -rf D
