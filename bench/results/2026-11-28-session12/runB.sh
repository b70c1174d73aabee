# Run B: the selector retrained on this session's kernels (vector-adaptive's new width rule and
# session 11's hola / merge loads): scripts/selector-device.sh, one cold build included.
R=$OUT/B; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
mkdir -p .carry/matrices; for f in .carry/mgz/*.gz; do gunzip -c $f > .carry/matrices/$(basename $f .gz); done
SELECTOR_TOTAL_S=500 OUT=$R/sel timeout 585 bash scripts/selector-device.sh > $R/selector-stdout.log 2>&1
echo "selector rc=$?"; tail -25 $R/sel/selector-device.log
cd $OUT && tar czf B.tgz B && rm -rf B
