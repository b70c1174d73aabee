#!/usr/bin/env bash
# The whole GPU check, run on the device machine (see README, "Development"):
#   scripts/device-check.sh [stage ...]      stages: build test sanitize bench (default: all)
# Builds with all cores for the GPU found, runs the `gpu` ctest label, compute-sanitizer
# memcheck and racecheck on a reduced GPU test set, and hola-bench on the ANCHORS.md matrices.
# Logs and result files go to $OUT (default ./device-out).
# Environment: HOLA_MATRICES_DIR (real test matrices; default ./.carry/matrices, then
# ../shared/matrices), HOLA_COMMIT (recorded in results; default: git rev-parse HEAD or
# ./.carry/commit), BENCH_ARGS (extra hola-bench arguments), CTEST_ARGS (extra ctest arguments).
set -uo pipefail
source "$(dirname "$0")/env.sh"
cd "$HOLA_ROOT"
OUT="${OUT:-$HOLA_ROOT/device-out}"
mkdir -p "$OUT"
BUILD="$HOLA_ROOT/build-device"
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(build test sanitize bench)
want() { local s; for s in "${stages[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }

if [ -z "${HOLA_MATRICES_DIR:-}" ]; then
  for d in "$HOLA_ROOT/.carry/matrices" "$HOLA_ROOT/../shared/matrices"; do
    [ -d "$d" ] && { HOLA_MATRICES_DIR="$d"; break; }
  done
fi
export HOLA_MATRICES_DIR="${HOLA_MATRICES_DIR:-}"
if [ -z "${HOLA_COMMIT:-}" ]; then
  HOLA_COMMIT="$(git rev-parse HEAD 2>/dev/null || cat "$HOLA_ROOT/.carry/commit" 2>/dev/null || echo unknown)"
fi
arch="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d .)"
arch="${arch:-90}"
status=0
{
  echo "commit: $HOLA_COMMIT"
  nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.max.sm --format=csv
  nvcc --version | tail -1
} > "$OUT/device.txt" 2>&1
cat "$OUT/device.txt"

if want build; then
  start=$(date +%s)
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$arch" \
    -DHOLA_MATRICES_DIR="$HOLA_MATRICES_DIR" > "$OUT/build.log" 2>&1 &&
    cmake --build "$BUILD" -j "$JOBS" >> "$OUT/build.log" 2>&1 || { echo "BUILD FAILED"; tail -40 "$OUT/build.log"; exit 1; }
  echo "build: $(( $(date +%s) - start )) s (sm_$arch, $JOBS jobs)"
fi

if want test; then
  ctest --test-dir "$BUILD" -L gpu --output-on-failure ${CTEST_ARGS:-} > "$OUT/gpu-tests.log" 2>&1 || status=1
  grep -E "tests passed|Failed|FAILED|\*\*\*|Passed|Skipped" "$OUT/gpu-tests.log" | tail -30
fi

if want sanitize; then
  # Reduced set: first type combination, small corpus (HOLA_TEST_REDUCED).
  : > "$OUT/sanitizer.log"
  for t in "$BUILD"/tests/*_test; do
    case "$(basename "$t")" in hola_test|merge_test|light_test|rowwise_test|cusparse_test) ;; *) continue ;; esac
    for tool in memcheck racecheck; do
      echo "== $tool $(basename "$t")" >> "$OUT/sanitizer.log"
      HOLA_TEST_REDUCED=1 timeout 240 compute-sanitizer --tool "$tool" --error-exitcode 9 \
        "$t" --gtest_filter='*/0.*' >> "$OUT/sanitizer.log" 2>&1
      rc=$?
      echo "== $tool $(basename "$t"): exit $rc" | tee -a "$OUT/sanitizer.log"
      [ $rc -eq 0 ] || status=1
    done
  done
fi

if want bench; then
  "$BUILD/solvers_demo/hola-bench" --commit "$HOLA_COMMIT" --json "$OUT/bench.json" \
    --csv "$OUT/bench.csv" ${BENCH_ARGS:-} > "$OUT/bench.log" 2> "$OUT/bench.err" || status=1
  cat "$OUT/bench.log"
  tail -5 "$OUT/bench.err"
fi
exit $status
