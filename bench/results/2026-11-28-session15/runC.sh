# Run C (session 15): auto's check now hands the caller only the pick's products (challengers
# write to scratch). PETSc 3.26.1 with CUDA, scripts/device-check.sh tutorials with SNES ex19
# alone, 3 runs each (are holaaijcusparse's GMRES counts now the same in every run?); then the
# check's GPU tests (auto_check_gpu_test with the new CallerSeesOnlyThePicksProducts,
# operator_gpu_test) and the PETSc tests of the GPU type on 1 rank.
R=$OUT/C; mkdir -p $R; nvidia-smi -L > $R/C-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
export LOGS=$R/check
export PETSC_SDIST=$PWD/.carry/petsc-src/petsc-3.26.1-slim.tar.xz
ENVS='PETSC_SDIST=.carry/petsc-src/petsc-3.26.1-slim.tar.xz TUTORIAL_CASES=ex19_snes TUTORIAL_REPEATS=3 TUTORIAL_BUDGET_S=300 TUTORIAL_TIMEOUT=60'
(echo "# run C: commit $C, $G, command: $ENVS bash scripts/device-check.sh tutorials"
 TUTORIAL_CASES=ex19_snes TUTORIAL_REPEATS=3 TUTORIAL_BUDGET_S=300 TUTORIAL_TIMEOUT=60 \
   timeout 420 bash scripts/device-check.sh tutorials) > $R/C-tutorials-stage.log 2>&1
echo "tutorials rc=$? at $(el) s"
mv $OUT/device-check.tgz $R/C-tutorials-device-check.tgz; cp $OUT/summary.txt $R/C-tutorials-summary.txt
sed -n '/PETSc tutorials/,/setup events/p' $R/C-tutorials-summary.txt
(echo "# run C: commit $C, $G, command: cmake --build build-device --target auto_check_gpu_test operator_gpu_test petsc_holaaij_test; ctest --test-dir build-device -R '^(auto_check_gpu_test|operator_gpu_test|petsc_holaaijcusparse_np1)\$' -V"
 cmake --build build-device -j 16 --target auto_check_gpu_test operator_gpu_test petsc_holaaij_test 2>&1 | tail -3
 timeout $(( 560 - $(el) )) ctest --test-dir build-device -R '^(auto_check_gpu_test|operator_gpu_test|petsc_holaaijcusparse_np1)$' -V) > $R/C-tests.log 2>&1
echo "tests rc=$? at $(el) s"
grep -E "CallerSees|FAILED|tests passed|Passed|Failed|\*\*\*" $R/C-tests.log | head -20
cd $OUT && tar czf C.tgz C && rm -rf C
