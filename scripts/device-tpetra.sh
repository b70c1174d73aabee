#!/usr/bin/env bash
# The Tpetra stage of the device check (scripts/device-check.sh tpetra), or on its own on a
# machine with a GPU:  OUT=<folder> scripts/device-tpetra.sh
# 1. unpacks .carry/trilinos-src.tar.xz (made by scripts/fetch-trilinos-src.sh on the CPU machine)
#    into $TRILINOS_BUILD/src, 2. configures Trilinos 13.2 (Kokkos + Kokkos Kernels + Teuchos +
#    Tpetra + Belos + Ifpack2, CUDA node, sm_90, ETI double / int / long long) in
#    $TRILINOS_BUILD/build, 3. builds and installs it into $TRILINOS_BUILD/install,
#    4. configures Hola against it (build-device-tpetra) and builds tpetra_belos,
#    tpetra_apply_calls (counting host <-> device copies with CUPTI) and tpetra_hola_operator_test,
#    5. runs them on the GPU(s) (steps tests, calls, solve, scaling; see below).
# Resumable: $TRILINOS_BUILD (default ./build-trilinos, git-ignored) is kept between consecutive
# device commands; each step is skipped when done, and the Trilinos build stops itself after
# $TRILINOS_BUILD_TIMEOUT seconds (default 480, under the 10-minute command limit) with exit
# status 3: call the script again and it continues where ninja stopped.
# Writes into OUT: trilinos-configure.log, trilinos-build.log, trilinos-install.log,
# tpetra-hola-build.log, trilinos-times.txt (the time of every step, all calls), and from the run
# steps tpetra-run.txt (every command and its output) and the result files tpetra-*.json.
# Environment: OUT, HOLA_ROOT, JOBS (from env.sh), TRILINOS_SRC_TAR (default
# .carry/trilinos-src.tar.xz), TRILINOS_BUILD, TRILINOS_BUILD_TIMEOUT, HOLA_TPETRA_BUILD
# (default build-device-tpetra), TPETRA_STEPS (default "trilinos hola tests calls solve";
# "configure" only unpacks and configures Trilinos: the check that runs without a GPU), CUDA_ARCH
# (default: the GPU's, else 90; Kokkos 3.4 knows no sm_90, so 80 and 90 both map to its patched
# AMPERE80 option), TRILINOS_CUBLAS (1: Kokkos Kernels and TSQR use cuBLAS / cuSOLVER, which
# makes Belos' dense steps fast: GMRES, Block CG; default 0, the configuration measured so far;
# 1 was compile-checked only), TPETRA_N (the 3D Poisson grid of the solve and calls steps, default 200),
# TPETRA_SCALING_GPUS (default 1 2 4, those present), TPETRA_REPEATS (scaling, default 3).
# Run steps (each needs the hola step done, in this or an earlier call):
#   tests    ctest -R tpetra in the Hola build: tpetra_hola_operator_np1/2/4 (all ranks on GPU 0)
#            and tpetra_belos_demo_np2
#   calls    tpetra_apply_calls: 1000 applies on 22^3 rows (per-call cost) and 100 on TPETRA_N^3,
#            CrsMatrix against HolaOperator, with host <-> device copy counts; 1 rank, and 2 ranks
#            on 2 GPUs where present
#   solve    tpetra_belos --prec jacobi --check: CG and BiCGSTAB on TPETRA_N^3 (1 rank, and 2 ranks
#            on 2 GPUs where present), GMRES and Block CG on TPETRA_SMALL_N^3 (default 40)
#   scaling  Belos CG + Jacobi, strong (TPETRA_N^3) and weak (TPETRA_N^3 per GPU) over
#            TPETRA_SCALING_GPUS, one rank per GPU, TPETRA_REPEATS each (tpetra-scaling-*.json;
#            summary tpetra-scaling.{json,txt,png} by bench/tpetra_scaling.py)
set -uo pipefail
source "$(dirname "$0")/env.sh"
cd "$HOLA_ROOT" || exit 1
use_out_dir
tarball="${TRILINOS_SRC_TAR:-$HOLA_ROOT/.carry/trilinos-src.tar.xz}"
tb="${TRILINOS_BUILD:-$HOLA_ROOT/build-trilinos}"
mkdir -p "$tb"
tb="$(cd "$tb" && pwd)"
src="$tb/src/Trilinos-trilinos-release-13-2-0"
bld="$tb/build"
prefix="$tb/install"
hola_build="${HOLA_TPETRA_BUILD:-$HOLA_ROOT/build-device-tpetra}"
steps="${TPETRA_STEPS:-trilinos hola tests calls solve}"
timeout_s="${TRILINOS_BUILD_TIMEOUT:-480}"
times="$tb/times.txt"
arch="${CUDA_ARCH:-$(gpu_arch)}"
t0=$(date +%s)
elapsed() { echo "$(($(date +%s) - t0)) s"; }
record() { echo "$(date -u +%FT%TZ) $*" | tee -a "$times"; cp "$times" "$OUT/trilinos-times.txt"; }
want() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }
command -v nvcc > /dev/null || { echo "tpetra: nvcc not found"; exit 1; }
command -v mpicxx > /dev/null && command -v mpicc > /dev/null ||
  { echo "tpetra: OpenMPI's mpicc / mpicxx not found"; exit 1; }
generator=(-G Ninja)
command -v ninja > /dev/null || generator=()

# 1. Sources (unpacked again when the tarball changed).
[ -s "$tarball" ] || { echo "tpetra: $tarball missing (run scripts/fetch-trilinos-src.sh and carry .carry)"; exit 1; }
sum="$(sha256sum "$tarball" | cut -d' ' -f1)"
if [ "$(cat "$tb/src.sha256" 2>/dev/null)" != "$sum" ]; then
  s=$(date +%s)
  rm -rf "$tb/src" "$bld" "$prefix" "$tb/configured" "$tb/installed"
  mkdir -p "$tb/src"
  tar -xJf "$tarball" -C "$tb/src" || { echo "tpetra: unpacking $tarball failed"; exit 1; }
  echo "$sum" > "$tb/src.sha256"
  record "unpack $(($(date +%s) - s)) s ($(cat "$src/HOLA_FIXES" 2>/dev/null))"
fi
wrapper="$src/packages/kokkos/bin/nvcc_wrapper"
[ -x "$wrapper" ] || { echo "tpetra: $wrapper missing"; exit 1; }
# OpenMPI's wrappers run Kokkos' nvcc_wrapper, which runs nvcc with g++ as the host compiler.
export OMPI_CXX="$wrapper"
export NVCC_WRAPPER_DEFAULT_COMPILER="${NVCC_WRAPPER_DEFAULT_COMPILER:-g++}"

# 2. Configure.
# The TPL choice is part of the configuration: another choice configures and builds again.
if [ "${TRILINOS_CUBLAS:-0}" = 1 ]; then
  tpls=(-DTPL_ENABLE_CUBLAS=ON -DTPL_ENABLE_CUSOLVER=ON -DKokkosKernels_ENABLE_TPL_CUBLAS=ON)
else
  tpls=(-DTPL_ENABLE_CUBLAS=OFF -DTPL_ENABLE_CUSOLVER=OFF -DKokkosKernels_ENABLE_TPL_CUBLAS=OFF)
fi
config_id="cublas=${TRILINOS_CUBLAS:-0}"
if { want trilinos || want configure; } && [ "$(cat "$tb/configured" 2> /dev/null)" != "$config_id" ]; then
  s=$(date +%s)
  rm -f "$tb/configured" "$tb/installed"
  blas=()
  [ -n "${TRILINOS_BLAS_LIBS:-}" ] && blas+=("-DTPL_BLAS_LIBRARIES=$TRILINOS_BLAS_LIBS")
  [ -n "${TRILINOS_LAPACK_LIBS:-}" ] && blas+=("-DTPL_LAPACK_LIBRARIES=$TRILINOS_LAPACK_LIBS")
  off=()
  for p in Amesos2 Xpetra Zoltan2Core Zoltan2 ThyraTpetraAdapters Thyra ShyLU_NodeBasker \
    ShyLU_NodeHTS ShyLU_NodeFastILU Epetra Galeri AztecOO Triutils; do
    off+=("-DTrilinos_ENABLE_$p=OFF")
  done
  rm -rf "$bld"
  # shellcheck disable=SC2054
  cmake -S "$src" -B "$bld" "${generator[@]}" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" \
    -DCMAKE_POLICY_VERSION_MINIMUM=3.5 \
    -DCMAKE_C_COMPILER=mpicc -DCMAKE_CXX_COMPILER=mpicxx \
    -DCMAKE_CXX_STANDARD=17 -DKokkos_CXX_STANDARD=17 -DCMAKE_CXX_EXTENSIONS=OFF \
    -DTrilinos_ENABLE_Fortran=OFF -DBUILD_SHARED_LIBS=ON -DTPL_ENABLE_MPI=ON \
    -DTrilinos_ENABLE_ALL_PACKAGES=OFF -DTrilinos_ENABLE_ALL_OPTIONAL_PACKAGES=OFF \
    -DTrilinos_ASSERT_MISSING_PACKAGES=OFF -DTrilinos_ENABLE_SECONDARY_TESTED_CODE=ON \
    -DTrilinos_ENABLE_Tpetra=ON -DTrilinos_ENABLE_Belos=ON -DTrilinos_ENABLE_Ifpack2=ON \
    "${off[@]}" \
    -DTrilinos_ENABLE_TESTS=OFF -DTrilinos_ENABLE_EXAMPLES=OFF \
    -DTrilinos_ENABLE_EXPLICIT_INSTANTIATION=ON -DTrilinos_ENABLE_FLOAT=OFF \
    -DTrilinos_ENABLE_COMPLEX=OFF -DTrilinos_ENABLE_COMPLEX_DOUBLE=OFF \
    -DTrilinos_ENABLE_COMPLEX_FLOAT=OFF \
    -DTpetra_INST_DOUBLE=ON -DTpetra_INST_FLOAT=OFF -DTpetra_INST_COMPLEX_DOUBLE=OFF \
    -DTpetra_INST_COMPLEX_FLOAT=OFF -DTpetra_INST_INT_INT=OFF -DTpetra_INST_INT_LONG=OFF \
    -DTpetra_INST_INT_UNSIGNED=OFF -DTpetra_INST_INT_UNSIGNED_LONG=OFF \
    -DTpetra_INST_INT_LONG_LONG=ON \
    -DTpetra_INST_SERIAL=OFF -DTpetra_INST_OPENMP=OFF -DTpetra_INST_PTHREAD=OFF \
    -DTpetra_INST_CUDA=ON \
    -DTPL_ENABLE_CUDA=ON -DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_SERIAL=ON \
    -DKokkos_ENABLE_OPENMP=OFF -DKokkos_ENABLE_PTHREAD=OFF -DKokkos_ENABLE_CUDA_UVM=OFF \
    -DKokkos_ENABLE_CUDA_LAMBDA=ON -DKokkos_ARCH_AMPERE80=ON \
    -DKokkosKernels_INST_EXECSPACE_SERIAL=OFF -DKokkosKernels_INST_MEMSPACE_CUDAUVMSPACE=OFF \
    -DKokkosKernels_INST_OFFSET_INT=OFF -DKokkosKernels_INST_OFFSET_SIZE_T=ON \
    -DKokkosKernels_INST_ORDINAL_INT=ON -DKokkosKernels_INST_DOUBLE=ON \
    -DKokkosKernels_INST_FLOAT=OFF -DKokkosKernels_INST_COMPLEX_DOUBLE=OFF \
    -DKokkosKernels_INST_COMPLEX_FLOAT=OFF \
    -DTPL_ENABLE_CUSPARSE=OFF -DKokkosKernels_ENABLE_TPL_CUSPARSE=OFF "${tpls[@]}" \
    -DTPL_ENABLE_BLAS=ON -DTPL_ENABLE_LAPACK=ON -DTPL_ENABLE_Pthread=OFF \
    -DTPL_ENABLE_DLlib=ON -DTPL_ENABLE_Boost=OFF -DTPL_ENABLE_yaml-cpp=OFF \
    -DTPL_ENABLE_Netcdf=OFF -DTPL_ENABLE_HWLOC=OFF "${blas[@]}" \
    > "$OUT/trilinos-configure.log" 2>&1 ||
    { echo "tpetra: TRILINOS CONFIGURE FAILED"; tail -40 "$OUT/trilinos-configure.log"; exit 1; }
  echo "$config_id" > "$tb/configured"
  record "configure ($config_id) $(($(date +%s) - s)) s ($(grep -c . "$OUT/trilinos-configure.log") log lines)"
  grep -E "Final set of enabled (packages|SE packages|TPLs)|Kokkos_ARCH|KokkosKernels.*ETI" \
    "$OUT/trilinos-configure.log" | head -20
fi
want configure && ! want trilinos && { echo "tpetra: configure done ($(elapsed))"; exit 0; }

# 3. Build (stopped after timeout_s, resumed by the next call) and install.
if want trilinos && [ ! -f "$tb/installed" ]; then
  s=$(date +%s)
  remaining() { ninja -C "$bld" -n 2> /dev/null | grep -c '^\[' || true; }
  [ ${#generator[@]} -gt 0 ] && echo "tpetra: $(remaining) Trilinos build steps left"
  timeout --signal=INT --kill-after=30 "$timeout_s" cmake --build "$bld" -j "$JOBS" \
    >> "$OUT/trilinos-build.log" 2>&1
  rc=$?
  took=$(($(date +%s) - s))
  if [ $rc -eq 124 ] || [ $rc -eq 130 ] || [ $rc -eq 137 ]; then
    left="$([ ${#generator[@]} -gt 0 ] && remaining)"
    record "build stopped after $took s (timeout $timeout_s s), ${left:-?} steps left: call again"
    exit 3
  elif [ $rc -ne 0 ]; then
    record "build FAILED after $took s"
    grep -E "error|Error|FAILED" "$OUT/trilinos-build.log" | head -30
    tail -30 "$OUT/trilinos-build.log"
    exit 1
  fi
  record "build done in $took s (this call, $JOBS jobs)"
  s=$(date +%s)
  cmake --install "$bld" > "$OUT/trilinos-install.log" 2>&1 ||
    { echo "tpetra: TRILINOS INSTALL FAILED"; tail -30 "$OUT/trilinos-install.log"; exit 1; }
  touch "$tb/installed"
  record "install $(($(date +%s) - s)) s into $prefix"
fi
grep -E "^[0-9T:-]+Z (unpack|configure|build|install)" "$times" 2> /dev/null |
  awk '{ for (i = 1; i <= NF; ++i) if ($i == "s" && $(i-1) ~ /^[0-9]+$/) { t += $(i-1); break } }
       END { if (t) print "tpetra: Trilinos steps so far, in all: " t " s" }'

# 4. Hola against it. Kokkos' CUDA headers need nvcc: the Tpetra targets are compiled by
#    OpenMPI's mpicxx running nvcc_wrapper, as Trilinos itself was.
if want hola; then
  [ -f "$tb/installed" ] || { echo "tpetra: Trilinos is not installed yet"; exit 1; }
  s=$(date +%s)
  export LD_LIBRARY_PATH="$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  [ -x "$prefix/bin/nvcc_wrapper" ] && export OMPI_CXX="$prefix/bin/nvcc_wrapper"
  # Trilinos' own C++ flags (-expt-extended-lambda, -arch=sm_90: KOKKOS_LAMBDA in Tpetra's
  # headers needs the first) are not on its exported targets; TpetraConfig.cmake lists them.
  tflags="$(sed -n 's/^set(Tpetra_CXX_FLAGS \[\[\(.*\)\]\])$/\1/p' \
    "$prefix/lib/cmake/Tpetra/TpetraConfig.cmake" 2> /dev/null | xargs)"
  echo "tpetra: Hola's C++ compiler ${HOLA_TPETRA_CXX:-mpicxx} (OMPI_CXX=$OMPI_CXX), flags: $tflags"
  {
    cmake -S . -B "$hola_build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CUDA_ARCHITECTURES="$arch" -DCMAKE_CXX_COMPILER="${HOLA_TPETRA_CXX:-mpicxx}" \
      -DCMAKE_CXX_FLAGS="${HOLA_TPETRA_CXX_FLAGS:-$tflags}" \
      -DCMAKE_PREFIX_PATH="$prefix" -DTpetra_DIR="$prefix/lib/cmake/Tpetra" \
      -DHOLA_WITH_TPETRA=ON -DHOLA_WITH_PETSC=OFF -DHOLA_WITH_HYPRE=OFF \
      -DHOLA_TPETRA_COUNT_TRANSFERS=ON &&
      cmake --build "$hola_build" -j "$JOBS" --target tpetra_belos tpetra_apply_calls \
        tpetra_hola_operator_test
  } > "$OUT/tpetra-hola-build.log" 2>&1 ||
    { echo "tpetra: HOLA TPETRA BUILD FAILED"; grep -E "error" "$OUT/tpetra-hola-build.log" | head -20;
      tail -30 "$OUT/tpetra-hola-build.log"; exit 1; }
  grep -E "Hola: Tpetra" "$OUT/tpetra-hola-build.log"
  record "hola tpetra targets $(($(date +%s) - s)) s ($hola_build)"
fi
# 5. On the GPU(s). Every command and its output go to tpetra-run.txt.
run_log="$OUT/tpetra-run.txt"
if want tests || want calls || want solve || want scaling; then
  [ -x "$hola_build/solvers_demo/tpetra_belos/tpetra_belos" ] ||
    { echo "tpetra: Hola's Tpetra targets are not built (step hola)"; exit 1; }
  export LD_LIBRARY_PATH="$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export OMP_NUM_THREADS=1
  bin="$hola_build/solvers_demo/tpetra_belos"
  gpus="$(nvidia-smi -L 2> /dev/null | grep -c '^GPU' || true)"
  n="${TPETRA_N:-200}"
  commit="$(hola_commit)"
  mpi=(mpiexec)
  if mpiexec --version 2> /dev/null | grep -qE "Open MPI|OpenRTE"; then
    mpi+=(--oversubscribe --bind-to none)
    [ "$(id -u)" = 0 ] && mpi+=(--allow-run-as-root)
  fi
  echo "tpetra: run steps on $gpus GPU(s), commit $commit, $(mpiexec --version 2> /dev/null | head -1)" |
    tee -a "$run_log"
fi
run_failed=0
# run_on G NP CMD...: CMD on NP ranks over the first G GPUs (Kokkos gives each rank a GPU from its
# node-local rank: KOKKOS_NUM_DEVICES); logged; a failure is remembered, the steps go on.
run_on() {
  local g=$1 np=$2 rc
  shift 2
  echo "\$ KOKKOS_NUM_DEVICES=$g mpiexec -n $np $*" | sed "s#$HOLA_ROOT/##g" | tee -a "$run_log"
  KOKKOS_NUM_DEVICES=$g "${mpi[@]}" -n "$np" "$@" >> "$run_log" 2>&1
  rc=$?
  [ $rc -eq 0 ] || { echo "tpetra: FAILED (exit $rc): $*" | tee -a "$run_log"; run_failed=1; }
  return $rc
}
if want tests; then
  s=$(date +%s)
  echo "\$ ctest -R tpetra -E install (in $(basename "$hola_build"))" >> "$run_log"
  ctest --test-dir "$hola_build" -R tpetra -E install --output-on-failure --timeout 300 >> "$run_log" 2>&1 ||
    { echo "tpetra: ctest -R tpetra FAILED" | tee -a "$run_log"; run_failed=1; }
  grep -E "tests passed|Failed|\*\*\*" "$run_log" | tail -8
  record "tests $(($(date +%s) - s)) s"
fi
if want calls; then
  s=$(date +%s)
  run_on 1 1 "$bin/tpetra_apply_calls" -n 22 --calls 1000 --rounds 5 \
    --output "$OUT/tpetra-calls-n22-np1.json"
  run_on 1 1 "$bin/tpetra_apply_calls" -n "$n" --calls 100 --rounds 3 \
    --output "$OUT/tpetra-calls-n$n-np1.json"
  if [ "$gpus" -ge 2 ]; then
    run_on 2 2 "$bin/tpetra_apply_calls" -n "$n" --calls 100 --rounds 3 \
      --output "$OUT/tpetra-calls-n$n-np2-gpus2.json"
  fi
  record "calls $(($(date +%s) - s)) s"
fi
if want solve; then
  s=$(date +%s)
  # GMRES and Block CG on the small grid: their dense steps (Belos through Kokkos Kernels' native
  # GEMM, cuBLAS being off in this build) take about 27 ms per GMRES iteration at any size, so
  # both operators' solves of TPETRA_N^3 outlast a device command.
  small="${TPETRA_SMALL_N:-40}"
  for solver in cg bicgstab; do
    run_on 1 1 "$bin/tpetra_belos" -n "$n" --solver "$solver" --prec jacobi --max-iters 3000 \
      --check --output "$OUT/tpetra-belos-$solver-n$n-np1.json"
  done
  for solver in gmres blockcg; do
    run_on 1 1 "$bin/tpetra_belos" -n "$small" --solver "$solver" --prec jacobi --max-iters 400 \
      --check --output "$OUT/tpetra-belos-$solver-n$small-np1.json"
  done
  if [ "$gpus" -ge 2 ]; then
    for solver in cg bicgstab; do
      run_on 2 2 "$bin/tpetra_belos" -n "$n" --solver "$solver" --prec jacobi --max-iters 3000 \
        --check --output "$OUT/tpetra-belos-$solver-n$n-np2-gpus2.json"
    done
  fi
  record "solve $(($(date +%s) - s)) s"
fi
if want scaling; then
  s=$(date +%s)
  for g in ${TPETRA_SCALING_GPUS:-1 2 4}; do
    [ "$g" -le "$gpus" ] || continue
    # Weak scaling: n^3 rows per GPU (the grid edge times the cube root of g).
    weak_n="$(awk -v n="$n" -v g="$g" 'BEGIN { printf "%d", n * g ^ (1 / 3) + 0.5 }')"
    for rep in $(seq 1 "${TPETRA_REPEATS:-3}"); do
      run_on "$g" "$g" "$bin/tpetra_belos" -n "$n" --solver cg --prec jacobi --check \
        --output "$OUT/tpetra-scaling-strong-n$n-g$g-r$rep.json"
      [ "$g" -gt 1 ] && run_on "$g" "$g" "$bin/tpetra_belos" -n "$weak_n" --solver cg \
        --prec jacobi --check --output "$OUT/tpetra-scaling-weak-n$weak_n-g$g-r$rep.json"
    done
  done
  python3 "$HOLA_ROOT/bench/tpetra_scaling.py" "$OUT"/tpetra-scaling-*.json --out "$OUT/tpetra-scaling" \
    --strong-n "$n" --weak-n "$n" >> "$run_log" 2>&1 ||
    echo "tpetra: the scaling summary failed (tpetra-run.txt)" | tee -a "$run_log"
  record "scaling $(($(date +%s) - s)) s"
fi
grep -E "^tpetra_(belos|apply_calls):|^(CG|GMRES|BICGSTAB|Block CG) |HolaOperator / CrsMatrix|one product|iteration counts|Tpetra node|copies per call" \
  "$run_log" 2> /dev/null | tail -60
[ $run_failed -eq 0 ] || { echo "tpetra: some runs FAILED (tpetra-run.txt)"; exit 1; }
echo "tpetra: done ($(elapsed) this call)"
