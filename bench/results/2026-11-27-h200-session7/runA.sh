# Run A: from the repository root on the device (the working tree at the commit in .carry/commit).
# 1. PETSc's own tutorials, holaaijcusparse against aijcusparse, wall time (no -log_view_gpu_time):
#    ex45 200^3 CG + Jacobi, ex2 2000^2 BiCG and LSQR, SNES ex19 refine 7, per-call products.
# 2. Then, on the same build folder, the GPU tests of auto's check and the Operator.
R=$OUT/A; mkdir -p $R; nvidia-smi -L > $R/gpu.txt; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv >> $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
export HOLA_COMMIT=$(cat .carry/commit) PETSC_SDIST=$PWD/.carry/petsc-src/petsc-3.26.1.tar.gz
OUT=$R/t TUTORIAL_CASES="ex45_cg_jacobi ex2_bicg ex2_lsqr ex19_snes per_call" TUTORIAL_REPEATS=3 \
  TUTORIAL_BUDGET_S=420 TUTORIAL_TIMEOUT=60 bash scripts/device-petsc-tutorials.sh > $R/tutorials.log 2>&1
echo "tutorials rc=$? at $(el) s" | tee -a $R/tutorials.log
cat $R/t/tutorials.txt 2>/dev/null | head -60
B=build-device-petsc
timeout $((560 - $(el))) cmake --build $B -j 16 --target auto_check_gpu_test operator_gpu_test > $R/test-build.log 2>&1
echo "test build rc=$? at $(el) s"
for t in auto_check_gpu_test operator_gpu_test; do
  f=$(find $B -name $t -type f | head -1)
  [ -n "$f" ] && timeout $((575 - $(el))) $f > $R/$t.log 2>&1; echo "$t rc=$? at $(el) s"; tail -3 $R/$t.log
done
(cd $OUT && tar czf A.tgz A)
