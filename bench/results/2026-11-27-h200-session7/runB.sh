# Run B: where the first MatMult's extra time goes (holaaijcusparse against aijcusparse).
# Builds PETSc and Hola's PETSc library (the per_call case of the tutorials stage at 215^3), then
# petsc_matmult_calls -n N -calls 20 with: aijcusparse; Hola by default; -mat_hola_auto_check 0;
# -mat_hola_kernel scalar; -mat_hola_kernel cusparse; and both types with CUDA_MODULE_LOADING=EAGER;
# each twice (alternating), with -log_view (HolaSetup and PETSc's copy to the GPU).
R=$OUT/B; mkdir -p $R; nvidia-smi -L > $R/gpu.txt
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
export HOLA_COMMIT=$(cat .carry/commit) PETSC_SDIST=$PWD/.carry/petsc-src/petsc-3.26.1.tar.gz
OUT=$R/t TUTORIAL_CASES="per_call" TUTORIAL_PER_CALL_N="215" TUTORIAL_REPEATS=1 TUTORIAL_PER_CALL_CALLS=200 \
  TUTORIAL_BUDGET_S=400 TUTORIAL_TIMEOUT=60 bash scripts/device-petsc-tutorials.sh > $R/tutorials.log 2>&1
echo "tutorials rc=$? at $(el) s" | tee -a $R/tutorials.log
exe=$PWD/build-device-petsc/solvers_demo/petsc_matmult_calls
lib=$PWD/build-device-petsc/adapters/petsc/libholapetsc.so
export LD_LIBRARY_PATH=/tmp/petsc-cuda/lib:${LD_LIBRARY_PATH:-}
hola="-mat_type holaaijcusparse -dll_append $lib"
i=0
for rep in 1 2; do for n in 215 22; do
  while IFS='|' read -r name env args; do
    i=$((i+1)); [ $(el) -gt 540 ] && { echo "budget: stopped before $name n$n rep$rep"; break 3; }
    f=$R/n$n-$name-$rep
    env $env timeout 60 $exe -n $n -calls 20 $args -use_gpu_aware_mpi 0 -log_view :$f.view > $f.out 2>&1
    echo "$name n$n rep$rep rc=$? $(grep -o 'first MatMult [0-9.]* ms' $f.out) $(grep -E '^(HolaSetup|MatCUSPARSCopyTo) ' $f.view | awk '{print $1, $4}' | tr '\n' ' ')"
  done <<LIST
aij|CUDA_MODULE_LOADING=LAZY|-mat_type aijcusparse
hola|CUDA_MODULE_LOADING=LAZY|$hola
hola_nocheck|CUDA_MODULE_LOADING=LAZY|$hola -mat_hola_auto_check 0
hola_scalar|CUDA_MODULE_LOADING=LAZY|$hola -mat_hola_kernel scalar
hola_cusparse|CUDA_MODULE_LOADING=LAZY|$hola -mat_hola_kernel cusparse
aij_eager|CUDA_MODULE_LOADING=EAGER|-mat_type aijcusparse
hola_eager|CUDA_MODULE_LOADING=EAGER|$hola
LIST
done; done 2>&1 | tee $R/variants.txt
(cd $OUT && tar czf B.tgz B)
