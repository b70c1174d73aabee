#!/usr/bin/env bash
# Makes a smaller copy of PETSc's source sdist for the device, whose working-tree copy is limited
# (64 MiB with the repository): drops what PETSc's library build skips (every tests/, tutorials/
# and benchmarks/ folder, petsc4py's docs and demos) and the tag files, keeps the three tutorials
# that scripts/device-petsc-tutorials.sh compiles, and packs the rest with xz:
#   scripts/slim-petsc-sdist.sh SDIST.tar.gz OUT.tar.xz
# (pip download --no-deps --no-binary :all: petsc==3.26.1 gives the sdist; 17 MB -> about 6 MB.)
# Then PETSC_SDIST=OUT.tar.xz for scripts/build-petsc-cuda.sh and the tutorials stage.
set -euo pipefail
[ $# -eq 2 ] || { sed -n 2,8p "$0"; exit 2; }
sdist="$(realpath "$1")"
out="$(realpath -m "$2")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
tar xzf "$sdist" -C "$work"
top="$(find "$work" -mindepth 1 -maxdepth 1 -type d | head -1)"
keep=(src/ksp/ksp/tutorials/ex45.c src/ksp/ksp/tutorials/ex2.c src/snes/tutorials/ex19.c)
(cd "$top" && tar cf "$work/keep.tar" "${keep[@]}")
find "$top/src" -type d \( -name tests -o -name tutorials -o -name benchmarks \) -prune \
  -exec rm -rf {} +
rm -rf "$top/CTAGS" "$top/TAGS" "$top/src/binding/petsc4py/docs" "$top/src/binding/petsc4py/demo"
tar xf "$work/keep.tar" -C "$top"
tar cf - -C "$work" "$(basename "$top")" | xz -9 -T0 > "$out"
echo "slim-petsc-sdist: $out ($(du -h "$out" | cut -f1))"
