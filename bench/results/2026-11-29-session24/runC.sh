# Run C (session 24): at the commit of run B (one shared beta-scaling pass). hola-bench on the
# anchors with session 18's run B kernels and settings (cuSPARSE, hola, merge, vector-adaptive,
# inode, auto; double and float; op N and T), the anchors' op T again with beta = 1 in place
# (the scaling pass then does nothing; against beta = 0, where it is a memset), then the scale
# stage's cases (hola-stress --scale --quick) on the kernels whose scaling pass changed: hola,
# merge, vector-adaptive, cusparse, within the call's time.
R=$OUT/C; mkdir -p $R; nvidia-smi -L > $R/C-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
source scripts/env.sh; B=build-device
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$(gpu_arch) > $R/C-build.log 2>&1 &&
  cmake --build $B -j $JOBS --target hola-bench hola-stress >> $R/C-build.log 2>&1 || { tail -30 $R/C-build.log; exit 1; }
echo "built at $(el) s"
K="-k cusparse -k hola -k merge -k vector-adaptive -k inode -k auto -p double -p float --warmup 5 --reps 20 -j $JOBS --no-progress --commit $C"
ARGS="$K --op N --op T --json $R/C-anchors.json"
(echo "# run C: commit $C, $G, command: hola-bench $ARGS"; timeout 200 $B/solvers_demo/hola-bench $ARGS) > $R/C-anchors.txt 2> $R/C-anchors.err
echo "anchors rc=$? at $(el) s"
ARGS="$K --op T --beta 1 --json $R/C-anchors-beta1.json"
(echo "# run C: commit $C, $G, command: hola-bench $ARGS"; timeout 150 $B/solvers_demo/hola-bench $ARGS) > $R/C-anchors-beta1.txt 2> $R/C-anchors-beta1.err
echo "beta1 rc=$? at $(el) s"
S="$B/tests/stress/hola-stress --scale --quick --kernel hola --kernel merge --kernel vector-adaptive --kernel cusparse --output $R/C-scale.json"
(echo "# run C: commit $C, $G, command: $S"; timeout $(( 580 - $(el) )) $S) > $R/C-scale.log 2>&1; echo "scale rc=$? at $(el) s"
tail -3 $R/C-scale.log
gzip -9 $R/*.json 2>/dev/null
cd $OUT && tar czf C.tgz C && rm -rf C
