# Run D: from the repository root on the device, over the export in .carry/src: merge_test; then
# hola-bench on 15 small matrices with merge's fused fix-up (merge) and the separate fix-up kernel
# (merge:fuse=0) side by side, with cuSPARSE and auto, op N: blocked timing with graph mode, then
# plain timing with graph mode.
R=$OUT/D; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
S=$PWD/.carry/src; B=$PWD/build-dev; C=$(cat $S/.commit); G="$(nvidia-smi -L | head -1)"
cmake -S $S -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/build.log 2>&1 && cmake --build $B -j 16 --target merge_test hola-bench >> $R/build.log 2>&1; echo "build rc=$? at $(el) s"; tail -2 $R/build.log
(echo "# commit $C, $G, command: $B/tests/merge_test"; timeout 200 $B/tests/merge_test; echo "rc=$?") > $R/D-merge_test.log 2>&1
echo "merge_test: $(grep -E '^rc=|PASSED|FAILED  \]' $R/D-merge_test.log | tr '\n' ' ') at $(el) s"
M="-m poisson2d:n=64 -m poisson2d:n=180 -m poisson3d:n=24 -m poisson3d:n=30 -m stencil27:n=16 -m elasticity:n=8 -m banded:rows=20000,per_row=10,sigma=50 -m banded:rows=5000,per_row=22,sigma=1000 -m random:rows=8192,per_row=16 -m rmat:scale=14,ef=8 -m powerlaw:rows=10000,mean=8 -m circuit:rows=30000,mean=4,long_rows=8,long_len=2000 -m poisson2d:n=128,perm=1 -m poisson2d:n=250 -m random:rows=40000,per_row=10"
for mode in blocked plain; do
  X=""; [ $mode = blocked ] && X="--block-us 50"
  (echo "# commit $C, $G"; timeout 120 $B/solvers_demo/hola-bench --commit $C --graph --graph-products 20 --reps 30 $X \
    -k cusparse -k merge -k merge:fuse=0 -k auto -p double -p float --op N --no-progress $M \
    --json $R/D-fuse-$mode.json; echo "rc=$?") > $R/D-fuse-$mode.txt 2>&1
  echo "$mode at $(el) s: $(tail -1 $R/D-fuse-$mode.txt)"
done
(cd $OUT && tar czf D.tgz D)
