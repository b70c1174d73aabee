# Run D (session 14): inode on block rows with short rows (the 7-point / 5-point node stencils of
# finite differences with several fields a node, as SNES ex19), where run B's auto check found
# inode slower than hola: every inode width against hola, vector-adaptive, cuSPARSE and auto.
R=$OUT/D; mkdir -p $R; nvidia-smi -L > $R/D-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
(echo "# run D: commit $C, $G, command: cmake -S . -B build-device -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$arch && cmake --build build-device -j 16 --target hola-bench"
 cmake -S . -B build-device -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$arch && cmake --build build-device -j 16 --target hola-bench) > $R/D-build.log 2>&1
echo "build rc=$? at $(el) s"; tail -2 $R/D-build.log
B=build-device/solvers_demo/hola-bench
$B --commit $C -m elasticity:nx=385,ny=385,nz=1,block=4,points=7 -m elasticity:n=64,block=4,points=7 \
  -m elasticity:n=100,block=2,points=7 -m elasticity:nx=1000,ny=1000,nz=1,block=3,points=7 \
  -m elasticity:n=40,block=3 \
  -k cusparse -k hola -k vector-adaptive -k inode -k inode:lanes=2 -k inode:lanes=4 -k inode:lanes=8 \
  -k inode:lanes=16 -k auto:check=0 -k auto -p double -p float --op N --op T --warmup 5 --reps 20 \
  -j 16 --no-progress --json $R/D-short-blocks.json > $R/D-short-blocks.txt 2> $R/D-short-blocks.err
echo "bench rc=$? at $(el) s"
cd $OUT && tar czf D.tgz D && rm -rf D
