# Run K: right after run J on the same machine (its build-device kept): scripts/device-check.sh
# scale (the regression and scale cases of hola-stress: 32-bit limits, grid limits, 10^8
# nonzeros), as far as the time left allows.
mkdir -p $OUT/K/logs
HOLA_COMMIT=$(cat .carry/commit) LOGS=$OUT/K/logs timeout ${K_LIMIT_S:-540} bash scripts/device-check.sh scale > $OUT/K/stage.log 2>&1; echo "device-check rc=$?"
tail -25 $OUT/K/stage.log
(cd $OUT && tar czf K.tgz K)
