# Run I: from the repository root on the device, over the export in .carry/src (with the PETSc
# 3.26.1 sdist in .carry/src/.carry/petsc-src/): PETSc's own tutorials ex45 (200^3, CG + Jacobi)
# and ex2 (2000^2, BiCG), holaaijcusparse against aijcusparse, first as users get it (auto's
# check at the first products on), then with -mat_hola_auto_check 0; the PETSc build is reused.
R=$OUT/I; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
S=$PWD/.carry/src; cd $S
export PETSC_SDIST=$S/.carry/petsc-src/petsc-3.26.1.tar.gz
OUT=$R/check TUTORIAL_CASES="ex45_cg_jacobi ex2_bicg" TUTORIAL_REPEATS=3 TUTORIAL_BUDGET_S=390 TUTORIAL_TIMEOUT=60 \
  bash scripts/device-petsc-tutorials.sh > $R/check.log 2>&1; echo "check pass rc=$? at $(el) s"
OUT=$R/nocheck TUTORIAL_HOLA_ARGS="-mat_hola_view -mat_hola_auto_check 0" TUTORIAL_CASES="ex45_cg_jacobi ex2_bicg" TUTORIAL_REPEATS=3 \
  TUTORIAL_BUDGET_S=$(( 560 - $(el) )) TUTORIAL_TIMEOUT=60 bash scripts/device-petsc-tutorials.sh > $R/nocheck.log 2>&1; echo "nocheck pass rc=$? at $(el) s"
cat $R/check/tutorials.txt $R/nocheck/tutorials.txt 2>/dev/null | head -60
(cd $OUT && tar czf I.tgz I)
