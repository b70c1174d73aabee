#!/usr/bin/env bash
# Measures the trained "auto" on the GPU: hola-bench times `-k auto` (the Operator's choice,
# setup race included) and cuSPARSE ALG1 on the held-out matrices of an evaluation, and
# bench/selector/validate.py adds the measured numbers to that evaluation.
#   scripts/selector-validate.sh EVAL.json DATA.json[.gz]
# EVAL: train.py's evaluation (bench/results/selector-<date>.json); DATA: the corpus run it was
# trained on. The trees in plugin/src must be the ones EVAL describes (selector-device.sh puts
# them there). Writes EVAL's measured section and <EVAL without .json>-auto.json.gz.
# Environment: BUILD (default build-device), HOLA_COMMIT.
set -uo pipefail
source "$(dirname "$0")/env.sh"
cd "$HOLA_ROOT" || exit 1
[ $# -eq 2 ] || { sed -n 2,10p "$0"; exit 2; }
eval_json="$1"
data="$2"
BUILD="${BUILD:-$HOLA_ROOT/build-device}"
HOLA_COMMIT="$(hola_commit)"
auto_json="${eval_json%.json}-auto.json"
if ! cmake --build "$BUILD" -j "$JOBS" --target hola-bench > "$BUILD/selector-rebuild.txt" 2>&1; then
  tail -30 "$BUILD/selector-rebuild.txt"
  echo "selector-validate: building hola-bench with the trees FAILED"
  exit 1
fi
python3 bench/selector/validate.py list "$eval_json" "$data" > "$BUILD/selector-heldout.txt" || exit 1
echo "selector-validate: auto on $(wc -l < "$BUILD/selector-heldout.txt") held-out matrices"
"$BUILD/solvers_demo/hola-bench" -m "@$BUILD/selector-heldout.txt" -p double -p float \
  --op N --op T -k auto --warmup 3 --reps 10 --time-cap-ms 20 -j "$JOBS" \
  --commit "$HOLA_COMMIT" --json "$auto_json" > "$BUILD/selector-auto.txt"
echo "selector-validate: hola-bench (auto) exit $?"
python3 bench/selector/validate.py score "$eval_json" "$data" "$auto_json"
rc=$?
gzip -9f "$auto_json"
exit $rc
