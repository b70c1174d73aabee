# Run B (on A's warm machine and build): `auto` and every kernel on the committed trees' 94
# held-out matrices (../2026-11-28-h100-session8/heldout.txt), timed on the GPU alone
# (--block-us 50), as run B of session 8 (b28e808); then the SpMSpV density sweeps, generated
# set and corpus set, as run Q of ../2026-11-27-h100-spmspv-rounds/ (e1f4046).
R=$OUT/B; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"; B=build-device
mkdir -p .carry/matrices && for f in .carry/mgz/*.mtx.gz; do [ -s .carry/matrices/$(basename $f .gz) ] || gunzip -c $f > .carry/matrices/$(basename $f .gz); done
{ cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 && cmake --build $B -j 16 --target hola-bench hola-spmspv-bench; } > $R/build.log 2>&1
echo "build rc=$? at $(el) s"; tail -1 $R/build.log
sed "s#@MX@#$PWD/.carry/matrices#" bench/results/2026-11-28-h100-session8/heldout.txt > $B/heldout.txt
K="-k cusparse -k cusparse-alg2 -k hola -k light -k merge -k scalar -k vector -k vector-adaptive -k auto -k auto:check=0"
BENCH="$B/solvers_demo/hola-bench -m @$B/heldout.txt -p double -p float --op N --op T $K --warmup 3 --reps 10 --time-cap-ms 20 -j 16 --commit $C --block-us 50"
(echo "# commit $C, $G, command: $BENCH --json $R/B-blocked-heldout.json"; timeout 240 $BENCH --json $R/B-blocked-heldout.json) > $R/B-blocked-heldout.txt 2>$R/B-blocked.err
echo "held-out rc=$? at $(el) s"; gzip -9 $R/B-blocked-heldout.json
MX=$PWD/.carry/matrices; S=$B/solvers_demo/spmspv_bench/hola-spmspv-bench
left=$(( 580 - $(el) - 110 )); [ $left -gt 170 ] && left=170
(echo "# commit $C, $G, command: $S --precision both --output-form both --time-budget-s $left -o $R/B-spmspv-bench.json"
 $S --precision both --output-form both --time-budget-s $left -o $R/B-spmspv-bench.json) > $R/B-spmspv-bench.txt 2>&1
echo "spmspv generated rc=$? at $(el) s"
left=$(( 585 - $(el) - 5 )); [ $left -gt 100 ] && left=100
(echo "# commit $C, $G, command: $S -m $MX/CA-HepPh.mtx -m $MX/usroads.mtx -m $MX/bayer10.mtx -m $MX/rajat01.mtx -m $MX/mbeacxc.mtx -m $MX/sparse-images-1024.mtx -m $MX/arrow.mtx --precision both --output-form both --time-budget-s $left -o $R/B-spmspv-real.json"
 $S -m $MX/CA-HepPh.mtx -m $MX/usroads.mtx -m $MX/bayer10.mtx -m $MX/rajat01.mtx -m $MX/mbeacxc.mtx -m $MX/sparse-images-1024.mtx -m $MX/arrow.mtx --precision both --output-form both --time-budget-s $left -o $R/B-spmspv-real.json) > $R/B-spmspv-real.txt 2>&1
echo "spmspv corpus rc=$? at $(el) s"
gzip -9 $R/B-spmspv-*.json
