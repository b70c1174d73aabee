# Run C (session 26): the whole `gpu` label at this session's code (the predicated round shared
# by scalar's overlapped tail and vector-adaptive's steps; the same cubin for the row kernels):
# scripts/device-check.sh build, then test (ctest -j 4, the stage's default), all 11 real
# matrices carried (.carry/mgz-small gzip, .carry/mxz xz); then, if time is left, the sanitize
# stage's fuzzer part (30 random structures under memcheck, racecheck, initcheck, synccheck).
R=$OUT/C; mkdir -p $R; nvidia-smi -L > $R/C-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
mkdir -p .carry/matrices; for f in .carry/mgz-small/*.gz; do gunzip -c $f > .carry/matrices/$(basename $f .gz); done
for f in .carry/mxz/*.xz; do xz -dc $f > .carry/matrices/$(basename $f .xz); done
export LOGS=$PWD/device-out-C  # outside $OUT: the stages pack and remove what lies inside it
(echo "# run C: commit $C, $G, command: bash scripts/device-check.sh build"; bash scripts/device-check.sh build) > $R/C-build-stage.log 2>&1; echo "build rc=$? at $(el) s"
rm -f $OUT/device-check.tgz $OUT/summary.txt
(echo "# run C: commit $C, $G, command: CTEST_ARGS='--timeout 400' bash scripts/device-check.sh test"; CTEST_ARGS="--timeout 400" timeout $(( 590 - $(el) )) bash scripts/device-check.sh test) > $R/C-test-stage.log 2>&1; echo "test rc=$? at $(el) s"
rm -f $OUT/device-check.tgz $OUT/summary.txt; cp $LOGS/summary.txt $R/C-test-summary.txt; cp $LOGS/gpu-tests.log $R/C-gpu-tests.log 2>/dev/null
grep -E "tests passed|Failed|\*\*\*" $R/C-gpu-tests.log | tail -12
if [ $(el) -lt 525 ]; then
  (echo "# run C: commit $C, $G, command: SANITIZE_TESTS=none SANITIZE_FUZZ=30 bash scripts/device-check.sh sanitize"
   SANITIZE_TESTS=none SANITIZE_FUZZ=30 timeout $(( 592 - $(el) )) bash scripts/device-check.sh sanitize) > $R/C-sanitize-stage.log 2>&1; echo "sanitize rc=$? at $(el) s"
  rm -f $OUT/device-check.tgz $OUT/summary.txt; cp $LOGS/summary.txt $R/C-sanitize-summary.txt; cp $LOGS/sanitizer.log $R/C-sanitizer.log 2>/dev/null
  tail -6 $R/C-sanitize-summary.txt
fi
cd $OUT && tar czf C.tgz C && rm -rf C
