# Run J: from the repository root on the device (the working tree at the commit in .carry/commit,
# corpus matrices in .carry/matrices): scripts/device-check.sh build test fuzz (every target, the
# whole `gpu` ctest label, the 10 000-matrix fuzzer), as far as 570 s allow.
mkdir -p $OUT/J/logs
HOLA_COMMIT=$(cat .carry/commit) LOGS=$OUT/J/logs timeout 570 bash scripts/device-check.sh build test fuzz > $OUT/J/stage.log 2>&1; echo "device-check rc=$?"
tail -25 $OUT/J/stage.log
grep -E "tests passed|Failed|FAILED|\*\*\*Failed|Not Run" $OUT/J/logs/gpu-tests.log 2>/dev/null | tail -20
(cd $OUT && tar czf J.tgz J)
