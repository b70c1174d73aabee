# Run C: from the repository root on the device, over the export in .carry/src (held-out list data
# in .carry/, corpus matrices in .carry/matrices): merge_test, device_conformance_test,
# operator_gpu_test at the commit of the one-launch merge; hola-bench --block-us 50 on the
# held-out matrices (as run B's blocked round) and the 13 small matrices in graph mode.
R=$OUT/C; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
S=$PWD/.carry/src; B=$PWD/build-dev; C=$(cat $S/.commit); G="$(nvidia-smi -L | head -1)"; MX=$S/.carry/matrices
cmake -S $S -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DHOLA_MATRICES_DIR=$MX > $R/build.log 2>&1 && cmake --build $B -j 16 --target merge_test device_conformance_test operator_gpu_test hola-bench >> $R/build.log 2>&1; echo "build rc=$? at $(el) s"; tail -2 $R/build.log
run_t() { t=$1; shift; (echo "# commit $C, $G, command: $B/tests/$t $*"; timeout 200 $B/tests/$t "$@"; echo "rc=$?") > $R/C-$t.log 2>&1; }
run_t merge_test & run_t device_conformance_test & run_t operator_gpu_test & wait
for t in merge_test device_conformance_test operator_gpu_test; do echo "$t: $(grep -E '^rc=|PASSED|FAILED  \]' $R/C-$t.log | tr '\n' ' ')"; done; echo "tests at $(el) s"
grep -h -B2 -A12 "Failure" $R/C-*.log | head -60
cd $S && python3 bench/selector/validate.py list .carry/eval.json .carry/data.json.gz > $B/heldout.txt; cd - > /dev/null
(echo "# commit $C, $G"; timeout 60 $B/solvers_demo/hola-bench --commit $C --graph --graph-products 20 --reps 30 --block-us 50 \
  -k cusparse -k cusparse-alg2 -k auto -k hola -k merge -k light -k scalar -k vector -k vector-adaptive \
  -p double -p float --op N --op T --no-progress \
  -m poisson2d:n=64 -m poisson2d:n=180 -m poisson3d:n=24 -m poisson3d:n=30 -m stencil27:n=16 \
  -m elasticity:n=8 -m banded:rows=20000,per_row=10,sigma=50 -m banded:rows=5000,per_row=22,sigma=1000 \
  -m random:rows=8192,per_row=16 -m rmat:scale=14,ef=8 -m powerlaw:rows=10000,mean=8 \
  -m circuit:rows=30000,mean=4,long_rows=8,long_len=2000 -m poisson2d:n=128,perm=1 \
  --json $R/C-graph-small-blocked.json; echo "rc=$?") > $R/C-graph-small-blocked.txt 2>&1
echo "graph bench at $(el) s"
K="-k cusparse -k cusparse-alg2 -k hola -k light -k merge -k scalar -k vector -k vector-adaptive -k auto -k auto:check=0"
left=$(( 560 - $(el) ))
BENCH="$B/solvers_demo/hola-bench -m @$B/heldout.txt -p double -p float --op N --op T $K --warmup 3 --reps 10 --time-cap-ms 20 -j 16 --commit $C --block-us 50"
(echo "# commit $C, $G, command: $BENCH --json $R/C-blocked-heldout.json"; timeout $left $BENCH --json $R/C-blocked-heldout.json) > $R/C-blocked-heldout.txt 2>$R/C.err; echo "held-out rc=$? at $(el) s"
gzip -9 $R/C-blocked-heldout.json
rm -f $R/*.err
(cd $OUT && tar czf C.tgz C)
