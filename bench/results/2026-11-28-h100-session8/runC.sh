# Run C: the whole GPU check's build and `gpu` ctest label at the code of b28e808 (hola's fused
# fix-up, the separate fix-up under capture for hola and merge, StreamScratch holding its block).
R=$OUT/C; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
HOLA_COMMIT=$(cat .carry/commit) LOGS=$R/logs timeout 585 bash scripts/device-check.sh build test > $R/device-check.log 2>&1
echo "device-check rc=$?"; cat $R/logs/summary.txt 2>/dev/null
grep -E "tests passed|tests failed|Failed|\(Failed\)|Not Run" $R/logs/*.log 2>/dev/null | head -20
