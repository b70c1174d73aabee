#!/usr/bin/env bash
# Runs on the CPU machine (network to Debian's mirror): packs the part of Trilinos that the
# device's Tpetra stage builds (scripts/device-tpetra.sh) into .carry/trilinos-src.tar.xz.
#   scripts/fetch-trilinos-src.sh [output.tar.xz]
# 1. Debian 12's source package `trilinos` (13.2.0, Kokkos 3.4) through a private deb-src list,
#    state and cache (the system's own mirror URI; /etc/apt is not changed, no root lists touched).
# 2. The subset: top-level CMake files, cmake/, commonTools/, and packages/ kokkos,
#    kokkos-kernels, teuchos, tpetra, belos, ifpack2 (Hola's tpetra_belos and tpetra tests need
#    Ifpack2), without their test / example / perf folders (doc/ stays: Belos adds it); Debian's own patches that touch
#    the subset.
# 3. The fixes for CUDA 13 and gcc 13 (docs/tpetra.md, "Building Tpetra with CUDA for the device
#    check"); each one fails loudly when its pattern is not found.
# Environment: WORK (scratch folder, default /tmp/hola-trilinos-src), TRILINOS_MIRROR (default:
# the first Debian URI of the system's apt sources, else http://deb.debian.org/debian).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/.carry/trilinos-src.tar.xz}"
work="${WORK:-/tmp/hola-trilinos-src}"
top=Trilinos-trilinos-release-13-2-0
die() { echo "fetch-trilinos-src: $*" >&2; exit 1; }

# 1. The source package, with apt's state kept under $work.
mirror="${TRILINOS_MIRROR:-}"
if [ -z "$mirror" ]; then
  mirror="$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources \
    2>/dev/null | grep -oE 'https?://[^ ]*/debian/?( |$)' | grep -v security | head -1 | tr -d ' ' || true)"
  mirror="${mirror:-http://deb.debian.org/debian}"
fi
mirror="${mirror%/}"
apt="$work/apt"
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/parts" "$work/dl"
echo "deb-src $mirror bookworm main" > "$apt/sources.list"
aptopts=(-o "Dir::Etc::SourceList=$apt/sources.list" -o "Dir::Etc::SourceParts=$apt/parts"
  -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache" -o Debug::NoLocking=1)
orig="$work/dl/trilinos_13.2.0.orig.tar.gz"
if [ ! -s "$orig" ] || ! ls "$work"/dl/trilinos_13.2.0-*.debian.tar.xz > /dev/null 2>&1; then
  echo "fetch-trilinos-src: apt-get source trilinos=13.2.0 from $mirror (bookworm)"
  apt-get "${aptopts[@]}" update > "$work/apt-update.log" 2>&1 ||
    { cat "$work/apt-update.log"; die "apt-get update failed"; }
  (cd "$work/dl" && apt-get "${aptopts[@]}" source --download-only 'trilinos=13.2.0-*' 2>&1 ||
    apt-get "${aptopts[@]}" source --download-only trilinos) | tail -3
fi
[ -s "$orig" ] || die "$orig was not downloaded"
debtar="$(ls "$work"/dl/trilinos_13.2.0-*.debian.tar.xz | tail -1)"

# 2. The subset.
src="$work/src"
rm -rf "$src"
mkdir -p "$src"
tar -xzf "$orig" -C "$src" --wildcards --no-wildcards-match-slash \
  "$top/*.cmake" "$top/CMakeLists.txt" "$top/Copyright.txt" "$top/LICENSE" "$top/README"
tar -xzf "$orig" -C "$src" "$top/cmake" "$top/commonTools" \
  "$top/packages/kokkos" "$top/packages/kokkos-kernels" "$top/packages/teuchos" \
  "$top/packages/tpetra" "$top/packages/belos" "$top/packages/ifpack2"
t="$src/$top"
find "$t/packages" -depth -type d \( -name test -o -name tests -o -name example -o -name examples \
  -o -name perf_test -o -name unit_test -o -name unit_tests -o -name performance_tests \
  -o -name benchmarks -o -name test_common \) -exec rm -rf {} +
# Debian's patches that touch the subset (the others are for stokhos and pliris).
mkdir -p "$work/debian" && tar -xJf "$debtar" -C "$work/debian"
for p in fix_kokkos_test_declarations.patch set_appropriate_soname.patch; do
  patch -d "$t" -p1 --forward --quiet < "$work/debian/debian/patches/$p" || die "debian patch $p failed"
done

# 3. The fixes. fix FILE PYTHON-EXPRESSION-CHECK: edits with python, checks the result.
fix() {  # name file old new
  python3 - "$@" <<'EOF' || die "fix '$1' failed"
import sys
name, path, old, new = sys.argv[1:5]
text = open(path).read()
if old not in text:
    sys.exit(f"fix '{name}': pattern not found in {path}: {old!r}")
if text.count(old) != 1:
    sys.exit(f"fix '{name}': pattern found {text.count(old)} times in {path}")
open(path, "w").write(text.replace(old, new))
print(f"fix '{name}': {path.split('/packages/')[-1]}")
EOF
}
k="$t/packages/kokkos"
# (1) nvcc_wrapper's default arch: sm_35 is gone from CUDA 12+.
fix nvcc_wrapper-arch "$k/bin/nvcc_wrapper" 'default_arch="sm_35"' 'default_arch="sm_90"'
# (2) Kokkos 3.4 knows no Hopper: its AMPERE80 option builds for sm_90 (the start-up check then
#     sees kernels of the device's own compute capability).
fix ampere80-sm90 "$k/cmake/kokkos_arch.cmake" 'CHECK_CUDA_ARCH(AMPERE80  sm_80)' \
  'CHECK_CUDA_ARCH(AMPERE80  sm_90)  # hola: Hopper, see docs/tpetra.md'
# (3) Kokkos' CUDA half type does not build with CUDA 13: off there (Kokkos falls back to float).
fix cuda-half-off "$k/core/src/Cuda/Kokkos_Cuda_Half.hpp" \
  '#ifdef KOKKOS_ENABLE_CUDA
#if !(defined(KOKKOS_COMPILER_CLANG) && KOKKOS_COMPILER_CLANG < 900) && \' \
  '#ifdef KOKKOS_ENABLE_CUDA
#include <cuda_runtime_api.h>  // hola: CUDART_VERSION
#if !(defined(CUDART_VERSION) && CUDART_VERSION >= 13000) && \
    !(defined(KOKKOS_COMPILER_CLANG) && KOKKOS_COMPILER_CLANG < 900) && \'
# (4) cudaMemPrefetchAsync takes a cudaMemLocation and flags in CUDA 13.
fix prefetch-cuda13 "$k/core/src/Cuda/Kokkos_CudaSpace.cpp" \
  '    CUDA_SAFE_CALL(cudaMemPrefetchAsync(ptr, bytes, space.cuda_device(),
                                        space.cuda_stream()));' \
  '#if CUDART_VERSION >= 13000  // hola: the CUDA 13 signature
    cudaMemLocation location{};
    location.type = cudaMemLocationTypeDevice;
    location.id   = space.cuda_device();
    CUDA_SAFE_CALL(
        cudaMemPrefetchAsync(ptr, bytes, location, 0, space.cuda_stream()));
#else
    CUDA_SAFE_CALL(cudaMemPrefetchAsync(ptr, bytes, space.cuda_device(),
                                        space.cuda_stream()));
#endif'
# (5) gcc 13 no longer brings <cstdint> in through <iosfwd>.
fix teuchos-cstdint "$t/packages/teuchos/core/src/Teuchos_BigUIntDecl.hpp" \
  '#include <iosfwd>' '#include <iosfwd>
#include <cstdint>  // hola: gcc 13'
echo "hola fixes: nvcc_wrapper-arch ampere80-sm90 cuda-half-off prefetch-cuda13 teuchos-cstdint" \
  > "$t/HOLA_FIXES"

# 4. Pack.
mkdir -p "$(dirname "$out")"
tar -C "$src" -cf - "$top" | xz -T2 -6 > "$out.tmp"
mv "$out.tmp" "$out"
echo "fetch-trilinos-src: $out ($(du -h "$out" | cut -f1), $(tar -tJf "$out" | wc -l) entries)"
