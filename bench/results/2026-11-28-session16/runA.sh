# Run A: the selector retrained with `inode` among the candidates and the trees' new feature
# neighbor_same (rows repeating the row above's columns), on a corpus with the new block_stencil
# family (7-/5-point node coupling, 2-6 unknowns a node): scripts/selector-device.sh, one cold
# build of hola-bench included.
R=$OUT/A; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
mkdir -p .carry/matrices; for f in .carry/mgz/*.gz; do gunzip -c $f > .carry/matrices/$(basename $f .gz); done
SELECTOR_TOTAL_S=585 OUT=$R/sel timeout 597 bash scripts/selector-device.sh > $R/selector-stdout.log 2>&1
echo "selector rc=$?"; tail -25 $R/sel/selector-device.log
cd $OUT && tar czf A.tgz A && rm -rf A
