# Run A: inode's column loop with its steps loaded together (6aa8e8c, kGroupSteps = 4) against
# the loop before (one step a round: .carry/inode_kernel_before.cuh = inode_kernel.cuh of 43fb97f)
# and against kGroupSteps = 2, three hola-bench builds that differ only in that file, timed in
# one run on block-row matrices (7- / 5-point node coupling with 2-6 unknowns a node, and
# 27-point elasticity), cuSPARSE beside each. inode_test (the kernel's GPU suite) on 6aa8e8c first.
R=$OUT/A; mkdir -p $R; nvidia-smi -L > $R/A-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
source scripts/env.sh; B=build-device; K=kernels/cuda/inode/inode_kernel.cuh
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$(gpu_arch) > $R/A-build.log 2>&1 &&
  cmake --build $B -j $JOBS --target hola-bench inode_test >> $R/A-build.log 2>&1 || { tail -30 $R/A-build.log; exit 1; }
echo "built at $(el) s"
T=$(find $B -name inode_test -type f -executable | head -1)
(echo "# run A: commit $C, $G, command: $T"; $T) > $R/A-inode_test.log 2>&1; echo "inode_test rc=$? at $(el) s"; tail -3 $R/A-inode_test.log
mkdir -p /tmp/hb && cp $B/solvers_demo/hola-bench /tmp/hb/steps4
cp $K /tmp/hb/after.cuh
sed -i 's/^constexpr int kGroupSteps = 4;/constexpr int kGroupSteps = 2;/' $K; grep -q "kGroupSteps = 2;" $K || exit 1
cmake --build $B -j $JOBS --target hola-bench >> $R/A-build.log 2>&1 || { tail -30 $R/A-build.log; exit 1; }
cp $B/solvers_demo/hola-bench /tmp/hb/steps2
cp .carry/inode_kernel_before.cuh $K
cmake --build $B -j $JOBS --target hola-bench >> $R/A-build.log 2>&1 || { tail -30 $R/A-build.log; exit 1; }
cp $B/solvers_demo/hola-bench /tmp/hb/before; cp /tmp/hb/after.cuh $K
echo "three builds at $(el) s"
M="-m elasticity:n=100,block=2,points=7 -m elasticity:nx=1400,ny=1400,nz=1,block=2,points=7 -m elasticity:nx=1000,ny=1000,nz=1,block=3,points=7 -m elasticity:nx=385,ny=385,nz=1,block=4,points=7 -m elasticity:n=64,block=4,points=7 -m elasticity:n=50,block=6,points=7 -m elasticity:n=40,block=3 -m elasticity:n=64,block=3"
for round in 1 2; do
  for t in before steps4 steps2; do
    left=$(( 585 - $(el) )); [ $left -lt 60 ] && { echo "no time for $t round $round"; continue; }
    ARGS="$M -k cusparse -k inode -p double -p float --op N --op T --warmup 5 --reps 20 -j $JOBS --no-progress --commit $C --json $R/A-$t-$round.json"
    (echo "# run A: commit $C, $G, inode loop $t (round $round), command: hola-bench $ARGS"; timeout $left /tmp/hb/$t $ARGS) > $R/A-$t-$round.txt 2> $R/A-$t-$round.err
    echo "$t round $round rc=$? at $(el) s"
  done
done
gzip -9 $R/*.json 2>/dev/null
cd $OUT && tar czf A.tgz A && rm -rf A
