# Run H: the whole GPU check's build and `gpu` ctest label at the last code commit (the small
# setup-scratch cache, keyed by device).
R=$OUT/H; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
HOLA_COMMIT=$(cat .carry/commit) LOGS=$R/logs timeout 585 bash scripts/device-check.sh build test > $R/device-check.log 2>&1
echo "device-check rc=$?"; cat $R/logs/summary.txt 2>/dev/null
grep -E "tests passed|tests failed|Failed|\(Failed\)|Not Run" $R/logs/*.log 2>/dev/null | head -20
