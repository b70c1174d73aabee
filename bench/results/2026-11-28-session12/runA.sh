# Run A: vector-adaptive's lanes per row forced (new option `lanes`), ops N and T, beside scalar,
# hola and cuSPARSE: does op T want a different width than op N's CUSP rule?
R=$OUT/A; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"; B=build-device
mkdir -p .carry/matrices; for f in .carry/mgz/*.gz; do gunzip -c $f > .carry/matrices/$(basename $f .gz); done
source scripts/env.sh
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/build.log 2>&1 &&
  cmake --build $B -j "$JOBS" --target hola-bench >> $R/build.log 2>&1; echo "build rc=$? at $(el) s"; tail -2 $R/build.log
M="-m stencil27:n=128 -m stencil27:n=100 -m elasticity:n=64 -m elasticity:n=48 -m poisson3d:n=200 -m banded:sigma=10 -m banded:sigma=100 -m banded:sigma=1000 -m random:per_row=22 -m rmat:scale=21,ef=16 -m circuit -m powerlaw:rows=2000000,mean=16,tail=1.5 -m poisson3d:n=160,perm=1"
M="$M -m poisson2d:n=3000 -m stencil27:n=64 -m elasticity:n=32 -m random:rows=2000000,per_row=5"
M="$M -m poisson3d:n=40 -m stencil27:n=24 -m elasticity:n=16 -m random:rows=20000,per_row=10 -m .carry/matrices/bcsstk13.mtx -m .carry/matrices/usroads.mtx -m .carry/matrices/CA-HepPh.mtx"
K="-k cusparse -k scalar -k hola -k vector-adaptive"
for w in 2 4 8 16 32; do K="$K -k vector-adaptive:lanes=$w"; done
CMD="$B/solvers_demo/hola-bench --commit $C $M $K -p double -p float --op T --op N --warmup 5 --reps 20 --json $R/A-lanes.json"
(echo "# commit $C, $G, command: $CMD"; timeout 300 $CMD) > $R/A-lanes.txt 2>$R/A-lanes.err
echo "bench rc=$? at $(el) s"; gzip -9 $R/A-lanes.json; tail -3 $R/A-lanes.err
cd $OUT && tar czf A.tgz A && rm -rf A
