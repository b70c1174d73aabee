# Run B (session 19), on run A's warm machine and build: the fuzzer on every kernel (1 000
# random structures, seed 20261129, at most 150 s), then Nsight Compute counters per family
# (scripts/device-profile.sh, PROFILE_BUDGET_S 330: no new case starts after that).
R=$OUT/B; mkdir -p $R; nvidia-smi -L > $R/B-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
S="build-device/tests/stress/hola-stress --fuzz 1000 --seed 20261129 --output $R/B-fuzz.json"
(echo "# run B: commit $C, $G, command: $S (timeout 150 s)"; timeout 150 $S) > $R/B-fuzz.log 2>&1; echo "fuzz rc=$? at $(el) s"
grep -E "^fuzz:|FAIL|shrunk|passed" $R/B-fuzz.log | tail -8
export LOGS=$R/profile; mkdir -p $LOGS
(echo "# run B: commit $C, $G, command: PROFILE_BUDGET_S=330 bash scripts/device-profile.sh"; PROFILE_BUDGET_S=330 bash scripts/device-profile.sh) > $R/B-profile-stage.log 2>&1; echo "profile rc=$? at $(el) s"
tail -40 $LOGS/profile.txt
gzip -9 $R/*.json $LOGS/ncu.csv 2>/dev/null
cd $OUT && tar czf B.tgz B && rm -rf B
