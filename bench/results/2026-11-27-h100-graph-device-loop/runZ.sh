# From the repository root: sources in .carry/src, build in build-dev-new.
R=$OUT/Z; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s)
pack() { (cd $OUT && tar czf Z.tgz Z); }
S=$PWD/.carry/src; B=$PWD/build-dev-new; MX=$S/.carry/matrices
cmake -S $S -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DHOLA_MATRICES_DIR=$MX > $R/build.log 2>&1 && cmake --build $B -j 16 --target hola-bfs graph_gpu_test >> $R/build.log 2>&1; echo "build rc=$? at $(( $(date +%s) - T0 )) s"; tail -1 $R/build.log
(echo "# commit $(cat $S/.commit), $(nvidia-smi -L | head -1), command: $B/tests/graph_gpu_test"; timeout 200 $B/tests/graph_gpu_test) > $R/graph-gpu-test.log 2>&1
echo "graph_gpu_test rc=$? at $(( $(date +%s) - T0 )) s"; grep -E "FAILED|PASSED|OK \]|Failure" $R/graph-gpu-test.log | tail -20; grep -B3 -A12 "Failure" $R/graph-gpu-test.log | head -60
pack
BFS=$B/solvers_demo/graph/hola-bfs
echo "# run Z: commit $(cat $S/.commit), $(nvidia-smi -L | head -1); each block: hola-bfs --backend gpu with the arguments named (its JSON holds the exact command)" > $R/bfs.txt
run_bfs() { tag=$1; shift; echo "== $tag: $*" >> $R/bfs.txt; HOLA_COMMIT=$(cat $S/.commit) timeout 150 $BFS --backend gpu "$@" --output $R/bfs-$tag.json >> $R/bfs.txt 2>&1; echo "rc=$?" >> $R/bfs.txt; }
for s in 16 18 20 21; do run_bfs kron$s-loop --kronecker $s --edge-factor 16 --roots 16 --baseline cusparse; run_bfs kron$s-host --kronecker $s --edge-factor 16 --roots 16 --no-device-loop; echo "kron $s at $(( $(date +%s) - T0 )) s"; done
run_bfs kron18-directed-loop --kronecker 18 --edge-factor 16 --roots 16 --directed; run_bfs kron18-directed-host --kronecker 18 --edge-factor 16 --roots 16 --directed --no-device-loop
pack
for f in $MX/*.mtx; do
  name=$(basename $f .mtx)
  head -c 4096 $f | grep -v '^%' | head -1 | awk '{exit !($1 == $2)}' || continue
  run_bfs $name-loop --matrix $f --directed --roots 16 --baseline cusparse
  run_bfs $name-host --matrix $f --directed --roots 16 --no-device-loop
done
echo "corpus bfs done at $(( $(date +%s) - T0 )) s"
cd $R && /usr/bin/python3 - > summary.txt <<'PY'
import json,glob
print('# run Z: per JSON, GTEPS harmonic mean over the 16 roots, mean search ms, deepest search, path, failed validations, the cuSPARSE SpMV-per-level baseline GTEPS where run')
for f in sorted(glob.glob('bfs-*.json')):
    d=json.load(open(f))
    runs=d['roots']
    ms=sum(r['ms'] for r in runs)/max(len(runs),1)
    depth=max(r['depth'] for r in runs)
    print(f.ljust(32), 'gteps %.3f'%d['harmonic_mean_gteps'], 'mean_ms %.4f'%ms, 'max_depth', depth, 'device_loop', runs[0].get('device_loop'), 'failed', d['failed'], 'cusparse_gteps', '%.3f'%d['cusparse_harmonic_mean_gteps'] if 'cusparse_harmonic_mean_gteps' in d else '-')
PY
cat summary.txt
cd - > /dev/null
pack
