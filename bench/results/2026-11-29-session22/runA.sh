# Run A (session 22): session 21's code not yet run on a GPU (28a196e) and auto's small-matrix
# cases. Builds hola-bench and four test executables; rowwise_test's window test on every type
# combination (the 96 KiB forced check of 28a196e, the setup-time budget check of cae4369);
# operator / auto-check suites; then the held-out matrices where auto ran cuSPARSE and still
# measured below 0.97x cuSPARSE (sessions 18 and 21): cusparse, auto, auto without its check,
# 200 timed runs, once with the host's launch inside the events and once on the GPU alone.
R=$OUT/A; mkdir -p $R; nvidia-smi -L > $R/A-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
source scripts/env.sh; B=build-device
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$(gpu_arch) > $R/A-build.log 2>&1 &&
  cmake --build $B -j $JOBS --target hola-bench rowwise_test operator_gpu_test auto_check_gpu_test >> $R/A-build.log 2>&1 || { tail -30 $R/A-build.log; exit 1; }
echo "built at $(el) s"
(echo "# run A: commit $C, $G"; timeout 170 $B/tests/rowwise_test --gtest_filter='*TransposeWindows*') > $R/A-rowwise_test.log 2>&1; echo "rowwise_test rc=$? at $(el) s"; tail -2 $R/A-rowwise_test.log
for t in operator_gpu_test auto_check_gpu_test; do
  (echo "# run A: commit $C, $G"; timeout 60 $B/tests/$t) > $R/A-$t.log 2>&1; echo "$t rc=$? at $(el) s"; tail -1 $R/A-$t.log
done
M=""; for s in single_row:cols=110916,seed=290 circuit:rows=28701,empty=0.13,long_rows=16,long_len=8809,mean=2.72,seed=231 \
  rmat:scale=14,ef=16,a=0.65,b=0.1167,c=0.1167,noise=0.1,seed=224 arrow:n=415055 \
  circuit:rows=530297,empty=0.35,long_rows=0,long_len=5222,mean=6.94,seed=253 random:rows=16720,cols=176852,per_row=28,seed=184 \
  random:rows=191667,cols=4234964,per_row=7,seed=177 rmat:scale=18,ef=4,a=0.45,b=0.1833,c=0.1833,noise=0.1,seed=206 \
  circuit:rows=594174,empty=0.4,long_rows=8,long_len=26972,mean=6.39,seed=250 powerlaw:rows=129466,mean=11.8,tail=2.0,seed=107; do M="$M -m $s"; done
K="-k cusparse -k auto -k auto:check=0 -k cusparse"
for mode in launch gpu; do
  X=""; [ $mode = gpu ] && X="--block-us 40"
  ARGS="$M $K -p double -p float --op N --op T --warmup 10 --reps 200 $X -j $JOBS --no-progress --commit $C --json $R/A-small-$mode.json"
  (echo "# run A: commit $C, $G, command: hola-bench $ARGS"; timeout 120 $B/solvers_demo/hola-bench $ARGS) > $R/A-small-$mode.txt 2> $R/A-small-$mode.err
  echo "bench $mode rc=$? at $(el) s"
done
gzip -9 $R/*.json 2>/dev/null
cd $OUT && tar czf A.tgz A && rm -rf A
