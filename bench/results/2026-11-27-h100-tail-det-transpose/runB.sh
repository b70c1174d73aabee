# Run B: from the repository root on the device; sources exported to .carry/src (git archive of the
# commit; corpus matrices in .carry/src/.carry/matrices). The GPU suites that the deterministic op T
# touches, run side by side, then hola-stress on large matrices with the row kernels in both modes.
R=$OUT/B; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
pack() { (cd $OUT && tar czf B.tgz B); }
S=$PWD/.carry/src; B=$PWD/build-dev; MX=$S/.carry/matrices; C=$(cat $S/.commit); G="$(nvidia-smi -L | head -1)"
cmake -S $S -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DHOLA_MATRICES_DIR=$MX > $R/build.log 2>&1 && cmake --build $B -j 16 --target graph_gpu_test rowwise_test operator_gpu_test device_conformance_test light_test hola-stress >> $R/build.log 2>&1; echo "build rc=$? at $(el) s"; tail -1 $R/build.log
gt() { name=$1; shift; (echo "# commit $C, $G, command: $B/tests/$name $*"; timeout 330 $B/tests/$name "$@"; echo "rc=$?") > $R/$name.log 2>&1; }
for t in device_conformance_test rowwise_test light_test operator_gpu_test graph_gpu_test; do gt $t & done; wait
echo "suites done at $(el) s"
for t in device_conformance_test rowwise_test light_test operator_gpu_test graph_gpu_test; do echo "$t: $(grep -E '^rc=' $R/$t.log) $(grep -E 'PASSED|FAILED  \]' $R/$t.log | tail -3 | tr '\n' ' ')"; done
pack
ST=$B/tests/stress/hola-stress; [ -x $ST ] || ST=$(find $B -name hola-stress -type f | head -1)
st() { tag=$1; shift; (echo "# commit $C, $G, command: $ST $*"; timeout 120 $ST "$@" --output $R/stress-$tag.json; echo "rc=$?") > $R/stress-$tag.log 2>&1; echo "stress $tag at $(el) s: $(grep -E '^rc=|passed|FAIL|refused' $R/stress-$tag.log | tail -4 | tr '\n' ' ')"; }
st stencil5-1e8 --spec rows=100000000,cols=100000000,dist=stencil5,nx=10000 --types double,32,32 --kernel scalar --kernel vector-adaptive --kernel auto --quick
st stencil5-1e8-float --spec rows=100000000,cols=100000000,dist=stencil5,nx=10000 --types float,32,32 --kernel scalar --quick
st column-1e8 --spec rows=100000000,cols=1,dist=constant,len=1,seed=12 --types double,32,32 --kernel scalar --kernel vector --quick
st power-3e7 --spec rows=30000000,cols=30000000,dist=power,len=100000,seed=13 --types double,32,64 --kernel scalar --kernel auto --quick
st nnz-2e9 --spec rows=100000000,cols=100000000,dist=constant,len=22,seed=5 --types double,32,64 --kernel scalar --quick
pack
