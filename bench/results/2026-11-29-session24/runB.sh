# Run B (session 24): the whole `gpu` label at the commit with one shared beta-scaling pass
# (common/scale_output.cuh, used by cusparse, merge, hola and the row kernels):
# scripts/device-check.sh build, then test (ctest -j 4, the stage's default) (2 of the 11 real matrices travel).
R=$OUT/B; mkdir -p $R; nvidia-smi -L > $R/B-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
mkdir -p .carry/matrices; for f in .carry/mgz-small/*.gz; do gunzip -c $f > .carry/matrices/$(basename $f .gz); done
export LOGS=$R/check
(echo "# run B: commit $C, $G, command: bash scripts/device-check.sh build"; bash scripts/device-check.sh build) > $R/B-build-stage.log 2>&1; echo "build rc=$? at $(el) s"
rm -f $OUT/device-check.tgz
(echo "# run B: commit $C, $G, command: CTEST_ARGS='--timeout 420' bash scripts/device-check.sh test"; CTEST_ARGS="--timeout 420" timeout $(( 585 - $(el) )) bash scripts/device-check.sh test) > $R/B-test-stage.log 2>&1; echo "test rc=$? at $(el) s"
rm -f $OUT/device-check.tgz; cp $R/check/gpu-tests.log $R/B-gpu-tests.log 2>/dev/null
grep -E "tests passed|Failed|\*\*\*|Passed" $R/B-gpu-tests.log | tail -20
rm -rf $R/check/*.json 2>/dev/null
cd $OUT && tar czf B.tgz B && rm -rf B
