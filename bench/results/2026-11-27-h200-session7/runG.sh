# Run G: PETSc at the code of run F (setup scratch from the small-block cache): the per-call
# products (first MatMult included) at 22^3 and 215^3 and ex45 200^3 CG + Jacobi, 3 runs each,
# holaaijcusparse against aijcusparse, wall time (no -log_view_gpu_time).
R=$OUT/G; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
export HOLA_COMMIT=$(cat .carry/commit) PETSC_SDIST=$PWD/.carry/petsc-src/petsc-3.26.1.tar.gz
OUT=$R/t TUTORIAL_CASES="per_call ex45_cg_jacobi" TUTORIAL_REPEATS=3 \
  TUTORIAL_BUDGET_S=520 TUTORIAL_TIMEOUT=60 timeout 575 bash scripts/device-petsc-tutorials.sh > $R/tutorials.log 2>&1
echo "tutorials rc=$?"
cat $R/t/tutorials.txt 2>/dev/null | grep -v "^ex45_cg_jacobi  [A-Z]" | head -40
(cd $OUT && tar czf G.tgz G)
