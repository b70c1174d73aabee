# Run A: the L2 prefetch of the tile ahead (KernelOptions::l2_prefetch_tiles, hola-bench pf=N) in
# merge (op N) and hola (N and T), against pf=0 (the code before) in the same run, on the large
# matrices of one family each.
R=$OUT/A; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"; B=build-device
{ cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 && cmake --build $B -j 16 --target hola-bench; } > $R/build.log 2>&1
echo "build rc=$? at $(el) s"; tail -1 $R/build.log
M="-m stencil27:n=128 -m elasticity:n=64 -m poisson3d:n=200 -m banded:sigma=1000 -m random:per_row=22 -m rmat:scale=21,ef=16 -m circuit"
K="-k cusparse -k merge -k merge:pf=512 -k merge:pf=1536 -k merge:pf=3072 -k hola -k hola:pf=256 -k hola:pf=1024 -k hola:pf=2048"
CMD="$B/solvers_demo/hola-bench --commit $C $M $K -p double -p float --op N --op T --warmup 5 --reps 20 --json $R/A-prefetch.json"
(echo "# commit $C, $G, command: $CMD"; timeout 330 $CMD) > $R/A-prefetch.txt 2>$R/A-prefetch.err
echo "bench rc=$? at $(el) s"; gzip -9 $R/A-prefetch.json
