# Run G: merge with hub columns by default (the commit in .carry/commit) on the graphs users run
# (R-MAT / Graph500 Kronecker parameters a = 0.57, b = c = 0.19 at scales 20-22, edge factor 16)
# and an arrow matrix (one hub column, one dense row): op T and op N, merge against
# merge:hubs=0, cuSPARSE and `auto`, double and float.
R=$OUT/G; mkdir -p $R; nvidia-smi -L > $R/G-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
source scripts/env.sh; B=build-device
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$(gpu_arch) > $R/G-build.log 2>&1 &&
  cmake --build $B -j $JOBS --target hola-bench >> $R/G-build.log 2>&1 || { tail -30 $R/G-build.log; exit 1; }
echo "built at $(el) s"
ARGS="-m rmat:scale=20,ef=16 -m rmat:scale=21,ef=16 -m rmat:scale=22,ef=16 -m arrow:n=4000000 -k cusparse -k merge -k merge:hubs=0 -k auto -p double -p float --op T --op N --warmup 5 --reps 20 -j $JOBS --no-progress --commit $C --json $R/G-graphs.json"
(echo "# run G: commit $C, $G, command: hola-bench $ARGS"; timeout $(( 280 - $(el) )) $B/solvers_demo/hola-bench $ARGS) > $R/G-graphs.txt 2> $R/G-graphs.err
echo "bench rc=$? at $(el) s"
gzip -9 $R/*.json 2>/dev/null
cd $OUT && tar czf G.tgz G && rm -rf G
