# Run C: the first products of a fresh process, phase by phase (hola-first-call), on a 215^3 and
# a 22^3 Poisson matrix (the sizes of petsc_matmult_calls in runs A and B): auto with and without
# its check, scalar and cusparse named, lazy and eager module loading; each twice, alternating.
R=$OUT/C; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
export HOLA_COMMIT=$(cat .carry/commit)
B=build-device
{ cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DHOLA_WITH_PETSC=OFF \
    -DHOLA_WITH_TPETRA=OFF -DHOLA_WITH_HYPRE=OFF && cmake --build $B -j 16 --target hola-first-call; } > $R/build.log 2>&1
echo "build rc=$? at $(el) s"
exe=$B/solvers_demo/hola-first-call
for rep in 1 2; do for m in poisson3d:n=22 poisson3d:n=215 rmat:scale=20,ef=16; do
  while IFS='|' read -r name loading args; do
    [ $(el) -gt 420 ] && { echo "budget: stopped"; break 3; }
    CUDA_MODULE_LOADING=$loading timeout 60 $exe -m $m $args --products 30 >> $R/first-call.jsonl 2>> $R/errors.log
    echo "$m $name rep$rep rc=$? at $(el) s"
  done <<LIST
auto|LAZY|-k auto --check 1
auto_nocheck|LAZY|-k auto --check 0
scalar|LAZY|-k scalar
cusparse|LAZY|-k cusparse
auto_eager|EAGER|-k auto --check 1
cusparse_eager|EAGER|-k cusparse
LIST
done; done
python3 - $R/first-call.jsonl <<'PY' | tee $R/first-call.txt
import json,sys
for l in open(sys.argv[1]):
    d=json.loads(l); p=d['product_ms']
    print(f"{d['matrix']:24s} {d['kernel']:8s} chk={int(d['check'])} {d['cuda_module_loading']:5s} ctx {d['context_ms']:7.1f} setup {d['setup_ms']:7.2f} p1 {p[0]:7.2f} p2 {p[1]:6.2f} p3 {p[2]:6.2f} p4-12 {sum(p[3:12]):6.2f} steady {d['steady_product_ms']:.3f} excess {d['check_excess_ms']:6.2f} -> {d['chosen']}")
PY
(cd $OUT && tar czf C.tgz C)
