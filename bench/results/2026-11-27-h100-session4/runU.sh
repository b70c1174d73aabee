# Run U: from the repository root on the device, over the export in .carry/src (corpus matrices in
# .carry/src/.carry/matrices), at 1b44f6b: scripts/device-check.sh build test (every target, then
# the whole `gpu` ctest label), as far as 560 s allow.
mkdir -p $OUT/U/logs; cd .carry/src
HOLA_COMMIT=$(cat .commit) LOGS=$OUT/U/logs timeout 560 bash scripts/device-check.sh build test > $OUT/U/stage.log 2>&1; echo "device-check rc=$?"
tail -25 $OUT/U/stage.log
grep -E "tests passed|Failed|FAILED|\*\*\*Failed|Not Run" $OUT/U/logs/gpu-tests.log 2>/dev/null | tail -20
(cd $OUT && tar czf U.tgz U)
