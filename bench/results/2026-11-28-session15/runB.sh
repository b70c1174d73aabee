# Run B (session 15): PETSc 3.26.1 with CUDA, then scripts/device-check.sh tutorials with SNES
# ex19 (4 unknowns a node) and petsc_matmult_calls on the 3D Laplacian with 1 and 4 unknowns a
# node (-dof), holaaijcusparse (auto) against aijcusparse, with inode at its new default width
# (145f3fd); then the PETSc tests of the GPU type on 1 and 2 ranks.
R=$OUT/B; mkdir -p $R; nvidia-smi -L > $R/B-gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
C=$(cat .carry/commit); G="$(nvidia-smi -L | head -1)"
export LOGS=$R/check
# PETSc's sdist slimmed by scripts/slim-petsc-sdist.sh (the device's copy of the tree is limited).
export PETSC_SDIST=$PWD/.carry/petsc-src/petsc-3.26.1-slim.tar.xz
ENVS='PETSC_SDIST=.carry/petsc-src/petsc-3.26.1-slim.tar.xz TUTORIAL_CASES="ex19_snes per_call" TUTORIAL_PER_CALL_N="22 64" TUTORIAL_PER_CALL_DOF="1 4" TUTORIAL_REPEATS=3 TUTORIAL_BUDGET_S=420 TUTORIAL_TIMEOUT=60'
(echo "# run B: commit $C, $G, command: $ENVS bash scripts/device-check.sh tutorials"
 TUTORIAL_CASES="ex19_snes per_call" TUTORIAL_PER_CALL_N="22 64" TUTORIAL_PER_CALL_DOF="1 4" TUTORIAL_REPEATS=3 \
   TUTORIAL_BUDGET_S=420 TUTORIAL_TIMEOUT=60 timeout 490 bash scripts/device-check.sh tutorials) > $R/B-tutorials-stage.log 2>&1
echo "tutorials rc=$? at $(el) s"
# device-check.sh packed its logs into $OUT/device-check.tgz (the summary: $OUT/summary.txt).
mv $OUT/device-check.tgz $R/B-tutorials-device-check.tgz; cp $OUT/summary.txt $R/B-tutorials-summary.txt
sed -n '/PETSc tutorials/,$p' $R/B-tutorials-summary.txt | head -45
(echo "# run B: commit $C, $G, command: cmake --build build-device --target petsc_holaaij_test; ctest --test-dir build-device -R 'petsc_holaaijcusparse_np[12]\$' -V"
 cmake --build build-device -j 16 --target petsc_holaaij_test 2>&1 | tail -3
 timeout $(( 585 - $(el) )) ctest --test-dir build-device -R 'petsc_holaaijcusparse_np[12]$' -V) > $R/B-petsc-tests.log 2>&1
echo "petsc tests rc=$? at $(el) s"
grep -E "unknowns a node.*(MatMult |solve|iterations)|Hola .*inode|tests passed|Passed|Failed" $R/B-petsc-tests.log | head -20
cd $OUT && tar czf B.tgz B && rm -rf B
