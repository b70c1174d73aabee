# Run A (session 15): the whole `gpu` label at the GPU code of 145f3fd / a1fcb5e (inode's new
# default width, the vector kernel's named combine flag), which no GPU had run:
# scripts/device-check.sh build, then scripts/device-check.sh test (ctest -L gpu -j 4), not cut
# short; then, in the time left, hola-bench on session 14's short block rows with inode at its
# new default width against hola, vector-adaptive, cuSPARSE and auto.
R=$OUT/A; mkdir -p $R; nvidia-smi -L > $R/A-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
mkdir -p .carry/matrices; for f in .carry/mgz/*.gz; do gunzip -c $f > .carry/matrices/$(basename $f .gz); done
export LOGS=$R/check
(echo "# run A: commit $C, $G, command: bash scripts/device-check.sh build"; bash scripts/device-check.sh build) > $R/A-build-stage.log 2>&1; echo "build rc=$? at $(el) s"
mv $OUT/device-check.tgz $R/A-build-device-check.tgz 2>/dev/null
(echo "# run A: commit $C, $G, command: bash scripts/device-check.sh test"; bash scripts/device-check.sh test) > $R/A-test-stage.log 2>&1; echo "test rc=$? at $(el) s"
mv $OUT/device-check.tgz $R/A-test-device-check.tgz 2>/dev/null; cp $OUT/summary.txt $R/A-device-check-summary.txt
tail -22 $R/A-device-check-summary.txt
B=build-device/solvers_demo/hola-bench
ARGS="--commit $C -m elasticity:nx=385,ny=385,nz=1,block=4,points=7 -m elasticity:n=64,block=4,points=7 -m elasticity:n=100,block=2,points=7 -m elasticity:nx=1000,ny=1000,nz=1,block=3,points=7 -m elasticity:n=40,block=3 -k cusparse -k hola -k vector-adaptive -k inode -k auto:check=0 -k auto -p double -p float --op N --op T --warmup 5 --reps 20 -j 16 --no-progress --json $R/A-short-blocks.json"
(echo "# run A: commit $C, $G, command: $B $ARGS"; timeout $(( 585 - $(el) )) $B $ARGS) > $R/A-short-blocks.txt 2> $R/A-short-blocks.err
echo "bench rc=$? at $(el) s"; grep -E "inode|auto" $R/A-short-blocks.txt | head -60
cd $OUT && tar czf A.tgz A && rm -rf A
