#!/usr/bin/env bash
# The SpMSpV density sweep of issue 17 on the device machine (docs/spmspv.md), after
# `scripts/device-check.sh build` made build-device/:
#   scripts/device-spmspv.sh
# 1. builds hola-spmspv-bench and spmspv_gpu_test in build-device with all cores,
# 2. runs spmspv_gpu_test (every GPU SpMSpV kernel against the CPU reference; SPMSPV_SKIP_TEST=1
#    skips it),
# 3. runs hola-spmspv-bench on its generated set (Kronecker scale 18 and 20, 2D / 3D Poisson,
#    banded, random uniform; x densities 1e-6..1; ops N and T; double) plus SPMSPV_BENCH_ARGS
#    (e.g. "--precision both", "--matrix FILE"), every kernel checked against the CPU reference,
# 4. plots it (bench/plot_spmspv.py, if matplotlib is present) and trains the per-call tree on it
#    (bench/selector/train_spmspv.py, if numpy is present) into LOGS, not into the repository.
# Results in ${LOGS:-device-out}: spmspv-bench.json, spmspv-bench-<precision>.png,
# spmspv-bench.log (progress), spmspv-train.txt / .json and spmspv_tree_generated.hpp,
# spmspv.txt (everything printed). Exit code 1 when a test, a check or a step failed.
# Environment: LOGS, HOLA_BUILD, HOLA_COMMIT, SPMSPV_BENCH_ARGS, SPMSPV_SKIP_TEST.
set -uo pipefail
source "$(dirname "$0")/env.sh"
device_stage_start spmspv
status=0

targets=(hola-spmspv-bench)
[ "${SPMSPV_SKIP_TEST:-0}" = 1 ] || targets+=(spmspv_gpu_test)
log "build: ${targets[*]} (-j $JOBS)"
# Re-run CMake so that the new folder (solvers_demo/spmspv_bench) is known to an older build.
cmake "$BUILD" > "$LOGS/spmspv-build.log" 2>&1
if ! cmake --build "$BUILD" -j "$JOBS" --target "${targets[@]}" >> "$LOGS/spmspv-build.log" 2>&1
then
  tail -40 "$LOGS/spmspv-build.log" | tee -a "$TXT"
  log "FAILED: build"
  exit 1
fi

if [ "${SPMSPV_SKIP_TEST:-0}" != 1 ]; then
  log "\$ spmspv_gpu_test"
  timeout 300 "$BUILD/tests/spmspv_gpu_test" --gtest_brief=1 2>&1 | tail -40 | tee -a "$TXT"
  rc=${PIPESTATUS[0]}
  [ "$rc" -eq 0 ] || { log "FAILED (exit $rc): spmspv_gpu_test"; status=1; }
fi

JSON="$LOGS/spmspv-bench.json"
read -r -a extra <<< "${SPMSPV_BENCH_ARGS:-}"  # a list of arguments
cmd=("$BUILD/solvers_demo/spmspv_bench/hola-spmspv-bench" --output "$JSON" "${extra[@]}")
log "\$ ${cmd[*]}"
timeout 420 "${cmd[@]}" 2> >(tee "$LOGS/spmspv-bench.log" >&2)
rc=$?
grep -E "^summary|^error|^wrote" "$LOGS/spmspv-bench.log" >> "$TXT"
[ "$rc" -eq 0 ] || { log "FAILED (exit $rc): hola-spmspv-bench (1: a kernel failed its check)"; status=1; }

if [ -s "$JSON" ]; then
  if python3 -c "import matplotlib" 2>/dev/null; then
    python3 bench/plot_spmspv.py "$JSON" 2>&1 | tee -a "$TXT" || status=1
  else
    log "no matplotlib: no plot"
  fi
  if python3 -c "import numpy" 2>/dev/null; then
    python3 bench/selector/train_spmspv.py "$JSON" --commit "$HOLA_COMMIT" \
      --out-header "$LOGS/spmspv_tree_generated.hpp" --out-json "$LOGS/spmspv-train.json" \
      2>&1 | tee "$LOGS/spmspv-train.txt" | tee -a "$TXT"
  else
    log "no numpy: no training"
  fi
fi
log "done (status $status); results in $LOGS"
exit "$status"
