# Run G: from the repository root on the device, over the export in .carry/src (with the PETSc
# 3.26.1 sdist in .carry/src/.carry/petsc-src/), the code of 12fe127 (one-launch merge, the
# Operator's work_version): PETSc's own tutorials ex45 (200^3, CG + Jacobi) and ex2 (2000^2,
# BiCG), holaaijcusparse against aijcusparse, 3 runs each, wall time, as far as the budget allows.
R=$OUT/G; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
S=$PWD/.carry/src; cd $S
export PETSC_SDIST=$S/.carry/petsc-src/petsc-3.26.1.tar.gz HOLA_COMMIT=$(cat $S/.commit)
OUT=$R/t TUTORIAL_CASES="ex45_cg_jacobi ex2_bicg" TUTORIAL_REPEATS=3 TUTORIAL_BUDGET_S=330 TUTORIAL_TIMEOUT=60 \
  bash scripts/device-petsc-tutorials.sh > $R/tutorials.log 2>&1; echo "tutorials rc=$? at $(el) s"
cat $R/t/tutorials.txt 2>/dev/null | head -40
grep -h "Hola (" $R/t/tutorials/*hola* 2>/dev/null | sort | uniq -c | head -10
(cd $OUT && tar czf G.tgz G)
