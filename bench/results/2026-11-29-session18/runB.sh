# Run B (session 18): vector-adaptive in auto's check on rows of even length (both ops) and the
# tree's own alternatives kept in the check when block rows force inode
# (check_vector_adaptive_on_even_rows, prefer_row_groups). Builds hola-bench and the selector /
# check / operator tests; runs those tests; then hola-bench on session 17's 26 block-row
# matrices (its run B, same command) and on the anchor matrices (hola-bench's default set), with
# cuSPARSE, hola, merge, vector-adaptive, inode and auto in the same run.
R=$OUT/B; mkdir -p $R; nvidia-smi -L > $R/B-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
source scripts/env.sh; B=build-device
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$(gpu_arch) > $R/B-build.log 2>&1 &&
  cmake --build $B -j $JOBS --target hola-bench selector_test auto_check_gpu_test operator_gpu_test >> $R/B-build.log 2>&1 || { tail -30 $R/B-build.log; exit 1; }
echo "built at $(el) s"
for t in selector_test auto_check_gpu_test operator_gpu_test; do
  (echo "# run B: commit $C, $G, command: $B/tests/$t"; $B/tests/$t) > $R/B-$t.log 2>&1; echo "$t rc=$? at $(el) s"; tail -1 $R/B-$t.log
done
M=""
for s in "1 7 2000" "2 7 1000" "3 7 667" "4 7 500" "5 7 400" "6 7 333" "1 27 1490" "2 27 745" "3 27 497" "4 27 373" "5 27 298" "6 27 248"; do
  set -- $s; M="$M -m elasticity:nx=$3,ny=$3,nz=1,block=$1,points=$2"; done
for s in "1 7 142" "2 7 89" "3 7 68" "4 7 56" "5 7 49" "6 7 43" "1 27 90" "2 27 57" "3 27 44" "4 27 36" "5 27 31" "6 27 27"; do
  set -- $s; M="$M -m elasticity:n=$3,block=$1,points=$2"; done
M="$M -m elasticity:nx=150,ny=150,nz=1,block=2,points=27 -m elasticity:n=16,block=3,points=27"
K="-k cusparse -k hola -k merge -k vector-adaptive -k inode -k auto -p double -p float --op N --op T --warmup 5 --reps 20 -j $JOBS --no-progress --commit $C"
ARGS="$M $K --json $R/B-blocks.json"
(echo "# run B: commit $C, $G, command: hola-bench $ARGS"; timeout $(( 560 - $(el) )) $B/solvers_demo/hola-bench $ARGS) > $R/B-blocks.txt 2> $R/B-blocks.err
echo "blocks rc=$? at $(el) s"
ARGS="$K --json $R/B-anchors.json"
(echo "# run B: commit $C, $G, command: hola-bench $ARGS"; timeout $(( 585 - $(el) )) $B/solvers_demo/hola-bench $ARGS) > $R/B-anchors.txt 2> $R/B-anchors.err
echo "anchors rc=$? at $(el) s"
gzip -9 $R/*.json 2>/dev/null
cd $OUT && tar czf B.tgz B && rm -rf B
