# Run C: from the repository root on the device, over the export in .carry/src: the device check's
# build and test stages (the whole `gpu` ctest label), then the fuzzer with the row kernels (plain
# and deterministic, so op T through the gather on random structures).
R=$OUT/C; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
S=$PWD/.carry/src; C=$(cat $S/.commit); G="$(nvidia-smi -L | head -1)"
cd $S
HOLA_COMMIT=$C HOLA_MATRICES_DIR=$S/.carry/matrices LOGS=$R/logs timeout 470 bash scripts/device-check.sh build test > $R/device-check.txt 2>&1
echo "device-check rc=$? at $(el) s"; tail -25 $R/device-check.txt
ST=$S/build-device/tests/stress/hola-stress
(echo "# commit $C, $G, command: $ST --fuzz 400 --seed 20261127 --kernel scalar --kernel vector-adaptive --quick"; timeout $(( 580 - $(el) )) $ST --fuzz 400 --seed 20261127 --kernel scalar --kernel vector-adaptive --quick --output $R/fuzz.json; echo "rc=$?") > $R/fuzz.log 2>&1
echo "fuzz at $(el) s: $(tail -3 $R/fuzz.log | tr '\n' ' ')"
rm -rf $R/logs/*.json.gz 2>/dev/null; (cd $OUT && tar czf C.tgz C)
