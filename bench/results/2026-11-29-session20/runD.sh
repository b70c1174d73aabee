# Run D (session 20): Nsight Compute counters of op T with and without the windows
# (vector-adaptive, vector-adaptive:win=0) and cuSPARSE on two bands of random columns, double
# and float (scripts/device-profile.sh, profile stage); then device_conformance_test (every device
# kernel and auto on every generated family, every type pair, both ops) at the final kernels.
R=$OUT/D; mkdir -p $R; nvidia-smi -L > $R/D-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
source scripts/env.sh; B=build-device
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$(gpu_arch) > $R/D-build.log 2>&1 &&
  cmake --build $B -j $JOBS --target hola-bench device_conformance_test >> $R/D-build.log 2>&1 || { tail -30 $R/D-build.log; exit 1; }
echo "built at $(el) s"
PROFILE_CASES="banded:rows=2000000,per_row=22,sigma=300|double banded:sigma=1000|double banded:rows=2000000,per_row=22,sigma=300|float" \
PROFILE_KERNELS="vector-adaptive vector-adaptive:win=0 cusparse" PROFILE_OPS=T PROFILE_BUDGET_S=120 \
LOGS=$R/D-profile HOLA_BUILD=$B timeout 200 bash scripts/device-profile.sh > $R/D-profile-stage.log 2>&1
echo "profile rc=$? at $(el) s"; tail -20 $R/D-profile/profile.txt
(echo "# run D: commit $C, $G"; timeout $(( 470 - $(el) )) $B/tests/device_conformance_test) > $R/D-device_conformance_test.log 2>&1
echo "conformance rc=$? at $(el) s"; tail -3 $R/D-device_conformance_test.log
gzip -9 $R/D-profile/*.json $R/D-profile/ncu.csv 2>/dev/null
cd $OUT && tar czf D.tgz D && rm -rf D
