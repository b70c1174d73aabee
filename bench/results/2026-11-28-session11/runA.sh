# Run A: hola's block shape (threads per block x nonzeros per thread), never swept on Hopper: all
# nine compiled pairs against cuSPARSE, op N, double and float, large and small matrices.
R=$OUT/A; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"; B=build-device
mkdir -p .carry/matrices; for f in .carry/mgz/*.gz; do gunzip -c $f > .carry/matrices/$(basename $f .gz); done
{ cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 && cmake --build $B -j 16 --target hola-bench; } > $R/build.log 2>&1
echo "build rc=$? at $(el) s"; tail -1 $R/build.log
M="-m stencil27:n=128 -m stencil27:n=100 -m elasticity:n=64 -m elasticity:n=48 -m poisson3d:n=200 -m banded:sigma=10 -m banded:sigma=100 -m banded:sigma=1000 -m random:per_row=22 -m rmat:scale=21,ef=16 -m circuit -m powerlaw:rows=2000000,mean=16,tail=1.5"
M="$M -m poisson3d:n=40 -m stencil27:n=24 -m elasticity:n=16 -m random:rows=20000,per_row=10 -m .carry/matrices/bcsstk13.mtx -m .carry/matrices/usroads.mtx -m .carry/matrices/CA-HepPh.mtx"
K="-k cusparse"; for t in 128 256 512; do for n in 4 8 16; do K="$K -k hola:tpb=$t,npt=$n"; done; done
CMD="$B/solvers_demo/hola-bench --commit $C $M $K -p double -p float --op ${OPS:-N} --warmup 5 --reps 20 --json $R/A-config.json"
(echo "# commit $C, $G, command: $CMD"; timeout ${BT:-380} $CMD) > $R/A-config.txt 2>$R/A-config.err
echo "bench rc=$? at $(el) s"; gzip -9 $R/A-config.json; tail -3 $R/A-config.err
