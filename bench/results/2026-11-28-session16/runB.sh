# Run B: the 42 matrices run A's budget left out (B-missing.txt: 31 corpus matrices, then the 11
# real ones), with run A's candidates and settings; then run A + B merged into one data file, the
# trees trained on it (train.py, as selector-device.sh runs it), installed into this checkout and
# measured on the held-out matrices (scripts/selector-validate.sh).
R=$OUT/B; mkdir -p $R/sel/bench/selector/data $R/sel/bench/results $R/sel/plugin/src; nvidia-smi -L > $R/gpu.txt
mkdir -p .carry/matrices; for f in .carry/mgz/*.gz; do gunzip -c $f > .carry/matrices/$(basename $f .gz); done
source scripts/env.sh
B=build-device; C=$(cat .carry/commit)
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$(gpu_arch) > $R/build.log 2>&1 &&
  cmake --build $B -j $JOBS --target hola-bench >> $R/build.log 2>&1 || { tail -30 $R/build.log; exit 1; }
D=bench/results/2026-11-28-session16
$B/solvers_demo/hola-bench -m @$D/B-missing.txt -m .carry/matrices -p double -p float --op N --op T \
  -k hola -k merge -k light -k scalar -k vector -k vector-adaptive -k cusparse-alg2 -k inode \
  --warmup 3 --reps 10 --time-cap-ms 20 -j $JOBS --no-progress --commit $C --json $R/B-rest.json > $R/B-rest.txt 2> $R/B-rest.err
echo "hola-bench rest rc=$?"
data=$R/sel/bench/selector/data/2026-11-28-h200-inode.json
python3 - $D/A-corpus.json.gz $R/B-rest.json $data <<'PY'
import gzip, json, sys
a = json.load(gzip.open(sys.argv[1], "rt")); b = json.load(open(sys.argv[2]))
a["command"] = "run A: " + a["command"] + " ;; run B (the matrices run A's budget left): " + b["command"]
a["matrices"] += b["matrices"]; a["results"] += b["results"]
a["matrices_requested"] = len(a["matrices"])
json.dump(a, open(sys.argv[3], "w"))
print("merged:", len(a["matrices"]), "matrices,", len(a["results"]), "results")
PY
ev=$R/sel/bench/results/selector-2026-11-28-inode.json
python3 bench/selector/train.py $data --commit $C --out-json $ev \
  --out-cpp $R/sel/plugin/src/selector_tree_generated.cpp --out-cases $R/sel/plugin/src/selector_tree_cases.hpp > $R/train.log 2>&1
echo "train rc=$?"; tail -3 $R/train.log
cp $R/sel/plugin/src/selector_tree_generated.cpp $R/sel/plugin/src/selector_tree_cases.hpp plugin/src/
BUILD=$B HOLA_COMMIT=$C bash scripts/selector-validate.sh $ev $data > $R/validate.log 2>&1
echo "validate rc=$?"; tail -12 $R/validate.log
python3 bench/plot.py $data > $R/plot.log 2>&1; gzip -9f $data
cd $OUT && tar czf B.tgz B && rm -rf B
