#!/usr/bin/env bash
# Nsight Compute counters of the products, one matrix per family (issue 16), on the device
# machine after `scripts/device-check.sh build` (stage `profile` of scripts/device-check.sh):
#   scripts/device-profile.sh
# For every case (PROFILE_CASES: "matrix-spec precision" pairs; default one matrix per generated
# family of the anchors, double) and every kernel of PROFILE_KERNELS (default: auto and cusparse)
# and op of PROFILE_OPS (default: N T), ncu profiles every kernel launch of one hola-bench run
# (warm-up product + one timed product, no reference check); for `auto`, the kernel that a plain
# run (no ncu) of auto chose, by its name. bench/ncu_summary.py keeps the
# launches of the last product (the sequence of kernel names that repeats at the end) and writes
# the table: time, DRAM bytes against the floor's, DRAM / L2 / SM throughput, L2 hit rate,
# global-load sectors per request, achieved and theoretical occupancy, registers.
# Results in ${LOGS:-device-out}: ncu.csv (raw, one "== case" line before each run's rows),
# ncu.err, profile.txt (progress and the table), profile.json (the table).
# ncu runs with --clock-control none (the device README: leave the clocks alone). No new run
# starts after PROFILE_BUDGET_S seconds (default 480).
set -uo pipefail
source "$(dirname "$0")/env.sh"
device_stage_start profile

log "build: hola-bench (-j $JOBS)"
cmake "$BUILD" > "$LOGS/profile-build.log" 2>&1
if ! cmake --build "$BUILD" -j "$JOBS" --target hola-bench >> "$LOGS/profile-build.log" 2>&1; then
  log "build FAILED"
  tail -30 "$LOGS/profile-build.log" | tee -a "$TXT"
  exit 1
fi
bench="$BUILD/solvers_demo/hola-bench"
command -v ncu > /dev/null || { log "ncu not found"; exit 1; }

# One matrix per family: the anchors' generated matrices, Poisson 2D, elasticity and power-law
# rows (docs/architecture.md, "Anchors").
default_cases="poisson3d:n=200|double stencil27:n=128|double elasticity:n=64|double
poisson2d:n=2000|double banded:sigma=1000|double random:per_row=22|double
rmat:scale=21,ef=16|double powerlaw:rows=2000000,mean=16,tail=1.5|double circuit|double
poisson3d:n=200|float stencil27:n=128|float"
read -r -a cases <<< "$(echo "${PROFILE_CASES:-$default_cases}" | tr '\n' ' ')"
read -r -a kernels <<< "${PROFILE_KERNELS:-auto cusparse}"
read -r -a ops <<< "${PROFILE_OPS:-N T}"
budget="${PROFILE_BUDGET_S:-480}"

metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
metrics+=,dram__throughput.avg.pct_of_peak_sustained_elapsed
metrics+=,lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct
metrics+=,sm__throughput.avg.pct_of_peak_sustained_elapsed
metrics+=,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
metrics+=,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
metrics+=,lts__t_sectors_op_red.sum,lts__t_sectors_op_atom.sum
metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active
metrics+=,sm__maximum_warps_per_active_cycle_pct,launch__registers_per_thread
metrics+=,smsp__inst_executed.sum

csv="$LOGS/ncu.csv"
: > "$csv"
: > "$LOGS/ncu.err"
skipped=0
for c in "${cases[@]}"; do
  spec="${c%|*}" precision="${c#*|}"
  for kernel in "${kernels[@]}"; do
    for op in "${ops[@]}"; do
      if [ $(( $(date +%s) - start )) -ge "$budget" ]; then
        skipped=$((skipped + 1))
        continue
      fi
      # auto's check times its first products with events, which under ncu time ncu's
      # replays: a plain run says which kernel auto runs, and that kernel is profiled by name
      # (the header's fifth word marks it as auto's pick for bench/ncu_summary.py). What auto
      # wraps around its pick is not carried over: among the default cases R-MAT has half its
      # rows empty, which auto leaves out (OperatorOptions::compress_empty_rows), so there the
      # pick is profiled on the whole matrix.
      profiled="$kernel" mark=""
      if [ "$kernel" = auto ]; then
        pick_json="$LOGS/pick-$(echo "$spec-$precision-$op" | tr ':=,|' '____').json"
        timeout 150 "$bench" -m "$spec" -p "$precision" --op "$op" -k auto --reps 5 --warmup 2 \
          --no-check --no-progress --json "$pick_json" > /dev/null 2>> "$LOGS/ncu.err"
        chose="$(python3 -c 'import json, re, sys
rows = [r for r in json.load(open(sys.argv[1]))["results"] if r["kernel"] == "auto"]
m = re.search(r"chose ([A-Za-z0-9_-]+)", rows[0]["note"]) if rows else None
print(m.group(1) if m else "")' "$pick_json" 2>> "$LOGS/ncu.err")"
        if [ -n "$chose" ]; then
          profiled="$chose" mark=" auto"
          log "$spec $precision auto $op: a plain run chose $chose"
        fi
      fi
      echo "== $spec $precision $profiled $op$mark" >> "$csv"
      # hola-bench's JSON of this run gives the summary the matrix's size (for the floor's
      # bytes); its times, taken under ncu, are not used.
      timeout 150 ncu --clock-control none --csv --metrics "$metrics" \
        "$bench" -m "$spec" -p "$precision" --op "$op" -k "$profiled" --reps 1 --warmup 1 \
        --no-check --json "$LOGS/profile-$(echo "$spec-$precision-$profiled-$op" | tr ':=,|' '____').json" \
        >> "$csv" 2>> "$LOGS/ncu.err"
      log "$spec $precision $profiled $op: exit $?"
    done
  done
done
[ "$skipped" -eq 0 ] || log "$skipped runs not started: PROFILE_BUDGET_S=$budget reached"

python3 "$HOLA_ROOT/bench/ncu_summary.py" "$csv" --bench-json-dir "$LOGS" \
  --json "$LOGS/profile.json" --meta "commit=$HOLA_COMMIT" \
  --meta "device=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" \
  --meta "ncu=$(ncu --version | tail -1)" | tee -a "$TXT"
status=${PIPESTATUS[0]}
log "done, exit $status"
exit "$status"
