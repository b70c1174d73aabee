#!/usr/bin/env bash
# The main job: set up, build and solve the built-in 3D Poisson problem with PETSc's KSP on
# Hola's matrix type (holaaij on a machine without a GPU), next to PETSc's own aij.
# Extra arguments go to the solver, e.g. -n 100, -mtx file.mtx, -ksp_type gmres, -pc_type none.
set -euo pipefail
source "$(dirname "$0")/env.sh"
"$HOLA_ROOT/scripts/setup.sh"
cmake -S "$HOLA_ROOT" -B "$HOLA_ROOT/build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$HOLA_ROOT/build" -j "$JOBS" --target petsc_ksp
"$HOLA_ROOT/build/solvers_demo/petsc_ksp" -compare -ksp_type cg -pc_type jacobi "$@"
