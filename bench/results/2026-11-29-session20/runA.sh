# Run A (session 20): op T through shared-memory windows (vector / vector-adaptive,
# KernelOptions::transpose_window) and merge's hub table fitted to the hubs found. Builds
# hola-bench, rowwise_test and merge_test; times the windows against the plain scatter
# (vector-adaptive:win=0), cuSPARSE and the other kernels on the anchors and three more banded
# structures, both ops, double and float; times merge's fitted table against the old fixed 2 048
# entries (merge:hubs=2048, the explicit size that stays) on the hub and tall matrices of
# session 19's run D; then runs rowwise_test and merge_test. Every result is checked against the
# CPU reference.
R=$OUT/A; mkdir -p $R; nvidia-smi -L > $R/A-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
source scripts/env.sh; B=build-device
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$(gpu_arch) > $R/A-build.log 2>&1 &&
  cmake --build $B -j $JOBS --target hola-bench rowwise_test merge_test >> $R/A-build.log 2>&1 || { tail -30 $R/A-build.log; exit 1; }
echo "built at $(el) s"
# Which shared-memory atomics the window kernel compiles to (a CAS loop or a native add).
O=$(find $B -name 'rowwise_double.cu.o' | head -1)
cuobjdump -sass -fun window_scatter "$O" 2>/dev/null | grep -oE "ATOMS\.[A-Z0-9.]+|RED\.[A-Z0-9.]+" | sort | uniq -c > $R/A-sass.txt
M="-m anchors -m elasticity:n=64 -m poisson2d:n=2000 -m poisson3d:n=200,perm=7 -m banded:rows=4000000,per_row=12,sigma=300"
K="-k cusparse -k scalar -k vector-adaptive -k vector-adaptive:win=0 -k inode -k hola -k merge -k auto"
ARGS="$M $K -p double -p float --op N --op T --warmup 5 --reps 20 -j $JOBS --no-progress --commit $C --json $R/A-windows.json"
(echo "# run A: commit $C, $G, command: hola-bench $ARGS"; timeout 150 $B/solvers_demo/hola-bench $ARGS) > $R/A-windows.txt 2> $R/A-windows.err
echo "windows bench rc=$? at $(el) s"
M="-m rmat:scale=21,ef=16 -m rmat:scale=20,ef=16 -m arrow:n=4000000 -m random:rows=2000000,cols=1000,per_row=8,seed=3 -m random:rows=8000000,cols=64,per_row=3,seed=2"
K="-k cusparse -k merge -k merge:hubs=2048"
ARGS="$M $K -p double -p float --op T --warmup 5 --reps 20 -j $JOBS --no-progress --commit $C --json $R/A-hubfit.json"
(echo "# run A: commit $C, $G, command: hola-bench $ARGS"; timeout 60 $B/solvers_demo/hola-bench $ARGS) > $R/A-hubfit.txt 2> $R/A-hubfit.err
echo "hubfit bench rc=$? at $(el) s"
(echo "# run A: commit $C, $G"; timeout 150 $B/tests/rowwise_test) > $R/A-rowwise_test.log 2>&1; echo "rowwise_test rc=$? at $(el) s"
(echo "# run A: commit $C, $G"; timeout 100 $B/tests/merge_test) > $R/A-merge_test.log 2>&1; echo "merge_test rc=$? at $(el) s"
tail -3 $R/A-rowwise_test.log $R/A-merge_test.log; cat $R/A-sass.txt
grep -E "vector-adaptive|auto|cusparse " $R/A-windows.txt | grep " T " | head -80
grep -E "merge" $R/A-hubfit.txt | head -30
gzip -9 $R/*.json 2>/dev/null
cd $OUT && tar czf A.tgz A && rm -rf A
