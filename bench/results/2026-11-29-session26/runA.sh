# Run A (session 26): threads per block of the row kernels on regular matrices (vector-adaptive
# and scalar at 128-1024 threads, op N, double and float: does a larger block keep more of x in
# the L1 on the 27-point stencil?), then auto on the 92 held-out matrices of the 2026-11-28
# training with every candidate kernel (session 18's run D command), the first such check since
# vector-adaptive's op N changed (session 25's predicated steps).
R=$OUT/A; mkdir -p $R; nvidia-smi -L > $R/A-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
mkdir -p .carry/matrices; for f in .carry/mgz-small/*.gz; do gunzip -c $f > .carry/matrices/$(basename $f .gz); done
source scripts/env.sh; B=build-device
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$(gpu_arch) > $R/A-build.log 2>&1 &&
  cmake --build $B -j $JOBS --target hola-bench >> $R/A-build.log 2>&1 || { tail -30 $R/A-build.log; exit 1; }
echo "built at $(el) s"
M="-m anchors -m elasticity:n=64 -m stencil27:n=96 -m stencil27:n=160 -m poisson2d:n=3000"
K="-k cusparse -k auto -k vector-adaptive -k vector-adaptive:tpb=128 -k vector-adaptive:tpb=512 -k vector-adaptive:tpb=1024 -k scalar -k scalar:tpb=512 -k scalar:tpb=1024"
ARGS="$M $K -p double -p float --op N --warmup 5 --reps 20 --time-cap-ms 20 -j $JOBS --no-progress --commit $C --json $R/A-tpb.json"
(echo "# run A: commit $C, $G, command: hola-bench $ARGS"; timeout 170 $B/solvers_demo/hola-bench $ARGS) > $R/A-tpb.txt 2> $R/A-tpb.err
echo "tpb rc=$? at $(el) s"; tail -3 $R/A-tpb.err
ARGS="-m @bench/results/2026-11-28-session16/D-heldout.txt -p double -p float --op N --op T -k cusparse -k hola -k merge -k light -k scalar -k vector -k vector-adaptive -k cusparse-alg2 -k inode -k auto --warmup 5 --reps 20 --time-cap-ms 20 -j $JOBS --no-progress --commit $C --json $R/A-heldout.json"
(echo "# run A: commit $C, $G, command: hola-bench $ARGS"; timeout $(( 588 - $(el) )) $B/solvers_demo/hola-bench $ARGS) > $R/A-heldout.txt 2> $R/A-heldout.err
echo "heldout rc=$? at $(el) s"; tail -3 $R/A-heldout.err
gzip -9 $R/*.json 2>/dev/null
cd $OUT && tar czf A.tgz A && rm -rf A
