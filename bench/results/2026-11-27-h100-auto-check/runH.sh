# Run H: from the repository root on the device, over the export in .carry/src: the GPU tests and
# stress runs that go through auto (now with its check at the first products), then auto with
# and without the check against cuSPARSE on the 94 held-out matrices of the committed trees.
R=$OUT/H; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
S=$PWD/.carry/src; B=$PWD/build-dev; C=$(cat $S/.commit); G="$(nvidia-smi -L | head -1)"
cmake -S $S -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DHOLA_MATRICES_DIR=$S/.carry/matrices > $R/build.log 2>&1 && cmake --build $B -j 16 --target device_conformance_test stress_regression_test hola-stress hola-bench >> $R/build.log 2>&1; echo "build rc=$? at $(el) s"
ST=$B/tests/stress/hola-stress
(echo "# commit $C, $G, command: $B/tests/device_conformance_test"; timeout 300 $B/tests/device_conformance_test; echo "rc=$?") > $R/device_conformance_test.log 2>&1 &
(echo "# commit $C, $G, command: $B/tests/stress/stress_regression_test"; timeout 300 $B/tests/stress/stress_regression_test; echo "rc=$?") > $R/stress_regression_test.log 2>&1 &
(echo "# commit $C, $G, command: $ST --fuzz 300 --seed 27 --kernel auto --output $R/fuzz-auto.json"; timeout 300 $ST --fuzz 300 --seed 27 --kernel auto --output $R/fuzz-auto.json; echo "rc=$?") > $R/fuzz-auto.log 2>&1 &
wait
for t in device_conformance_test stress_regression_test fuzz-auto; do echo "$t: $(grep -E '^rc=|PASSED|FAILED  \]|passed|failed' $R/$t.log | tail -3 | tr '\n' ' ')"; done; echo "tests at $(el) s"
cd $S && python3 bench/selector/validate.py list .carry/eval.json .carry/data.json.gz > $B/heldout.txt; cd - > /dev/null
BENCH="$B/solvers_demo/hola-bench -m @$B/heldout.txt -p double -p float --op N --op T -k cusparse -k auto -k auto:check=0 --warmup 3 --reps 10 --time-cap-ms 20 -j 16 --commit $C"
(echo "# commit $C, $G, command: $BENCH --json $R/H-heldout.json"; timeout $(( 570 - $(el) )) $BENCH --json $R/H-heldout.json) > $R/H-heldout.txt 2>$R/H-heldout.err; echo "bench rc=$? at $(el) s"
gzip -9 $R/H-heldout.json
(cd $OUT && tar czf H.tgz H)
