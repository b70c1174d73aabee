# Run E: hola-first-call with --pre-steps (Hola's first CUDA runtime call and the memory pool's
# first allocation timed before the setup) and without, on the 22^3 and 215^3 Poisson matrices.
R=$OUT/E; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
export HOLA_COMMIT=$(cat .carry/commit)
B=build-device
{ cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DHOLA_WITH_PETSC=OFF \
    -DHOLA_WITH_TPETRA=OFF -DHOLA_WITH_HYPRE=OFF && cmake --build $B -j 16 --target hola-first-call; } > $R/build.log 2>&1
echo "build rc=$? at $(el) s"
for rep in 1 2 3; do for m in poisson3d:n=22 poisson3d:n=215; do for pre in "" "--pre-steps"; do
  for k in "-k auto --check 1" "-k scalar"; do
    timeout 60 $B/solvers_demo/hola-first-call -m $m $k $pre --products 20 >> $R/first-call.jsonl 2>> $R/errors.log
  done; done; done; echo "rep$rep at $(el) s"; done
python3 - $R/first-call.jsonl <<'PY' | tee $R/first-call.txt
import json,sys
for l in open(sys.argv[1]):
    d=json.loads(l); p=d['product_ms']; s=d['setup_steps_ms']
    pre = f"avail {d['pre_gpu_available_ms']:6.2f} pool {d['pre_pool_ms']:6.2f} again {d['pre_pool_again_ms']:5.2f}" if d['pre_steps'] else " "*39
    print(f"{d['matrix']:16s} {d['kernel']:6s} chk={int(d['check'])} {pre} setup {d['setup_ms']:6.2f} (a {s['analyze']:5.2f} c {s['choose']:5.2f} p {s['prepare']:5.2f}) p1 {p[0]:6.2f} p3 {p[2]:5.2f} steady {d['steady_product_ms']:.3f} excess {d['check_excess_ms']:6.2f}")
PY
(cd $OUT && tar czf E.tgz E)
