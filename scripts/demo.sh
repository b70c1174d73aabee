#!/usr/bin/env bash
# The main job: set up, build and run the SpMV demo on a built-in 3D Poisson problem.
# Extra arguments go to the demo (e.g. -n 150, --mtx file.mtx).
set -euo pipefail
source "$(dirname "$0")/env.sh"
"$HOLA_ROOT/scripts/setup.sh"
cmake -S "$HOLA_ROOT" -B "$HOLA_ROOT/build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$HOLA_ROOT/build" -j "$JOBS" --target hola-spmv-demo
"$HOLA_ROOT/build/solvers_demo/hola-spmv-demo" "$@"
