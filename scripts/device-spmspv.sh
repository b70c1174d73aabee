#!/usr/bin/env bash
# The SpMSpV density sweep of issue 17 on the device machine (docs/spmspv.md), after
# `scripts/device-check.sh build` made build-device/:
#   scripts/device-spmspv.sh
# 1. builds hola-spmspv-bench, spmspv_gpu_test and spmspv_test in build-device with all cores,
# 2. runs spmspv_gpu_test (every GPU SpMSpV kernel and the operator's device path against the
#    CPU reference; SPMSPV_SKIP_TEST=1 skips it) and the unit test of the selection,
# 3. runs hola-spmspv-bench on its generated set (16 matrices: Kronecker scales 16 / 18 / 20,
#    R-MAT with milder and steeper skew, 2D / 3D Poisson and a 27-point stencil at two sizes,
#    banded at two sizes, Pareto row lengths, uniformly random at 8 and 64 per row, a wide
#    rectangle; x densities 1e-6..1; ops N and T; float and double; dense and sparse y) with a
#    time budget of SPMSPV_BUDGET_S seconds (default 270: no new matrix starts after it), plus
#    SPMSPV_BENCH_ARGS (e.g. "--mask-allowed 0.1", "--matrix FILE"); every candidate and the
#    operator's "auto" checked against the CPU reference; the summary lines give auto's ratio to
#    the per-case best and the cases slower than densify-and-SpMV,
# 4. plots it (bench/plot_spmspv.py, if matplotlib is present) and, unless SPMSPV_SKIP_TRAIN=1,
#    retrains the selection on it (bench/selector/train_spmspv.py, if numpy is present: about a
#    minute) into LOGS, not into the repository (the training needs no GPU: it can run anywhere
#    on spmspv-bench.json).
# Results in ${LOGS:-device-out}: spmspv-bench.json, spmspv-bench-<precision>[-sparse].png,
# spmspv-bench.log (progress), spmspv-train.txt / .json, spmspv_tree_generated.hpp and
# spmspv_tree_cases.hpp, spmspv.txt (everything printed). Exit code 1 when a test, a check or a
# step failed.
# Environment: LOGS, HOLA_BUILD, HOLA_COMMIT, SPMSPV_BENCH_ARGS, SPMSPV_BUDGET_S,
# SPMSPV_SKIP_TEST, SPMSPV_SKIP_BENCH (tests only), SPMSPV_SKIP_TRAIN. Within the device tool's
# 10 minutes per command: the tests (SPMSPV_SKIP_BENCH=1) and the sweep (SPMSPV_SKIP_TEST=1)
# as two calls.
set -uo pipefail
source "$(dirname "$0")/env.sh"
device_stage_start spmspv
status=0

targets=()
[ "${SPMSPV_SKIP_BENCH:-0}" = 1 ] || targets+=(hola-spmspv-bench)
[ "${SPMSPV_SKIP_TEST:-0}" = 1 ] || targets+=(spmspv_gpu_test spmspv_test)
log "build: ${targets[*]} (-j $JOBS)"
# Re-run CMake so that new files are known to an older build.
cmake "$BUILD" > "$LOGS/spmspv-build.log" 2>&1
if ! cmake --build "$BUILD" -j "$JOBS" --target "${targets[@]}" >> "$LOGS/spmspv-build.log" 2>&1
then
  tail -40 "$LOGS/spmspv-build.log" | tee -a "$TXT"
  log "FAILED: build"
  exit 1
fi

if [ "${SPMSPV_SKIP_TEST:-0}" != 1 ]; then
  log "\$ spmspv_gpu_test"
  timeout 400 "$BUILD/tests/spmspv_gpu_test" --gtest_brief=1 2>&1 | tail -40 | tee -a "$TXT"
  rc=${PIPESTATUS[0]}
  [ "$rc" -eq 0 ] || { log "FAILED (exit $rc): spmspv_gpu_test"; status=1; }
  log "\$ spmspv_test --gtest_filter=SpmspvGpuSelection.*"
  "$BUILD/tests/spmspv_test" --gtest_brief=1 --gtest_filter='SpmspvGpuSelection.*' 2>&1 |
    tail -10 | tee -a "$TXT"
  rc=${PIPESTATUS[0]}
  [ "$rc" -eq 0 ] || { log "FAILED (exit $rc): spmspv_test"; status=1; }
fi

if [ "${SPMSPV_SKIP_BENCH:-0}" = 1 ]; then
  log "done (status $status, sweep skipped: SPMSPV_SKIP_BENCH=1); results in $LOGS"
  exit "$status"
fi

JSON="$LOGS/spmspv-bench.json"
read -r -a extra <<< "${SPMSPV_BENCH_ARGS:-}"  # a list of arguments
cmd=("$BUILD/solvers_demo/spmspv_bench/hola-spmspv-bench" --precision both --output-form both
     --time-budget-s "${SPMSPV_BUDGET_S:-270}" --output "$JSON" "${extra[@]}")
log "\$ ${cmd[*]}"
timeout 560 "${cmd[@]}" 2> >(tee "$LOGS/spmspv-bench.log" >&2)
rc=$?
grep -E "^summary|^error|^wrote|: [0-9.]+ s$" "$LOGS/spmspv-bench.log" >> "$TXT"
[ "$rc" -eq 0 ] || { log "FAILED (exit $rc): hola-spmspv-bench (1: a kernel failed its check)"; status=1; }

if [ -s "$JSON" ]; then
  if python3 -c "import matplotlib" 2>/dev/null; then
    python3 bench/plot_spmspv.py "$JSON" 2>&1 | tee -a "$TXT" || status=1
  else
    log "no matplotlib: no plot"
  fi
  if [ "${SPMSPV_SKIP_TRAIN:-0}" = 1 ]; then
    log "training skipped (SPMSPV_SKIP_TRAIN=1)"
  elif python3 -c "import numpy" 2>/dev/null; then
    python3 bench/selector/train_spmspv.py "$JSON" --commit "$HOLA_COMMIT" \
      --out-header "$LOGS/spmspv_tree_generated.hpp" --out-cases "$LOGS/spmspv_tree_cases.hpp" \
      --out-json "$LOGS/spmspv-train.json" 2>&1 | tee "$LOGS/spmspv-train.txt" | tee -a "$TXT"
  else
    log "no numpy: no training"
  fi
fi
log "done (status $status); results in $LOGS"
exit "$status"
