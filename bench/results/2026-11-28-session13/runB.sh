# Run B (session 13): the new `inode` kernel (rows with one column list taken together):
# its GPU tests, the operator and conformance suites that take every registry kernel, and its
# speed against cuSPARSE, hola and vector-adaptive on block-row and other matrices, ops N and T.
R=$OUT/B; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"; B=build-device
mkdir -p .carry/matrices; for f in .carry/mgz/*.gz; do gunzip -c $f > .carry/matrices/$(basename $f .gz); done
source scripts/env.sh
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/build.log 2>&1 &&
  cmake --build $B -j "$JOBS" --target hola-bench inode_test >> $R/build.log 2>&1; echo "build rc=$? at $(el) s"; tail -2 $R/build.log
(echo "# commit $C, $G, command: $B/tests/inode_test"; HOLA_MATRICES_DIR=.carry/matrices timeout 150 $B/tests/inode_test) > $R/B-inode-test.log 2>&1
echo "inode_test rc=$? at $(el) s"; tail -3 $R/B-inode-test.log; grep -m5 "FAILED\|Failure" $R/B-inode-test.log
M="-m elasticity:n=64 -m elasticity:n=48 -m elasticity:n=32 -m elasticity:n=16 -m elasticity:n=50,block=2 -m elasticity:n=32,block=4 -m elasticity:n=28,block=5 -m elasticity:n=24,block=8"
M="$M -m stencil27:n=128 -m poisson3d:n=200 -m rmat:scale=21,ef=16 -m .carry/matrices/bcsstk13.mtx"
K="-k cusparse -k hola -k vector-adaptive -k inode"
for w in 4 8 16 32; do K="$K -k inode:lanes=$w"; done
CMD="$B/solvers_demo/hola-bench --commit $C $M $K -p double -p float --op N --op T --warmup 5 --reps 20 --json $R/B-inode.json"
(echo "# commit $C, $G, command: $CMD"; timeout 200 $CMD) > $R/B-inode.txt 2>$R/B-inode.err
echo "bench rc=$? at $(el) s"; gzip -9 $R/B-inode.json; tail -n 2 $R/B-inode.err
cd $OUT && tar czf B.tgz B && rm -rf B
