# Run A (session 18): the whole `gpu` label at HEAD, the first GPU run of 38821a2 (the hub
# search's out-of-memory fallback) and f381547 (hub_columns.cuh through the column index's
# launch helpers), and the first run of every GPU suite with merge's hub op T on by default:
# scripts/device-check.sh build, then scripts/device-check.sh test (ctest -L gpu -j 4).
# (Carries 8 of the 11 real matrices, .carry/mgz-small: all 11 pass the device tool's 64 MiB.)
R=$OUT/A; mkdir -p $R; nvidia-smi -L > $R/A-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
mkdir -p .carry/matrices; for f in .carry/mgz-small/*.gz; do gunzip -c $f > .carry/matrices/$(basename $f .gz); done
export LOGS=$R/check
(echo "# run A: commit $C, $G, command: bash scripts/device-check.sh build"; bash scripts/device-check.sh build) > $R/A-build-stage.log 2>&1; echo "build rc=$? at $(el) s"
mv $OUT/device-check.tgz $R/A-build-device-check.tgz 2>/dev/null
(echo "# run A: commit $C, $G, command: bash scripts/device-check.sh test"; bash scripts/device-check.sh test) > $R/A-test-stage.log 2>&1; echo "test rc=$? at $(el) s"
mv $OUT/device-check.tgz $R/A-test-device-check.tgz 2>/dev/null; cp $OUT/summary.txt $R/A-device-check-summary.txt
tail -24 $R/A-device-check-summary.txt
cd $OUT && tar czf A.tgz A && rm -rf A
