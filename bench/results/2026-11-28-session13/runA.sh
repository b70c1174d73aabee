# Run A (session 13): op T scatter with the products combined per column across the warp
# (new option `comb`), vector-adaptive's 2 / 4 lane bound on rows of 8-18 entries, and auto
# against cuSPARSE on CA-HepPh op T timed again (with and without --block-us).
R=$OUT/A; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"; B=build-device
mkdir -p .carry/matrices; for f in .carry/mgz/*.gz; do gunzip -c $f > .carry/matrices/$(basename $f .gz); done
source scripts/env.sh
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/build.log 2>&1 &&
  cmake --build $B -j "$JOBS" --target hola-bench rowwise_test >> $R/build.log 2>&1; echo "build rc=$? at $(el) s"; tail -2 $R/build.log
(echo "# commit $C, $G, command: $B/tests/rowwise_test"; HOLA_MATRICES_DIR=.carry/matrices timeout 200 $B/tests/rowwise_test) > $R/A-rowwise-test.log 2>&1
echo "rowwise_test rc=$? at $(el) s"; tail -3 $R/A-rowwise-test.log
# 1. op T, combine on / off
M="-m elasticity:n=64 -m elasticity:n=48 -m elasticity:n=32 -m elasticity:n=16 -m elasticity:n=50,block=2 -m elasticity:n=32,block=4 -m elasticity:n=28,block=5"
M="$M -m stencil27:n=128 -m stencil27:n=64 -m poisson3d:n=200 -m poisson2d:n=3000 -m banded:sigma=10 -m banded:sigma=100 -m banded:sigma=1000"
M="$M -m random:per_row=22 -m rmat:scale=21,ef=16 -m powerlaw:rows=2000000,mean=16,tail=1.5 -m .carry/matrices/bcsstk13.mtx -m .carry/matrices/usroads.mtx -m .carry/matrices/CA-HepPh.mtx"
K="-k cusparse -k hola -k scalar -k vector-adaptive -k vector-adaptive:comb=1"
for w in 2 4 8 16; do K="$K -k vector-adaptive:lanes=$w,comb=1"; done
CMD="$B/solvers_demo/hola-bench --commit $C $M $K -p double -p float --op T --warmup 5 --reps 20 --json $R/A-combine.json"
(echo "# commit $C, $G, command: $CMD"; timeout 240 $CMD) > $R/A-combine.txt 2>$R/A-combine.err
echo "combine rc=$? at $(el) s"; gzip -9 $R/A-combine.json; tail -2 $R/A-combine.err
# 2. the 2 / 4 lane bound: banded rows of 8-18 entries
M=""; for s in 3 10 100; do for p in 9 11 13 15 18; do M="$M -m banded:rows=2000000,per_row=$p,sigma=$s"; done; done
CMD="$B/solvers_demo/hola-bench --commit $C $M -k cusparse -k vector-adaptive:lanes=2 -k vector-adaptive:lanes=4 -k vector-adaptive:lanes=4,comb=1 -p double -p float --op N --op T --warmup 5 --reps 20 --json $R/A-bound.json"
(echo "# commit $C, $G, command: $CMD"; timeout 150 $CMD) > $R/A-bound.txt 2>$R/A-bound.err
echo "bound rc=$? at $(el) s"; gzip -9 $R/A-bound.json; tail -2 $R/A-bound.err
# 3. CA-HepPh op T: cuSPARSE and auto, twice each, without and with --block-us
for bu in 0 40; do
CMD="$B/solvers_demo/hola-bench --commit $C -m .carry/matrices/CA-HepPh.mtx -k cusparse -k auto -k cusparse -k auto -p double --op T --warmup 20 --reps 400 --block-us $bu --json $R/A-hepph-bu$bu.json"
(echo "# commit $C, $G, command: $CMD"; timeout 60 $CMD) > $R/A-hepph-bu$bu.txt 2>$R/A-hepph-bu$bu.err
echo "hepph bu=$bu rc=$? at $(el) s"
done
cd $OUT && tar czf A.tgz A && rm -rf A
