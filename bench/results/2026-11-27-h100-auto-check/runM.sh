# Run M: from the repository root on the device, over the export in .carry/src (with the PETSc
# 3.26.1 sdist in .carry/src/.carry/petsc-src/): PETSc built with CUDA, Hola's PETSc adapter and
# the petsc_ksp demo built against it (the options reader after d19e66e), and two solves with
# -mat_hola_view, whose verdict line of auto's check at the first products is the point.
R=$OUT/M; mkdir -p $R
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
S=$PWD/.carry/src; B=$PWD/build-petsc; C=$(cat $S/.commit); G="$(nvidia-smi -L | head -1)"
cd $S
export PETSC_SDIST=$S/.carry/petsc-src/petsc-3.26.1.tar.gz
timeout 170 bash scripts/build-petsc-cuda.sh /tmp/petsc-cuda > $R/petsc-build.log 2>&1; echo "petsc rc=$? at $(el) s"
export PKG_CONFIG_PATH=/tmp/petsc-cuda/lib/pkgconfig LD_LIBRARY_PATH=/tmp/petsc-cuda/lib:${LD_LIBRARY_PATH:-}
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DHOLA_WITH_PETSC=ON -DHOLA_WITH_TPETRA=OFF -DHOLA_WITH_HYPRE=OFF > $R/build.log 2>&1 && timeout $(( 215 - $(el) )) cmake --build $B -j 16 --target petsc_ksp >> $R/build.log 2>&1; echo "hola rc=$? at $(el) s"
for ksp in cg bicg; do
  CMD="$B/solvers_demo/petsc_ksp -n 100 -mat_type holaaijcusparse -vec_type cuda -ksp_type $ksp -pc_type jacobi -ksp_max_it 200 -mat_hola_view -ksp_converged_reason"
  (echo "# commit $C, $G, command: $CMD"; timeout 20 $CMD; echo "rc=$?") > $R/petsc_ksp-$ksp.log 2>&1
  echo "$ksp: $(grep -E 'Hola \(|rc=' $R/petsc_ksp-$ksp.log | cut -c1-220 | tr '\n' ' ')"
done
tail -5 $R/build.log
(cd $OUT && tar czf M.tgz M)
