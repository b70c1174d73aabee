# Run C (session 25): the final form of the predicated steps (KernelOptions::predicated_row_steps,
# on by default below 32 lanes where the rows hold at least one entry a lane). rowwise_test
# whole (2 of the 11 real matrices travel, .carry/mgz-small), then hola-bench on the anchors with
# session 24's run C kernels and settings (N and T, double and float), and the anchors' op N of
# vector-adaptive with the steps forced off (pred=0) beside the default.
R=$OUT/C; mkdir -p $R; nvidia-smi -L > $R/C-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
mkdir -p .carry/matrices; for f in .carry/mgz-small/*.gz; do gunzip -c $f > .carry/matrices/$(basename $f .gz); done
export HOLA_MATRICES_DIR=$PWD/.carry/matrices
source scripts/env.sh; B=build-device
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$(gpu_arch) > $R/C-build.log 2>&1 &&
  cmake --build $B -j $JOBS --target hola-bench rowwise_test hola-stress >> $R/C-build.log 2>&1 || { tail -30 $R/C-build.log; exit 1; }
echo "built at $(el) s"
(echo "# run C: commit $C, $G"; timeout 300 $B/tests/rowwise_test) > $R/C-rowwise_test.log 2>&1; echo "rowwise_test rc=$? at $(el) s"; tail -3 $R/C-rowwise_test.log
K="-k cusparse -k hola -k merge -k vector-adaptive -k inode -k auto -p double -p float --warmup 5 --reps 20 -j $JOBS --no-progress --commit $C"
ARGS="$K --op N --op T --json $R/C-anchors.json"
(echo "# run C: commit $C, $G, command: hola-bench $ARGS"; timeout 150 $B/solvers_demo/hola-bench $ARGS) > $R/C-anchors.txt 2> $R/C-anchors.err
echo "anchors rc=$? at $(el) s"
ARGS="-k vector-adaptive -k vector-adaptive:pred=0 -k vector-adaptive:pred=1 -k cusparse -p double -p float --op N --warmup 5 --reps 20 -j $JOBS --no-progress --commit $C --json $R/C-pred.json"
(echo "# run C: commit $C, $G, command: hola-bench $ARGS"; timeout $(( 585 - $(el) )) $B/solvers_demo/hola-bench $ARGS) > $R/C-pred.txt 2> $R/C-pred.err
echo "pred rc=$? at $(el) s"
gzip -9 $R/*.json 2>/dev/null
cd $OUT && tar czf C.tgz C && rm -rf C
