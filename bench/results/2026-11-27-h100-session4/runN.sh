# Run N: from the repository root on the device, over the export in .carry/src (with the PETSc
# 3.26.1 sdist in .carry/src/.carry/petsc-src/): the committed PETSc adapter (options reader and
# -mat_hola_view verdict line of d19e66e, auto's check with the runner-up of d477684) on PETSc's
# own tutorials ex45 (200^3 CG + Jacobi), ex2 (2000^2 BiCG and LSQR), snes ex19 and the per-call
# cost, holaaijcusparse (with -mat_hola_view, the stage's default) against aijcusparse, 3 runs each.
R=$OUT/N; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
S=$PWD/.carry/src; cd $S
export PETSC_SDIST=$S/.carry/petsc-src/petsc-3.26.1.tar.gz HOLA_COMMIT=$(cat $S/.commit)
OUT=$R/t TUTORIAL_CASES="ex45_cg_jacobi ex2_bicg ex2_lsqr ex19_snes per_call" TUTORIAL_REPEATS=3 TUTORIAL_BUDGET_S=500 TUTORIAL_TIMEOUT=60 \
  bash scripts/device-petsc-tutorials.sh > $R/tutorials.log 2>&1; echo "tutorials rc=$? at $(el) s"
cat $R/t/tutorials.txt 2>/dev/null | head -60
grep -h "Hola (" $R/t/tutorials/*hola* 2>/dev/null | sort | uniq -c | head -20
(cd $OUT && tar czf N.tgz N)
