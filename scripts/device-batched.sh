#!/usr/bin/env bash
# Batched SpMV and batched CG on the GPU (issue 18), on a machine with a GPU and an existing
# build-device (scripts/device-check.sh build):  LOGS=<folder> scripts/device-batched.sh
# 1. builds hola-batched-bench and hola-batched-cg in that build (nothing else);
# 2. hola-batched-bench: the default sweep (mixed batches of 10^3..10^6 matrices of 16..1024 rows,
#    each pattern at 10^4, shared patterns), float and double, every Hola plan and auto against
#    looped cuSPARSE, block-diagonal cuSPARSE and the CPU OpenMP backend; no new case starts after
#    BATCHED_BENCH_BUDGET seconds (default 180);
# 3. hola-batched-cg --backend gpu at BATCHED_CG_SYSTEMS systems (default 100000): the CPU OpenMP
#    solve (OMP_NUM_THREADS, default all cores) and the GPU solve, both verified per system;
# 4. bench/plot_batched.py when python3 has matplotlib (skipped otherwise).
# Writes into LOGS (default ./device-out): batched-build.log, batched-bench.json,
# batched-bench.log, batched-cg.json, batched-cg.txt, batched-bench.png, batched-summary.txt.
# Exit status: 0 all verified, 1 a build failure, a mismatch or a failed system.
# Environment: LOGS, HOLA_BUILD (default build-device), BATCHED_BENCH_BUDGET, BATCHED_BENCH_ARGS
# (more hola-batched-bench arguments, e.g. --quick), BATCHED_CG_SYSTEMS, BATCHED_CG_ARGS,
# OMP_NUM_THREADS, HOLA_COMMIT.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$HOLA_ROOT"
LOGS="${LOGS:-$HOLA_ROOT/device-out}"
mkdir -p "$LOGS"
BUILD="${HOLA_BUILD:-$HOLA_ROOT/build-device}"
HOLA_COMMIT="$(hola_commit)"
export HOLA_COMMIT
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-$JOBS}"
SUMMARY="$LOGS/batched-summary.txt"
: > "$SUMMARY"
note() { echo "$*" | tee -a "$SUMMARY"; }
status=0

if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  note "device-batched: no build in $BUILD (run scripts/device-check.sh build first)"
  exit 1
fi
note "commit $HOLA_COMMIT, OMP_NUM_THREADS=$OMP_NUM_THREADS"
t0=$(date +%s)
if ! cmake --build "$BUILD" -j "$JOBS" --target hola-batched-bench hola-batched-cg \
  > "$LOGS/batched-build.log" 2>&1; then
  note "build FAILED ($(($(date +%s) - t0)) s)"
  tail -40 "$LOGS/batched-build.log"
  exit 1
fi
note "build ok ($(($(date +%s) - t0)) s)"

t0=$(date +%s)
rc=0
# shellcheck disable=SC2086  # BATCHED_BENCH_ARGS is a list of arguments
"$BUILD/solvers_demo/batched_bench/hola-batched-bench" \
  --time-budget "${BATCHED_BENCH_BUDGET:-180}" --output "$LOGS/batched-bench.json" \
  ${BATCHED_BENCH_ARGS:-} 2>&1 | tee "$LOGS/batched-bench.log" || rc=$?
note "hola-batched-bench: exit $rc ($(($(date +%s) - t0)) s)"
[ "$rc" -eq 0 ] || status=1

t0=$(date +%s)
rc=0
# shellcheck disable=SC2086  # BATCHED_CG_ARGS is a list of arguments
"$BUILD/solvers_demo/batched_cg/hola-batched-cg" --backend gpu \
  --systems "${BATCHED_CG_SYSTEMS:-100000}" --output "$LOGS/batched-cg.json" \
  ${BATCHED_CG_ARGS:-} 2>&1 | tee "$LOGS/batched-cg.txt" || rc=$?
note "hola-batched-cg: exit $rc ($(($(date +%s) - t0)) s)"
[ "$rc" -eq 0 ] || status=1

if [ -f "$LOGS/batched-bench.json" ]; then
  if python3 -c "import matplotlib" 2>/dev/null; then
    if python3 bench/plot_batched.py "$LOGS/batched-bench.json" \
      --out "$LOGS/batched-bench.png" > /dev/null 2>> "$LOGS/batched-bench.log"; then
      note "plot: batched-bench.png"
    else
      note "plot FAILED (see batched-bench.log)"
    fi
  else
    note "plot skipped: python3 has no matplotlib"
  fi
fi
note "device-batched: $([ "$status" -eq 0 ] && echo ok || echo FAILED)"
exit "$status"
