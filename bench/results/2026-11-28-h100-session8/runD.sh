# Run D: run A's benchmark at b28e808, where a product being captured takes the separate fix-up:
# the graph columns of hola should now match hola:fuse=0's, the plain ones stay fused.
R=$OUT/D; mkdir -p $R
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"; B=build-device
{ cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DHOLA_WITH_PETSC=OFF \
    -DHOLA_WITH_TPETRA=OFF -DHOLA_WITH_HYPRE=OFF && cmake --build $B -j 16 --target hola-bench; } > $R/build.log 2>&1
echo "build rc=$? at $(el) s"
M="-m poisson2d:n=64 -m poisson2d:n=180 -m poisson3d:n=24 -m poisson3d:n=30 -m stencil27:n=16 -m elasticity:n=8 -m banded:rows=20000,per_row=10,sigma=50 -m banded:rows=5000,per_row=22,sigma=1000 -m random:rows=8192,per_row=16 -m rmat:scale=14,ef=8 -m powerlaw:rows=10000,mean=8 -m circuit:rows=30000,mean=4,long_rows=8,long_len=2000 -m poisson2d:n=128,perm=1 -m poisson2d:n=250 -m random:rows=40000,per_row=10"
L="-m poisson3d:n=40 -m rmat:scale=16,ef=8 -m random:rows=100000,per_row=10 -m powerlaw:rows=100000,mean=8"
for mode in blocked plain; do
  X=""; [ $mode = blocked ] && X="--block-us 50"
  cmd="$B/solvers_demo/hola-bench --commit $C --graph --graph-products 20 --reps 30 $X -k cusparse -k hola -k hola:fuse=0 -k hola:fuse=100000 -k auto -p double -p float --op N --no-progress $M $L --json $R/D-fuse-$mode.json"
  (echo "# commit $C, $G, command: $cmd"; timeout 150 $cmd; echo "rc=$?") > $R/D-fuse-$mode.txt 2>&1
  echo "$mode at $(el) s: $(tail -1 $R/D-fuse-$mode.txt)"
done
