# Run A: the whole GPU check's build and `gpu` ctest label at the code of this session's commit
# (auto's check with its own margin for cuSPARSE, 1.01; the SpMSpV calibration's rounds only for
# calls under 0.1 ms; hola's launch_n taking its arguments by value).
R=$OUT/A; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
mkdir -p .carry/matrices && for f in .carry/mgz/*.mtx.gz; do gunzip -c $f > .carry/matrices/$(basename $f .gz); done
HOLA_COMMIT=$(cat .carry/commit) LOGS=$R/logs timeout 585 bash scripts/device-check.sh build test > $R/device-check.log 2>&1
echo "device-check rc=$?"; cat $R/logs/summary.txt 2>/dev/null
grep -E "tests passed|tests failed|Failed|\(Failed\)|Not Run" $R/logs/*.log 2>/dev/null | head -20
