# Run C (session 19): Nsight Compute counters per family with auto's pick taken from a plain run
# (run B profiled `auto` under ncu, where its check timed ncu's replays and picked cuSPARSE for
# stencils that a plain run gives vector-adaptive): builds hola-bench, then
# scripts/device-profile.sh twice: auto alone on run B's four double cases (their cuSPARSE
# profiles stand in run B), then auto and cuSPARSE on the other double families.
R=$OUT/C; mkdir -p $R; nvidia-smi -L > $R/C-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
source scripts/env.sh; B=build-device
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$(gpu_arch) > $R/C-build.log 2>&1 &&
  cmake --build $B -j $JOBS --target hola-bench >> $R/C-build.log 2>&1 || { tail -30 $R/C-build.log; exit 1; }
echo "built at $(el) s"
export LOGS=$R/profile1; mkdir -p $LOGS
P1="poisson3d:n=200|double stencil27:n=128|double elasticity:n=64|double poisson2d:n=2000|double"
(echo "# run C: commit $C, $G, command: PROFILE_KERNELS=auto PROFILE_CASES=\"$P1\" bash scripts/device-profile.sh"
 PROFILE_KERNELS=auto PROFILE_CASES="$P1" PROFILE_BUDGET_S=150 bash scripts/device-profile.sh) > $R/C-profile1-stage.log 2>&1
echo "profile1 rc=$? at $(el) s"; tail -12 $LOGS/profile.txt
export LOGS=$R/profile2; mkdir -p $LOGS
P2="banded:sigma=1000|double random:per_row=22|double rmat:scale=21,ef=16|double powerlaw:rows=2000000,mean=16,tail=1.5|double circuit|double"
(echo "# run C: commit $C, $G, command: PROFILE_CASES=\"$P2\" PROFILE_BUDGET_S=$(( 540 - $(el) )) bash scripts/device-profile.sh"
 PROFILE_CASES="$P2" PROFILE_BUDGET_S=$(( 540 - $(el) )) bash scripts/device-profile.sh) > $R/C-profile2-stage.log 2>&1
echo "profile2 rc=$? at $(el) s"; tail -24 $LOGS/profile.txt
gzip -9 $R/profile*/ncu.csv 2>/dev/null
cd $OUT && tar czf C.tgz C && rm -rf C
