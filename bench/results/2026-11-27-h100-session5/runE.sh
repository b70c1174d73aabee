# Run E: from the repository root on the device, over the export in .carry/src (corpus matrices in
# .carry/src/.carry/matrices), at the commit of the fused merge fix-up bound: scripts/device-check.sh build test (every target, then
# the whole `gpu` ctest label), as far as 560 s allow.
mkdir -p $OUT/E/logs; cd .carry/src
HOLA_COMMIT=$(cat .commit) LOGS=$OUT/E/logs timeout 560 bash scripts/device-check.sh build test > $OUT/E/stage.log 2>&1; echo "device-check rc=$?"
tail -25 $OUT/E/stage.log
grep -E "tests passed|Failed|FAILED|\*\*\*Failed|Not Run" $OUT/E/logs/gpu-tests.log 2>/dev/null | tail -20
(cd $OUT && tar czf E.tgz E)
