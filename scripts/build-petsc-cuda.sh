#!/usr/bin/env bash
# Builds PETSc with CUDA from the carried source sdist into a prefix, for the holaaijcusparse type:
#   scripts/build-petsc-cuda.sh [PREFIX]          (default: $PETSC_CUDA_PREFIX or /tmp/petsc-cuda)
# Idempotent: a prefix already built with the same sdist and configure line is left as it is.
# Environment: PETSC_SDIST (default .carry/petsc-src/petsc-3.26.1.tar.gz), PETSC_CUDA_ARCH
# (default: the first GPU's compute capability from nvidia-smi, else 90), JOBS (default: all
# cores), PETSC_BUILD_DIR (where the source is unpacked and built; default PREFIX-build),
# PETSC_EXTRA_CONFIGURE (more configure options, e.g. for a machine without the usual MPI).
# Afterwards: PKG_CONFIG_PATH=PREFIX/lib/pkgconfig cmake ... -DHOLA_WITH_PETSC=ON
set -euo pipefail
source "$(dirname "$0")/env.sh"

prefix="${1:-${PETSC_CUDA_PREFIX:-/tmp/petsc-cuda}}"
sdist="${PETSC_SDIST:-$HOLA_ROOT/.carry/petsc-src/petsc-3.26.1.tar.gz}"
build_dir="${PETSC_BUILD_DIR:-$prefix-build}"
jobs="${JOBS:-$(nproc)}"
arch="${PETSC_CUDA_ARCH:-$(gpu_arch)}"
[ -f "$sdist" ] || { echo "build-petsc-cuda: no PETSc sdist at $sdist (pip download --no-deps --no-binary :all: petsc==3.26.1)" >&2; exit 1; }
command -v nvcc >/dev/null || { echo "build-petsc-cuda: nvcc not found" >&2; exit 1; }
command -v mpicc >/dev/null || { echo "build-petsc-cuda: mpicc not found" >&2; exit 1; }

# NVML stays off (3.26 default): it would tie libpetsc to the driver's libnvidia-ml.
configure_args=(
  --prefix="$prefix" --with-cc=mpicc --with-cxx=mpicxx --with-fc=0
  --with-cuda=1 --with-cuda-arch="$arch" --with-debugging=0 --with-shared-libraries=1 --with-x=0
  COPTFLAGS=-O2 CXXOPTFLAGS=-O2 CUDAOPTFLAGS=-O2 --with-make-np="$jobs"
)
# Extra options are split on spaces, like a command line.
# shellcheck disable=SC2206
configure_args+=(${PETSC_EXTRA_CONFIGURE:-})
# The stamp names what was built, so a changed sdist, arch or option rebuilds (job count aside).
stamp_text="$(basename "$sdist") $(printf '%s ' "${configure_args[@]}" | sed 's/--with-make-np=[0-9]* //')"
stamp="$prefix/.hola-build-stamp"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$stamp_text" ] && [ -f "$prefix/lib/pkgconfig/PETSc.pc" ]; then
  echo "build-petsc-cuda: $prefix already built ($stamp_text)"
  exit 0
fi

start=$(date +%s)
rm -rf "$build_dir"
mkdir -p "$build_dir"
tar xf "$sdist" -C "$build_dir" --strip-components=1  # .tar.gz or .tar.xz
cd "$build_dir"
# Configure picks up PETSC_DIR/PETSC_ARCH from the environment: build from this tree only.
unset PETSC_DIR PETSC_ARCH
echo "build-petsc-cuda: configure ${configure_args[*]}"
python3 ./configure PETSC_ARCH=arch-hola-cuda "${configure_args[@]}"
t_configure=$(($(date +%s) - start))
make PETSC_DIR="$build_dir" PETSC_ARCH=arch-hola-cuda MAKE_NP="$jobs" all
make PETSC_DIR="$build_dir" PETSC_ARCH=arch-hola-cuda install
echo "$stamp_text" > "$stamp"
echo "build-petsc-cuda: $prefix built (sm_$arch, $jobs jobs; configure ${t_configure} s, total $(($(date +%s) - start)) s)"
