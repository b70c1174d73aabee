#!/usr/bin/env bash
# GPU BFS and PageRank of issue 17 on the device machine (docs/spmspv.md), after
# `scripts/device-check.sh build` made build-device/:
#   scripts/device-graph.sh
# 1. builds graph_gpu_test, hola-bfs and hola-pagerank in build-device with all cores (with
#    SuiteSparse:GraphBLAS when found, or unpacked from .carry/graphblas/*.deb),
# 2. runs graph_gpu_test (GPU BFS / PageRank against the host versions),
# 3. hola-bfs --backend gpu on Kronecker graphs of scale 16..21 (edge factor 16, 16 roots, every
#    root validated) with the dense cuSPARSE SpMV-per-level baseline and GraphBLAS on all cores,
#    plus one directed graph,
# 4. hola-pagerank --backend gpu on Kronecker scale 20 and 21 (double; float on 21) and on the
#    real matrices in $HOLA_MATRICES_DIR (if any), with GraphBLAS when available.
# Results: ${LOGS:-device-out}/graph-*.json and graph.txt (everything printed). Exit code 1 when a
# test or a validation failed. Environment: LOGS, HOLA_BUILD, HOLA_MATRICES_DIR, HOLA_COMMIT,
# GRAPH_MAX_SCALE (default 21).
set -uo pipefail
source "$(dirname "$0")/env.sh"
device_stage_start graph
if [ -z "${HOLA_MATRICES_DIR:-}" ]; then
  for d in "$HOLA_ROOT/.carry/matrices" "$HOLA_ROOT/../matrices" "$HOLA_ROOT/../shared/matrices"; do
    [ -d "$d" ] && { HOLA_MATRICES_DIR="$(cd "$d" && pwd)"; break; }
  done
fi
status=0
run() {  # run TIMEOUT_S command...: output to graph.txt, failure noted
  local t="$1"; shift
  log "\$ $*"
  timeout "$t" "$@" 2>&1 | tee -a "$TXT"
  local rc=${PIPESTATUS[0]}
  [ "$rc" -eq 0 ] || { log "FAILED (exit $rc): $*"; status=1; }
}

# GraphBLAS: the system's, else the Debian packages carried in .carry/graphblas.
if ! grep -q '^GraphBLAS_LIBRARY:FILEPATH=/' "$BUILD/CMakeCache.txt"; then
  debs=("$HOLA_ROOT"/.carry/graphblas/*.deb)
  if [ -f "${debs[0]}" ] && command -v dpkg >/dev/null; then
    root="$BUILD/graphblas-root"
    mkdir -p "$root"
    for deb in "${debs[@]}"; do dpkg -x "$deb" "$root"; done
    log "GraphBLAS unpacked from .carry/graphblas into $root"
    cmake -S "$HOLA_ROOT" -B "$BUILD" -DGraphBLAS_ROOT="$root" -UGraphBLAS_INCLUDE_DIR \
      -UGraphBLAS_LIBRARY >> "$TXT" 2>&1
  fi
fi
log "build: graph_gpu_test hola-bfs hola-pagerank (-j $JOBS)"
if ! cmake --build "$BUILD" -j "$JOBS" --target graph_gpu_test hola-bfs hola-pagerank \
    > "$LOGS/graph-build.log" 2>&1; then
  tail -40 "$LOGS/graph-build.log" | tee -a "$TXT"
  log "build FAILED"
  exit 1
fi
GRB=()
if grep -q '^GraphBLAS_LIBRARY:FILEPATH=/' "$BUILD/CMakeCache.txt"; then
  GRB=(--graphblas --graphblas-threads "$JOBS")
  export OMP_NUM_THREADS="$JOBS"
  log "GraphBLAS baseline on $JOBS threads"
else
  log "GraphBLAS not found: no GraphBLAS baseline"
fi
BFS="$BUILD/solvers_demo/graph/hola-bfs"
PR="$BUILD/solvers_demo/graph/hola-pagerank"
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv 2>&1 | tee -a "$TXT"

run 180 "$BUILD/tests/graph_gpu_test"

MAX="${GRAPH_MAX_SCALE:-21}"
for s in $(seq 16 "$MAX"); do
  run 150 "$BFS" --backend gpu --kronecker "$s" --edge-factor 16 --roots 16 --baseline cusparse \
    "${GRB[@]}" --output "$LOGS/graph-bfs-kron$s.json"
done
run 60 "$BFS" --backend gpu --kronecker 18 --edge-factor 16 --roots 16 --directed \
  --baseline cusparse --output "$LOGS/graph-bfs-kron18-directed.json"
for s in 20 "$MAX"; do
  [ "$s" -le "$MAX" ] || continue
  run 150 "$PR" --backend gpu --kronecker "$s" --edge-factor 16 --undirected "${GRB[@]}" \
    --output "$LOGS/graph-pagerank-kron$s.json"
done
run 90 "$PR" --backend gpu --precision float --kronecker "$MAX" --edge-factor 16 --undirected \
  --output "$LOGS/graph-pagerank-kron$MAX-float.json"
if [ -n "${HOLA_MATRICES_DIR:-}" ] && [ -d "$HOLA_MATRICES_DIR" ]; then
  for f in "$HOLA_MATRICES_DIR"/*.mtx; do
    [ -f "$f" ] || continue
    name="$(basename "$f" .mtx)"
    # Rectangular matrices are refused with a clear error (not counted as failures).
    if head -c 4096 "$f" | grep -v '^%' | head -1 | awk '{exit !($1 == $2)}'; then
      run 60 "$PR" --backend gpu --matrix "$f" "${GRB[@]}" --output "$LOGS/graph-pagerank-$name.json"
      run 60 "$BFS" --backend gpu --matrix "$f" --directed --roots 16 --baseline cusparse \
        --output "$LOGS/graph-bfs-$name.json"
    else
      log "skip $name: not square"
    fi
  done
fi
log "done (status $status); results in $LOGS/graph-*.json, log in $TXT"
exit "$status"
