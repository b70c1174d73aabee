#!/usr/bin/env bash
# The main job: set up, build and solve the built-in 3D Poisson problem with PETSc's KSP on
# Hola's matrix type (holaaij on a machine without a GPU), next to PETSc's own aij.
# Extra arguments go to the solver, e.g. -n 100, --matrix file.mtx, -ksp_type gmres, -pc_type none.
# Environment: OMP_NUM_THREADS (threads of Hola's CPU kernel; default: all cores), DEMO_REPEAT
# (solves of each type, default 5: the MatMult time ratio is the median over them, since one run
# swings with the machine's load).
set -euo pipefail
source "$(dirname "$0")/env.sh"
"$HOLA_ROOT/scripts/setup.sh"
cmake -S "$HOLA_ROOT" -B "$HOLA_ROOT/build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$HOLA_ROOT/build" -j "$JOBS" --target petsc_ksp

export OMP_NUM_THREADS="${OMP_NUM_THREADS:-$JOBS}"
repeat="${DEMO_REPEAT:-5}"
echo "demo: OMP_NUM_THREADS=$OMP_NUM_THREADS (Hola's CPU kernel; PETSc's aij runs one thread" \
  "per rank), $repeat runs of each solve"
ratios=()
for i in $(seq 1 "$repeat"); do
  out=$("$HOLA_ROOT/build/solvers_demo/petsc_ksp" -compare -ksp_type cg -pc_type jacobi "$@")
  [ "$i" -eq 1 ] && echo "$out"
  ratio=$(echo "$out" | sed -n 's/^MatMult .* time .*: \([0-9.]*\)$/\1/p')
  [ -n "$ratio" ] && ratios+=("$ratio")
done
if [ ${#ratios[@]} -gt 0 ]; then
  median=$(printf '%s\n' "${ratios[@]}" | sort -g | awk '{v[NR]=$1} END {
    print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
  lowest=$(printf '%s\n' "${ratios[@]}" | sort -g | head -n 1)
  echo "MatMult time ratio holaaij / aij over ${#ratios[@]} runs: ${ratios[*]}"
  echo "median: $median, lowest: $lowest (below 1: holaaij faster), OMP_NUM_THREADS=$OMP_NUM_THREADS"
  # Other processes on the cores stall the OpenMP threads of Hola's kernel far more than PETSc's
  # single-threaded aij: say so rather than let the ratio pass for the kernels'.
  load=$(cut -d ' ' -f 1 /proc/loadavg 2>/dev/null || echo 0)
  cores=$(getconf _NPROCESSORS_ONLN)  # not nproc: it follows OMP_NUM_THREADS
  if awk -v l="$load" -v c="$cores" 'BEGIN { exit !(l > c / 2) }'; then
    echo "warning: load average $load on $cores cores: other work shares the cores, the ratio" \
      "measures that load more than the kernels (run on an idle machine, or OMP_NUM_THREADS=1)"
  fi
fi
