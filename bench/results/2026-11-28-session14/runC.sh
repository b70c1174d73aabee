# Run C (session 14): the whole `gpu` label at the final GPU code: scripts/device-check.sh build,
# then scripts/device-check.sh test (ctest -L gpu -j 4), not cut short.
R=$OUT/C; mkdir -p $R; nvidia-smi -L > $R/C-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
mkdir -p .carry/matrices; for f in .carry/mgz/*.gz; do gunzip -c $f > .carry/matrices/$(basename $f .gz); done
export LOGS=$R/check
(echo "# run C: commit $C, $G, command: bash scripts/device-check.sh build"; bash scripts/device-check.sh build) > $R/C-build-stage.log 2>&1; echo "build rc=$? at $(el) s"
mv $OUT/device-check.tgz $R/C-build-device-check.tgz 2>/dev/null
(echo "# run C: commit $C, $G, command: bash scripts/device-check.sh test"; bash scripts/device-check.sh test) > $R/C-test-stage.log 2>&1; echo "test rc=$? at $(el) s"
mv $OUT/device-check.tgz $R/C-test-device-check.tgz 2>/dev/null; cp $OUT/summary.txt $R/C-device-check-summary.txt
tail -22 $R/C-device-check-summary.txt
cd $OUT && tar czf C.tgz C && rm -rf C
