# Run R: from the repository root on the device, over the export in .carry/src (with the PETSc
# 3.26.1 sdist in .carry/src/.carry/petsc-src/), at 1b80f1f (the check's verdict at a fixed
# product, a hola challenger on its carry path): in the background the GPU suites the Operator
# change touches (auto_check, operator, device_conformance, stress_regression, graph); in the
# foreground PETSc's SNES ex19 and KSP ex45 (200^3, CG + Jacobi), holaaijcusparse against
# aijcusparse, 3 runs each: do ex19's GMRES counts still move from run to run?
R=$OUT/R; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
S=$PWD/.carry/src; B=$PWD/build-dev; C=$(cat $S/.commit); G="$(nvidia-smi -L | head -1)"
T="auto_check_gpu_test operator_gpu_test device_conformance_test stress_regression_test graph_gpu_test"
( cmake -S $S -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/build.log 2>&1 && cmake --build $B -j 6 --target $T >> $R/build.log 2>&1; echo "tests build rc=$? at $(el) s" > $R/tests-build.txt
  for t in $T; do (echo "# commit $C, $G, command: $B/tests/$t"; timeout 240 $B/tests/$t; echo "rc=$?") > $R/$t.log 2>&1; done ) &
cd $S
export PETSC_SDIST=$S/.carry/petsc-src/petsc-3.26.1.tar.gz HOLA_COMMIT=$C
OUT=$R/t TUTORIAL_CASES="ex19_snes ex45_cg_jacobi" TUTORIAL_REPEATS=3 TUTORIAL_BUDGET_S=480 TUTORIAL_TIMEOUT=60 \
  bash scripts/device-petsc-tutorials.sh > $R/tutorials.log 2>&1; echo "tutorials rc=$? at $(el) s"
wait
cat $R/tests-build.txt
for t in $T; do echo "$t: $(grep -E '^rc=|PASSED|FAILED  \]' $R/$t.log | tr '\n' ' ')"; done
head -12 $R/t/tutorials.txt 2>/dev/null
python3 -c "
import json; d=json.load(open('$R/t/tutorials.json'))
for c in ('ex19_snes','ex45_cg_jacobi'):
    print(c, json.dumps(d['cases'][c]['iterations']))
" 2>&1 | head
grep -h "runs .* from now on\|unchecked" $R/t/tutorials/*.log 2>/dev/null | sort | uniq -c | head
(cd $OUT && tar czf R.tgz R)
