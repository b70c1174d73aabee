# Run A (session 19): the whole `gpu` label at HEAD (the last CUDA edit e864f88 had not run
# rowwise_test, conformance, SpMSpV, batched or stress suites), then, in the time left, the
# scale cases of the kernels whose op T changed since the last scale stage (merge's hub path,
# auto): scripts/device-check.sh build; scripts/device-check.sh test (ctest -L gpu -j 4);
# hola-stress --regressions --scale --quick --kernel merge --kernel auto.
# (Carries 2 of the 11 real matrices, .carry/mgz-small: the working tree is near the device tool's 64 MiB.)
R=$OUT/A; mkdir -p $R; nvidia-smi -L > $R/A-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
mkdir -p .carry/matrices; for f in .carry/mgz-small/*.gz; do gunzip -c $f > .carry/matrices/$(basename $f .gz); done
export LOGS=$R/check
(echo "# run A: commit $C, $G, command: bash scripts/device-check.sh build"; bash scripts/device-check.sh build) > $R/A-build-stage.log 2>&1; echo "build rc=$? at $(el) s"
mv $OUT/device-check.tgz $R/A-build-device-check.tgz 2>/dev/null
(echo "# run A: commit $C, $G, command: bash scripts/device-check.sh test"; bash scripts/device-check.sh test) > $R/A-test-stage.log 2>&1; echo "test rc=$? at $(el) s"
mv $OUT/device-check.tgz $R/A-test-device-check.tgz 2>/dev/null; cp $OUT/summary.txt $R/A-device-check-summary.txt
tail -22 $R/A-device-check-summary.txt
S="build-device/tests/stress/hola-stress --regressions --scale --quick --kernel merge --kernel auto --output $R/A-scale.json"
(echo "# run A: commit $C, $G, command: $S (timeout $(( 588 - $(el) )) s)"; timeout $(( 588 - $(el) )) $S) > $R/A-scale.log 2>&1; echo "scale rc=$? at $(el) s"
grep -E "^ok|FAIL|passed|refused|skip" $R/A-scale.log | tail -30
gzip -9 $R/*.json 2>/dev/null
cd $OUT && tar czf A.tgz A && rm -rf A
