# Run E (session 24): at the commit of runs B-D. The sanitize stage's fuzzer part only: 30 random
# structures on every device kernel under compute-sanitizer memcheck, racecheck, initcheck and
# synccheck (scripts/device-check.sh sanitize with SANITIZE_TESTS naming no suite).
R=$OUT/E; mkdir -p $R; nvidia-smi -L > $R/E-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
source scripts/env.sh; B=build-device
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$(gpu_arch) > $R/E-build.log 2>&1 &&
  cmake --build $B -j $JOBS --target hola-stress >> $R/E-build.log 2>&1 || { tail -30 $R/E-build.log; exit 1; }
echo "built at $(el) s"
export LOGS=$PWD/device-out-E  # outside $OUT: the stage packs and removes what lies inside it
(echo "# run E: commit $C, $G, command: SANITIZE_TESTS=none SANITIZE_FUZZ=30 bash scripts/device-check.sh sanitize"; SANITIZE_TESTS=none SANITIZE_FUZZ=30 timeout $(( 440 - $(el) )) bash scripts/device-check.sh sanitize) > $R/E-sanitize-stage.log 2>&1; echo "sanitize rc=$? at $(el) s"
rm -f $OUT/device-check.tgz $OUT/summary.txt; cp $LOGS/summary.txt $R/E-sanitize-summary.txt; cp $LOGS/sanitizer.log $R/E-sanitizer.log
cat $R/E-sanitize-summary.txt
cd $OUT && tar czf E.tgz E && rm -rf E
