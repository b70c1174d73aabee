# Run E (on D's warm machine and build, the device time's last 180 s): the generated SpMSpV sweep
# at D's code, as in run B.
R=$OUT/E; mkdir -p $R; C=$(cat .carry/commit); S=build-device/solvers_demo/spmspv_bench/hola-spmspv-bench; CMD="$S --commit $C --precision both --output-form both --time-budget-s 140 -o $R/E-spmspv-bench.json"; (echo "# commit $C, $(nvidia-smi -L | head -1), command: $CMD"; timeout 170 $CMD) > $R/E-spmspv-bench.txt 2>&1; echo rc=$?; gzip -9 $R/E-spmspv-bench.json; tail -2 $R/E-spmspv-bench.txt
