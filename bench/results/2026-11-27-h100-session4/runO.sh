# Run O: from the repository root on the device, over the export in .carry/src: the verdict of
# auto's check at a fixed product and the SpMSpV sorted write-back / deterministic mode (396e3f3):
# auto_check_gpu_test, operator_gpu_test, spmspv_gpu_test; then hola-spmspv-bench --quick (double,
# N and T, dense and sparse y) as it is and with --deterministic.
R=$OUT/O; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
S=$PWD/.carry/src; B=$PWD/build-dev; C=$(cat $S/.commit); G="$(nvidia-smi -L | head -1)"
cmake -S $S -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/build.log 2>&1 && cmake --build $B -j 16 --target auto_check_gpu_test operator_gpu_test spmspv_gpu_test hola-spmspv-bench >> $R/build.log 2>&1; echo "build rc=$? at $(el) s"
tail -3 $R/build.log
for t in auto_check_gpu_test operator_gpu_test spmspv_gpu_test; do
  (echo "# commit $C, $G, command: $B/tests/$t"; timeout 300 $B/tests/$t; echo "rc=$?") > $R/$t.log 2>&1 &
done; wait
for t in auto_check_gpu_test operator_gpu_test spmspv_gpu_test; do echo "$t: $(grep -E '^rc=|PASSED|FAILED  \]' $R/$t.log | tr '\n' ' ')"; done; echo "tests at $(el) s"
grep -B3 -A12 "Failure" $R/spmspv_gpu_test.log | head -60
for mode in atomic deterministic; do
  F=""; [ $mode = deterministic ] && F="--deterministic"
  CMD="$B/solvers_demo/spmspv_bench/hola-spmspv-bench --quick --precision double --output-form both $F --time-budget-s 100 -o $R/O-spmspv-$mode.json"
  (echo "# commit $C, $G, command: $CMD"; timeout 200 $CMD) > $R/O-spmspv-$mode.txt 2>&1; echo "$mode rc=$? at $(el) s"
  tail -12 $R/O-spmspv-$mode.txt
done
(cd $OUT && tar czf O.tgz O)
