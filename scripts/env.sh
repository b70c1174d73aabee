# Sourced by the scripts: common paths, the CUDA compiler if present, and what the device scripts
# share (GPU architecture, commit, output folder).
HOLA_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi
JOBS="$(nproc)"

# The GPU's compute capability without the dot, e.g. 90 (90 where nvidia-smi gives none).
gpu_arch() {
  local arch
  arch="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d . || true)"
  echo "${arch:-90}"
}

# The commit that results are recorded under: HOLA_COMMIT, else .carry/commit (written before a
# device run), else git's HEAD, else ../commit (an export unpacked beside that file).
hola_commit() {
  if [ -n "${HOLA_COMMIT:-}" ]; then echo "$HOLA_COMMIT"; return; fi
  # .carry/commit (git-ignored) names the tree sent to the device machine, whose copy of .git may
  # still point at an older HEAD (seen 2026-11-28: results recorded 34abac5 for a later tree).
  if [ -s "$HOLA_ROOT/.carry/commit" ]; then cat "$HOLA_ROOT/.carry/commit"; return; fi
  # Only a checkout of its own: an export (git archive) unpacked inside another repository would
  # otherwise report that repository's HEAD.
  if [ "$(git -C "$HOLA_ROOT" rev-parse --show-toplevel 2>/dev/null)" = "$(cd "$HOLA_ROOT" && pwd -P)" ]; then
    git -C "$HOLA_ROOT" rev-parse HEAD
    return
  fi
  cat "$HOLA_ROOT/../commit" 2>/dev/null || echo unknown
}

# The device scripts' output folder: OUT (default ./device-out), created.
use_out_dir() {
  OUT="${OUT:-$HOLA_ROOT/device-out}"
  mkdir -p "$OUT"
}

# The start of the device stages that log into LOGS/NAME.txt (device-graph.sh, device-spmspv.sh):
#   device_stage_start NAME
# goes to HOLA_ROOT and sets LOGS (default ./device-out, created), BUILD (HOLA_BUILD, default
# ./build-device), TXT (LOGS/NAME.txt, emptied), start and log (prints a line with the seconds
# since start and adds it to TXT) and HOLA_COMMIT (exported); exits 1 when BUILD was not
# configured (scripts/device-check.sh build).
device_stage_start() {
  cd "$HOLA_ROOT" || exit 1
  LOGS="${LOGS:-$HOLA_ROOT/device-out}"
  mkdir -p "$LOGS"
  BUILD="${HOLA_BUILD:-$HOLA_ROOT/build-device}"
  TXT="$LOGS/$1.txt"
  : > "$TXT"
  start=$(date +%s)
  log() { echo "[$(( $(date +%s) - start )) s] $*" | tee -a "$TXT"; }
  HOLA_COMMIT="$(hola_commit)"
  export HOLA_COMMIT
  if [ ! -f "$BUILD/CMakeCache.txt" ]; then
    log "no $BUILD: run scripts/device-check.sh build first"
    exit 1
  fi
}
