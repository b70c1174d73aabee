# Run C: the trees retrained on this session's kernels (hola's op N in one launch on small
# matrices since f4bfc5b), timed on the GPU alone (--block-us 50, as auto's check and the held-out
# runs time them; 8c3d0c1's trees were trained on plain timing): scripts/selector-device.sh with
# the 12 real matrices of the test corpus.
R=$OUT/C; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
mkdir -p .carry/matrices && for f in .carry/mgz/*.mtx.gz; do gunzip -c $f > .carry/matrices/$(basename $f .gz); done
HOLA_COMMIT=$(cat .carry/commit) OUT=$R SELECTOR_TOTAL_S=580 BENCH_ARGS="--block-us 50" timeout 595 bash scripts/selector-device.sh > $R/run.log 2>&1
echo "selector-device rc=$?"; grep -E '^\[' $R/selector-device.log | tail -12
