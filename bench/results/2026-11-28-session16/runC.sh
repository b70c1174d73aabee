# Run C: the whole `gpu` label with the retrained trees and the new auto_check_memory_full_test
# (the check's branch of 23a2628, out of memory for the challengers' output, which no GPU had
# run): scripts/device-check.sh build, then scripts/device-check.sh test (ctest -L gpu -j 4,
# the new test alone: RUN_SERIAL); then, in the time left, hola-bench with auto on session 15's
# short block rows (run A there), where the trees now know inode.
# (Carries 8 of the 11 real matrices, .carry/mgz-small: with all 11 the working tree passed the device tool's 64 MiB limit.)
R=$OUT/C; mkdir -p $R; nvidia-smi -L > $R/C-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
mkdir -p .carry/matrices; for f in .carry/mgz-small/*.gz; do gunzip -c $f > .carry/matrices/$(basename $f .gz); done
export LOGS=$R/check
(echo "# run C: commit $C, $G, command: bash scripts/device-check.sh build"; bash scripts/device-check.sh build) > $R/C-build-stage.log 2>&1; echo "build rc=$? at $(el) s"
mv $OUT/device-check.tgz $R/C-build-device-check.tgz 2>/dev/null
(echo "# run C: commit $C, $G, command: bash scripts/device-check.sh test"; bash scripts/device-check.sh test) > $R/C-test-stage.log 2>&1; echo "test rc=$? at $(el) s"
mv $OUT/device-check.tgz $R/C-test-device-check.tgz 2>/dev/null; cp $OUT/summary.txt $R/C-device-check-summary.txt
tail -22 $R/C-device-check-summary.txt
B=build-device/solvers_demo/hola-bench
ARGS="--commit $C -m elasticity:nx=385,ny=385,nz=1,block=4,points=7 -m elasticity:n=64,block=4,points=7 -m elasticity:n=100,block=2,points=7 -m elasticity:nx=1000,ny=1000,nz=1,block=3,points=7 -m elasticity:n=40,block=3 -k cusparse -k inode -k auto:check=0 -k auto -p double -p float --op N --op T --warmup 5 --reps 20 -j 16 --no-progress --json $R/C-short-blocks.json"
(echo "# run C: commit $C, $G, command: $B $ARGS"; timeout $(( 590 - $(el) )) $B $ARGS) > $R/C-short-blocks.txt 2> $R/C-short-blocks.err
echo "bench rc=$? at $(el) s"; grep -E "auto" $R/C-short-blocks.txt | head -50
cd $OUT && tar czf C.tgz C && rm -rf C
