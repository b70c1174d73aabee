# Run D: densify's presence pass for a sparse y with the warp finishing long rows
# (presence_pull_kernel): the corpus SpMSpV sweep as in run B (arrow: one row of 46 500 entries),
# then spmspv_gpu_test (with the new DensifyPresenceOfLongRows).
R=$OUT/D; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"; B=build-device
mkdir -p .carry/matrices && for f in .carry/mgz/*.mtx.gz; do gunzip -c $f > .carry/matrices/$(basename $f .gz); done
{ cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 && cmake --build $B -j 16 --target hola-spmspv-bench spmspv_gpu_test; } > $R/build.log 2>&1
echo "build rc=$? at $(el) s"; tail -1 $R/build.log
MX=$PWD/.carry/matrices; S=$B/solvers_demo/spmspv_bench/hola-spmspv-bench
CMD="$S --commit $C -m $MX/CA-HepPh.mtx -m $MX/usroads.mtx -m $MX/bayer10.mtx -m $MX/rajat01.mtx -m $MX/mbeacxc.mtx -m $MX/sparse-images-1024.mtx -m $MX/arrow.mtx --precision both --output-form both --time-budget-s 60 -o $R/D-spmspv-real.json"
(echo "# commit $C, $G, command: $CMD"; timeout 90 $CMD) > $R/D-spmspv-real.txt 2>&1
echo "spmspv corpus rc=$? at $(el) s"; gzip -9 $R/D-spmspv-real.json
(echo "# commit $C, $G, command: $B/tests/spmspv_gpu_test"; timeout $(( 400 - $(el) )) $B/tests/spmspv_gpu_test) > $R/D-spmspv-gpu-test.log 2>&1
echo "spmspv_gpu_test rc=$? at $(el) s"; grep -E '^\[  (PASSED|FAILED) |^\[  FAILED' $R/D-spmspv-gpu-test.log | head
