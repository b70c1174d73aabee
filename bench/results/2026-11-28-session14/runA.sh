# Run A (session 14): the code of the shared width dispatcher on the GPU: scripts/device-check.sh
# build, the whole `gpu` label, then (in the time left) the sanitize stage on inode_test
# (memcheck, racecheck) and the fuzzer under racecheck with inode among its kernels.
R=$OUT/A; mkdir -p $R; nvidia-smi -L > $R/A-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
mkdir -p .carry/matrices; for f in .carry/mgz/*.gz; do gunzip -c $f > .carry/matrices/$(basename $f .gz); done
export LOGS=$R/check
(echo "# run A: commit $C, $G, command: bash scripts/device-check.sh build"; bash scripts/device-check.sh build) > $R/A-build-stage.log 2>&1; echo "build rc=$? at $(el) s"
(echo "# run A: commit $C, $G, command: CTEST_ARGS=\"-j 6\" bash scripts/device-check.sh test"; CTEST_ARGS="-j 6" timeout $(( 440 - $(el) )) bash scripts/device-check.sh test) > $R/A-test-stage.log 2>&1; echo "test rc=$? at $(el) s"
tail -5 $R/check/gpu-tests.log
(echo "# run A: commit $C, $G, command: SANITIZE_TESTS=inode_test SANITIZE_FUZZ_TOOLS=racecheck SANITIZE_FUZZ=20 bash scripts/device-check.sh sanitize (cut at the run's time limit)"; SANITIZE_TESTS=inode_test SANITIZE_FUZZ_TOOLS=racecheck SANITIZE_FUZZ=20 timeout $(( 575 - $(el) )) bash scripts/device-check.sh sanitize) > $R/A-sanitize-stage.log 2>&1; echo "sanitize rc=$? at $(el) s"
grep -E "^== |ERROR SUMMARY|exit" $R/check/sanitizer.log | tail -12
cd $OUT && tar czf A.tgz A && rm -rf A
