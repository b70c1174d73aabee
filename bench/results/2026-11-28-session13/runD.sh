# Run D (session 13): the final code on the GPU: scripts/device-check.sh build, then the whole
# `gpu` label (ctest -L gpu -j 4, every GPU suite).
R=$OUT/D; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
mkdir -p .carry/matrices; for f in .carry/mgz/*.gz; do gunzip -c $f > .carry/matrices/$(basename $f .gz); done
export LOGS=$R/check
(echo "# commit $C, $G, command: bash scripts/device-check.sh build"; bash scripts/device-check.sh build) > $R/D-build-stage.log 2>&1; echo "build rc=$? at $(el) s"
(echo "# commit $C, $G, command: bash scripts/device-check.sh test"; timeout $(( 585 - $(el) )) bash scripts/device-check.sh test) > $R/D-test-stage.log 2>&1; echo "test rc=$? at $(el) s"
tail -6 $R/check/gpu-tests.log
cd $OUT && tar czf D.tgz D && rm -rf D
