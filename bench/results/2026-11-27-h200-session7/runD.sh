# Run D: hola-first-call as in run C, with the device information read by attribute queries
# (build-device, nvcc's default fatbin compression) and the same code built with
# --compress-mode=none (build-nocompress): does decompressing a module cost the first product?
R=$OUT/D; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
export HOLA_COMMIT=$(cat .carry/commit)
for v in build-device:default build-nocompress:none; do
  B=${v%%:*}; mode=${v##*:}
  { cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DHOLA_WITH_PETSC=OFF \
      -DHOLA_WITH_TPETRA=OFF -DHOLA_WITH_HYPRE=OFF -DCMAKE_CUDA_FLAGS="--compress-mode=$mode" &&
    cmake --build $B -j 16 --target hola-first-call; } > $R/build-$mode.log 2>&1
  echo "build $mode rc=$? at $(el) s"
  ls -la $B/kernels/libhola_kernels* $B/plugin/libhola_plugin* 2>/dev/null | awk '{print $5, $9}'
done
for rep in 1 2; do for m in poisson3d:n=22 poisson3d:n=215 rmat:scale=20,ef=16; do
  for v in build-device:default build-nocompress:none; do B=${v%%:*}; mode=${v##*:}
  while IFS='|' read -r name args; do
    [ $(el) -gt 500 ] && { echo "budget: stopped"; break 4; }
    timeout 60 $B/solvers_demo/hola-first-call -m $m $args --products 30 | sed "s/^{/{\"fatbin_compression\":\"$mode\",/" >> $R/first-call.jsonl 2>> $R/errors.log
  done <<LIST
auto|-k auto --check 1
auto_nocheck|-k auto --check 0
scalar|-k scalar
cusparse|-k cusparse
LIST
  done; echo "$m rep$rep at $(el) s"
done; done
python3 - $R/first-call.jsonl <<'PY' | tee $R/first-call.txt
import json,sys
for l in open(sys.argv[1]):
    d=json.loads(l); p=d['product_ms']; s=d['setup_steps_ms']
    print(f"{d['fatbin_compression']:7s} {d['matrix']:20s} {d['kernel']:8s} chk={int(d['check'])} ctx {d['context_ms']:6.1f} setup {d['setup_ms']:6.2f} (a {s['analyze']:5.2f} c {s['choose']:5.2f} p {s['prepare']:5.2f}) p1 {p[0]:6.2f} p2 {p[1]:5.2f} p3 {p[2]:5.2f} p4-12 {sum(p[3:12]):6.2f} steady {d['steady_product_ms']:.3f} excess {d['check_excess_ms']:6.2f} -> {d['chosen']}")
PY
(cd $OUT && tar czf D.tgz D)
