# Run D (session 18): merge's op T with a warp's sum added once when all its nonzeros hit one
# hub, and auto checking merge where the columns are long on average. Builds hola-bench and the
# merge / selector / check / operator tests and runs them; hola-bench op T on one-column, tall
# few-column and hub matrices (R-MAT, arrow: the other hub path's cost) with merge, merge
# without hubs, inode, cuSPARSE and auto; then run C's held-out set again (same command).
R=$OUT/D; mkdir -p $R; nvidia-smi -L > $R/D-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
mkdir -p .carry/matrices; for f in .carry/mgz-small/*.gz; do gunzip -c $f > .carry/matrices/$(basename $f .gz); done
source scripts/env.sh; B=build-device
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$(gpu_arch) > $R/D-build.log 2>&1 &&
  cmake --build $B -j $JOBS --target hola-bench merge_test selector_test auto_check_gpu_test operator_gpu_test >> $R/D-build.log 2>&1 || { tail -30 $R/D-build.log; exit 1; }
echo "built at $(el) s"
for t in merge_test selector_test auto_check_gpu_test operator_gpu_test; do
  (echo "# run D: commit $C, $G, command: $B/tests/$t"; $B/tests/$t) > $R/D-$t.log 2>&1; echo "$t rc=$? at $(el) s"; tail -1 $R/D-$t.log
done
M="-m single_column:rows=18587070,seed=294 -m single_column:rows=28575,seed=292 -m random:rows=16000000,cols=4,per_row=4,seed=1 -m random:rows=8000000,cols=64,per_row=3,seed=2 -m random:rows=2000000,cols=1000,per_row=8,seed=3 -m rmat:scale=21,ef=16 -m rmat:scale=20,ef=16 -m arrow:n=4000000"
ARGS="$M -k cusparse -k merge -k merge:hubs=0 -k inode -k hola -k auto -p double -p float --op T --warmup 5 --reps 20 --time-cap-ms 40 -j $JOBS --no-progress --commit $C --json $R/D-hubs.json"
(echo "# run D: commit $C, $G, command: hola-bench $ARGS"; timeout $(( 480 - $(el) )) $B/solvers_demo/hola-bench $ARGS) > $R/D-hubs.txt 2> $R/D-hubs.err
echo "hubs rc=$? at $(el) s"; grep -E "merge|auto" $R/D-hubs.txt | head -60
ARGS="-m @bench/results/2026-11-28-session16/D-heldout.txt -p double -p float --op N --op T -k cusparse -k hola -k merge -k light -k scalar -k vector -k vector-adaptive -k cusparse-alg2 -k inode -k auto --warmup 5 --reps 20 --time-cap-ms 20 -j $JOBS --no-progress --commit $C --json $R/D-heldout.json"
(echo "# run D: commit $C, $G, command: hola-bench $ARGS"; timeout $(( 590 - $(el) )) $B/solvers_demo/hola-bench $ARGS) > $R/D-heldout.txt 2> $R/D-heldout.err
echo "heldout rc=$? at $(el) s"
gzip -9 $R/*.json 2>/dev/null
cd $OUT && tar czf D.tgz D && rm -rf D
