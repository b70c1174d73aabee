#!/usr/bin/env bash
# The HYPRE stage of the device check (scripts/device-check.sh hypre), or on its own on a machine
# with a GPU:  OUT=<folder> scripts/device-hypre.sh
# 1. a HYPRE with CUDA: HYPRE_CUDA_PREFIX when set (an installed one, used as it is), else a
#    prebuilt prefix packed in HYPRE_PREBUILT_TAR when present and loadable here, else HYPRE's
#    src/ from .carry/hypre-src.tar.xz (scripts/fetch-hypre-src.sh makes it) built for the GPU
#    found (shared, MPI on, Umpire off) into WORK/install;
# 2. builds exactly Hola's HYPRE adapter (libholahypre), hypre_adapter_test, hypre_krylov and
#    hypre_matvec_calls against it in WORK/hola (Hola with CUDA: the adapter's device path);
# 3. runs hypre_krylov: a smoke run, then 3D Poisson (-n $HYPRE_N, default 100) with PCG, GMRES,
#    FlexGMRES and BiCGSTAB, without and with BoomerAMG, each $HYPRE_REPEAT times (default 3) with
#    HYPRE's own matvec and with Hola's (--mode compare); matrix and vectors in device memory
#    (hypre_krylov moves them there when HYPRE is built for GPUs);
# 3b. runs hypre_matvec_calls: microseconds per call of HYPRE's matvec and of Hola's (the PCG hook,
#    HolaHypreMatvecApply, the diagonal block's hola::Operator) on 3D Poisson (-n $HYPRE_CALLS_N,
#    default 200), $HYPRE_CALLS calls (default 1000) x 3 rounds, in device memory, on 1 rank and,
#    when HYPRE_CALLS_NP (default HYPRE_NP) is above 1, on that many ranks too;
# 4. runs the adapter's ctest cases (hypre_adapter_np1/2/4, hypre_krylov_demo_np2): on a GPU
#    machine a skipped case counts as a failure (no evidence);
# 5. when nsys is there, traces one Hola solve and lists its kernels and memory copies.
# Each device command may run 10 minutes: the builds stop cleanly when HYPRE_TIME_BUDGET seconds
# (default 540) are spent, and the script exits 3; run it again (the same WORK folder) and it
# resumes where ninja stopped. Under device-check.sh the budget counts from that script's start
# (its build stage comes first within the same 10 minutes). Steps already done are skipped (stamps
# in WORK). Exit status: 0 all done, same iteration counts and Hola's matvec used on device memory,
# 1 a failure, 3 not finished within the budget (run again).
# Writes into OUT: hypre.json (the solves: iterations, residuals, setup and solve times with HYPRE's
# matvec and with Hola's, Hola's kernel and product counts; build times; ctest result),
# hypre-summary.txt (times, GPU, commit), hypre-build.log, hypre-hola-build.log, hypre-tests.log,
# hypre-krylov-*.log and .json, hypre-matvec-calls-n<N>[-np<P>].log and .json (hypre.json's
# "matvec_calls"; the summary has their microseconds per call and Hola hook / HYPRE), hypre-nsys-*.txt.
# Environment: OUT, HOLA_ROOT, JOBS (env.sh), HYPRE_SRC_TAR (default .carry/hypre-src.tar.xz),
# HYPRE_PREBUILT_TAR (default .carry/hypre-cuda-prebuilt.tar.xz: an installed HYPRE prefix packed
# with tar -C <prefix> -cJf <file> .), HYPRE_WORK (default build-hypre: git-ignored, kept between
# consecutive device commands), HYPRE_CUDA_PREFIX, HYPRE_TIME_BUDGET, HYPRE_N, HYPRE_NP (ranks of
# the solves, default 1), HYPRE_REPEAT, HYPRE_RUN_TIMEOUT (seconds per hypre_krylov process,
# default 240), HYPRE_KRYLOV_ARGS (more hypre_krylov arguments), HYPRE_EXTRA_CMAKE (more HYPRE
# CMake options, e.g. -DHYPRE_ENABLE_CURAND=OFF where a library is missing), HYPRE_RUN_MIN (seconds
# the solves need after the builds, default 150), HYPRE_CALLS_N (grid side of hypre_matvec_calls,
# default 200: 8e6 rows), HYPRE_CALLS (timed calls per case and round, default 1000),
# HYPRE_CALLS_NP (ranks of its second run, default HYPRE_NP; 1: one run only; each run is limited
# by HYPRE_RUN_TIMEOUT too), HOLA_COMMIT.
set -uo pipefail
source "$(dirname "$0")/env.sh"
cd "$HOLA_ROOT" || exit 1
T0=$(date +%s)
# Started by device-check.sh: the 10 minutes of the device command began with that script.
since_parent=0
if tr '\0' ' ' < "/proc/$PPID/cmdline" 2>/dev/null | grep -q 'device-check\.sh'; then
  parent_start=$(sed 's/^.*) //' "/proc/$PPID/stat" 2>/dev/null | awk '{print $20}')
  uptime_s=$(awk '{print int($1)}' /proc/uptime 2>/dev/null)
  hz=$(getconf CLK_TCK 2>/dev/null || echo 100)
  if [ -n "$parent_start" ] && [ -n "$uptime_s" ]; then
    since_parent=$((uptime_s - parent_start / hz))
    [ "$since_parent" -gt 0 ] || since_parent=0
    T0=$((T0 - since_parent))
  fi
fi
use_out_dir
OUT="$(cd "$OUT" && pwd)"
work="${HYPRE_WORK:-$HOLA_ROOT/build-hypre}"
mkdir -p "$work"
work="$(cd "$work" && pwd)"
src_tar="${HYPRE_SRC_TAR:-$HOLA_ROOT/.carry/hypre-src.tar.xz}"
prebuilt_tar="${HYPRE_PREBUILT_TAR:-$HOLA_ROOT/.carry/hypre-cuda-prebuilt.tar.xz}"
hola_build="$work/hola"
budget="${HYPRE_TIME_BUDGET:-540}"
n="${HYPRE_N:-100}"
np="${HYPRE_NP:-1}"
repeat="${HYPRE_REPEAT:-3}"
run_timeout="${HYPRE_RUN_TIMEOUT:-240}"
jobs="${JOBS:-$(nproc)}"
commit="$(hola_commit)" arch="$(gpu_arch)"
SUMMARY="$OUT/hypre-summary.txt"
TIMES="$work/times.txt"  # build times over all commands (kept in WORK)
touch "$TIMES"

left() { echo $((budget - ($(date +%s) - T0))); }
note() { echo "hypre: $*" | tee -a "$SUMMARY"; }
incomplete() {
  note "$1 not finished within the budget ($budget s): run scripts/device-hypre.sh again (it resumes)"
  exit 3
}
# timed <name> <command...>: runs the command with the time left, appends its time to TIMES;
# returns 124 when it ran out of time.
timed() {
  local name="$1" t rc
  shift
  local secs
  secs="$(left)"
  [ "$secs" -gt 20 ] || return 124
  t=$(date +%s)
  timeout --signal=INT --kill-after=20 "$secs" "$@"
  rc=$?
  echo "$name $(($(date +%s) - t)) s rc $rc $(date -u +%FT%TZ)" >> "$TIMES"
  return $rc
}

{
  echo "commit: $commit"
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null
  nvcc --version 2>/dev/null | tail -1
  echo "started: $(date -u +%FT%TZ), budget $budget s ($since_parent s of it spent before this" \
    "script), sm_$arch, $jobs jobs"
} >> "$SUMMARY"

command -v nvcc >/dev/null || { note "nvcc not found"; exit 1; }
command -v mpicc >/dev/null || { note "mpicc not found"; exit 1; }
# HYPRE's installed library finds the CUDA libraries on the default search path only ($ORIGIN
# runpath): add the toolkit's, where the system does not list it.
cuda_root="$(dirname "$(dirname "$(command -v nvcc)")")"
for d in "$cuda_root/lib64" "$cuda_root/lib"; do
  [ -d "$d" ] && LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$d"
done
export LD_LIBRARY_PATH

# ---- 1. HYPRE with CUDA ----
# usable_hypre <prefix>: a HYPRE built with CUDA whose library loads here (prints why not).
usable_hypre() {
  local lib
  lib="$(ls "$1"/lib*/libHYPRE.so 2>/dev/null | head -1)"
  [ -n "$lib" ] || { echo "no lib/libHYPRE.so in $1"; return 1; }
  grep -q "define HYPRE_USING_CUDA 1" "$1/include/HYPRE_config.h" 2>/dev/null ||
    { echo "$1 is not a HYPRE built with CUDA"; return 1; }
  # The listings are read whole before grep: `grep -q` stops at the first match, and under
  # pipefail the writer's SIGPIPE would turn a match into a failure.
  local listing
  listing="$(ldd "$lib" 2>/dev/null)"
  if grep -q "not found" <<< "$listing"; then
    echo "libraries of $lib missing here: $(grep "not found" <<< "$listing" | awk '{print $1}' | xargs)"
    return 1
  fi
  if command -v cuobjdump >/dev/null 2>&1 &&
    ! grep -q "sm_$arch" <<< "$(cuobjdump --list-elf "$lib" 2>/dev/null)"; then
    echo "$lib has no code for sm_$arch"
    return 1
  fi
  return 0
}

hypre_from=""
if [ -n "${HYPRE_CUDA_PREFIX:-}" ]; then
  # An installed HYPRE, used as it is (never built or removed here).
  prefix="$HYPRE_CUDA_PREFIX"
  why="$(usable_hypre "$prefix")" || { note "HYPRE_CUDA_PREFIX: $why"; exit 1; }
  hypre_from="installed ($prefix)"
elif [ -f "$prebuilt_tar" ]; then
  # A prebuilt prefix (same CMake options as below, built elsewhere): no 30-minute build when its
  # libraries load here; otherwise the build from source below.
  prefix="$work/prebuilt"
  tar_id="$(stat -c '%s %Y' "$prebuilt_tar")"
  if [ "$(cat "$prefix/.hola-unpacked" 2>/dev/null)" != "$tar_id" ]; then
    rm -rf "$prefix"
    mkdir -p "$prefix"
    tar -xJf "$prebuilt_tar" -C "$prefix" && echo "$tar_id" > "$prefix/.hola-unpacked"
  fi
  if why="$(usable_hypre "$prefix")"; then
    hypre_from="prebuilt ($(basename "$prebuilt_tar"))"
  else
    note "prebuilt HYPRE not usable ($why): building from source"
  fi
fi

if [ -z "$hypre_from" ]; then
  prefix="$work/install"
  [ -f "$src_tar" ] || { note "no $src_tar (scripts/fetch-hypre-src.sh makes it)"; exit 1; }
  src="$work/hypre-src"
  tar_id="$(stat -c '%s %Y' "$src_tar")"
  if [ "$(cat "$src/.hola-unpacked" 2>/dev/null)" != "$tar_id" ]; then
    rm -rf "$src" "$work/hypre-build" "$prefix"
    mkdir -p "$src"
    tar -xJf "$src_tar" -C "$src" --strip-components=1 || { note "cannot unpack $src_tar"; exit 1; }
    echo "$tar_id" > "$src/.hola-unpacked"
  fi
  tag="$(cat "$src/TAG" 2>/dev/null || echo unknown)"
  note "HYPRE source: $tag"

  # shellcheck disable=SC2206 # HYPRE_EXTRA_CMAKE: words on purpose
  hypre_options=(
    -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_LIBDIR=lib
    -DCMAKE_C_COMPILER=mpicc -DCMAKE_CXX_COMPILER=mpicxx -DCMAKE_CUDA_COMPILER="$(command -v nvcc)"
    -DBUILD_SHARED_LIBS=ON -DHYPRE_ENABLE_MPI=ON -DHYPRE_ENABLE_CUDA=ON
    -DCMAKE_CUDA_ARCHITECTURES="$arch"
    # Umpire is not carried (HYPRE 3.x enables it by default for GPU builds and wants to download it).
    -DHYPRE_ENABLE_UMPIRE=OFF
    # Open MPI on the device has no CUDA support: HYPRE stages its exchanges through the host.
    -DHYPRE_ENABLE_GPU_AWARE_MPI=OFF
    -DHYPRE_BUILD_TESTS=OFF -DHYPRE_BUILD_EXAMPLES=OFF
    ${HYPRE_EXTRA_CMAKE:-}
  )
  hypre_key="$tag sm_$arch ${hypre_options[*]}"
  hbuild="$work/hypre-build"
  if [ "$(cat "$prefix/.hola-built" 2>/dev/null)" != "$hypre_key" ]; then
    if [ "$(cat "$hbuild/.hola-configured" 2>/dev/null)" != "$hypre_key" ]; then
      rm -rf "$hbuild"
      timed hypre-configure cmake -S "$src/src" -B "$hbuild" "${hypre_options[@]}" \
        >> "$OUT/hypre-build.log" 2>&1 ||
        { note "HYPRE CONFIGURE FAILED"; tail -30 "$OUT/hypre-build.log"; exit 1; }
      echo "$hypre_key" > "$hbuild/.hola-configured"
    fi
    timed hypre-build cmake --build "$hbuild" -j "$jobs" >> "$OUT/hypre-build.log" 2>&1
    rc=$?
    [ $rc -eq 124 ] || [ $rc -eq 130 ] && incomplete "HYPRE build ($(grep -o '^\[[0-9]*/[0-9]*\]' "$OUT/hypre-build.log" | tail -1))"
    [ $rc -eq 0 ] || { note "HYPRE BUILD FAILED"; grep -B2 -A8 -m3 "error" "$OUT/hypre-build.log"; tail -20 "$OUT/hypre-build.log"; exit 1; }
    rm -rf "$prefix"
    cmake --install "$hbuild" >> "$OUT/hypre-build.log" 2>&1 || { note "HYPRE INSTALL FAILED"; exit 1; }
    echo "$hypre_key" > "$prefix/.hola-built"
  fi
  why="$(usable_hypre "$prefix")" || { note "$why"; exit 1; }
  hypre_from="built here from source $tag"
fi
hypre_lib="$(ls "$prefix"/lib*/libHYPRE.so | head -1)"
hypre_version="$(sed -n 's/^#define HYPRE_RELEASE_VERSION *"\(.*\)"/\1/p' "$prefix/include/HYPRE_config.h")"
LD_LIBRARY_PATH="$(dirname "$hypre_lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH
hypre_build_s="$(grep -E '^hypre-(configure|build) ' "$TIMES" | awk '{s+=$2} END {print s+0}')"
note "HYPRE $hypre_version with CUDA in $prefix: $hypre_from (build times so far: $hypre_build_s s over all commands)"

# ---- 2. Hola's HYPRE adapter, its test and hypre_krylov ----
hola_key="$prefix $(stat -c '%s %Y' "$hypre_lib") sm_$arch"
if ! [ -f "$hola_build/.hola-configured" ] ||
  [ "$(cat "$hola_build/.hola-configured")" != "$hola_key" ]; then
  timed hola-configure cmake -S . -B "$hola_build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES="$arch" -DHOLA_ENABLE_CUDA=ON \
    -DHOLA_WITH_PETSC=OFF -DHOLA_WITH_TPETRA=OFF -DHOLA_WITH_HYPRE=ON \
    -DHYPRE_ROOT="$prefix" -DCMAKE_PREFIX_PATH="$prefix" \
    -DHOLA_HYPRE_INCLUDE_DIR="$prefix/include" -DHOLA_HYPRE_LIBRARY="$hypre_lib" \
    > "$OUT/hypre-hola-build.log" 2>&1 ||
    { note "HOLA CONFIGURE FAILED"; tail -30 "$OUT/hypre-hola-build.log"; exit 1; }
  grep -q "HYPRE adapter:.*HYPRE_USING_CUDA=1" "$OUT/hypre-hola-build.log" ||
    { note "Hola did not find the CUDA HYPRE (see hypre-hola-build.log)"; exit 1; }
  echo "$hola_key" > "$hola_build/.hola-configured"
fi
timed hola-build cmake --build "$hola_build" -j "$jobs" --target holahypre hypre_adapter_test \
  hypre_krylov hypre_matvec_calls >> "$OUT/hypre-hola-build.log" 2>&1
rc=$?
[ $rc -eq 124 ] || [ $rc -eq 130 ] && incomplete "Hola build"
[ $rc -eq 0 ] || { note "HOLA HYPRE BUILD FAILED"; grep -A8 -m5 "error" "$OUT/hypre-hola-build.log"; exit 1; }
hola_build_s="$(grep '^hola-' "$TIMES" | awk '{s+=$2} END {print s+0}')"
note "Hola's HYPRE targets built ($hola_build_s s over all commands)"
grep -E "^(hypre|hola)-(configure|build) " "$TIMES" >> "$SUMMARY"

# The solves need time: stop here rather than cut them off.
[ "$(left)" -gt "${HYPRE_RUN_MIN:-150}" ] || incomplete "the solves (builds are done)"

status=0
krylov="$hola_build/solvers_demo/hypre_krylov/hypre_krylov"
mpi_flags=(--oversubscribe --bind-to none)
[ "$(id -u)" = 0 ] && mpi_flags+=(--allow-run-as-root)
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none OMP_NUM_THREADS=1

# ---- 3. hypre_krylov: smoke runs, then the comparison ----
run_krylov() {  # name args...
  local name="$1" log="$OUT/hypre-krylov-$1.log"
  shift
  local secs=$(($(left) - 10))
  [ "$secs" -gt "$run_timeout" ] && secs="$run_timeout"
  [ "$secs" -gt 20 ] || { note "krylov $name: no time left"; status=3; return; }
  echo "mpiexec -n $np $krylov $* ${HYPRE_KRYLOV_ARGS:-}" > "$log"
  local t
  t=$(date +%s)
  # shellcheck disable=SC2086
  timeout --kill-after=10 "$secs" mpiexec -n "$np" "${mpi_flags[@]}" "$krylov" "$@" \
    ${HYPRE_KRYLOV_ARGS:-} >> "$log" 2>&1
  local rc=$?
  note "krylov $name: exit $rc ($(($(date +%s) - t)) s)"
  [ $rc -eq 0 ] || { status=1; tail -15 "$log"; }
  # Evidence, not just an exit status: device memory, Hola's matvec used, same iterations.
  grep -q "device memory" "$log" || { note "krylov $name: not on device memory"; status=1; }
  grep -q "Hola's matvec not used" "$log" && { note "krylov $name: Hola's matvec not used"; status=1; }
  grep -q "different iterations" "$log" && { note "krylov $name: iteration counts differ"; status=1; }
  grep -E "iterations|rows" "$log" | tee -a "$SUMMARY"
}
run_krylov smoke -n 12 --solver all --precond none
run_krylov smoke-amg -n 12 --solver pcg --precond amg
for precond in none amg; do
  rm -f "$OUT/hypre-krylov-n$n-$precond.json"
  run_krylov "n$n-$precond" -n "$n" --solver all --precond "$precond" --mode compare \
    --repeat "$repeat" --json "$OUT/hypre-krylov-n$n-$precond.json"
done

# ---- 3b. hypre_matvec_calls: microseconds per product, HYPRE's matvec and Hola's ----
calls_bin="$hola_build/solvers_demo/hypre_krylov/hypre_matvec_calls"
calls_n="${HYPRE_CALLS_N:-200}"
calls="${HYPRE_CALLS:-1000}"
calls_np="${HYPRE_CALLS_NP:-$np}"
calls_files=()  # the result JSON of each run (hypre.json's "matvec_calls")
# calls_json <file> entry|line: the run's result with the ratios Hola hook / HYPRE added (entry),
# or one summary line of its microseconds per call (line). Needs python3.
calls_json() {
  python3 - "$1" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
ratios = {}
for b in ("beta0", "beta1"):
    hypre, hook = r.get("hypre_%s_us" % b), r.get("hook_%s_us" % b)
    ratios[b] = round(hook / hypre, 4) if hypre and hook else None
if sys.argv[2] == "entry":
    r["hook_over_hypre_beta0"] = ratios["beta0"]
    r["hook_over_hypre_beta1"] = ratios["beta1"]
    print(json.dumps(r, indent=1))
else:
    parts = []
    for b, label in (("beta0", "beta 0"), ("beta1", "beta 1")):
        us = " ".join("%s %.1f" % (k, r["%s_%s_us" % (k, b)]) for k in ("hypre", "hook", "apply", "local")
                      if "%s_%s_us" % (k, b) in r)
        ratio = "%.3f" % ratios[b] if ratios[b] is not None else "-"
        parts.append("%s: %s; hook/hypre %s" % (label, us, ratio))
    print("hypre: matvec calls %s, %s rank(s), %s memory%s, us/call (median) %s%s" % (
        r.get("problem"), r.get("ranks"), r.get("memory"),
        " (%s)" % r["gpu"] if r.get("gpu") else "", " | ".join(parts),
        "" if r.get("ok") else " [NOT OK]"))
PY
}
run_calls() {  # ranks
  local ranks="$1" tag="n$calls_n"
  [ "$ranks" -gt 1 ] && tag="$tag-np$ranks"
  local log="$OUT/hypre-matvec-calls-$tag.log" json="$OUT/hypre-matvec-calls-$tag.json"
  rm -f "$json"
  local secs=$(($(left) - 10))
  [ "$secs" -gt "$run_timeout" ] && secs="$run_timeout"
  [ "$secs" -gt 20 ] || { note "matvec calls $tag: no time left"; status=3; return; }
  local args=(-n "$calls_n" --calls "$calls" --rounds 3 --output "$json")
  echo "mpiexec -n $ranks $calls_bin ${args[*]}" > "$log"
  local t
  t=$(date +%s)
  timeout --kill-after=10 "$secs" mpiexec -n "$ranks" "${mpi_flags[@]}" "$calls_bin" "${args[@]}" \
    >> "$log" 2>&1
  local rc=$?
  note "matvec calls $tag: exit $rc ($(($(date +%s) - t)) s)"
  case $rc in
    0) ;;
    124 | 137) note "matvec calls $tag: stopped after $secs s (HYPRE_RUN_TIMEOUT, time left)"; status=1 ;;
    77) note "matvec calls $tag: skipped on the GPU machine ($(grep -m1 SKIPPED "$log"))"; status=1 ;;
    *) status=1; tail -15 "$log" ;;
  esac
  # Evidence: device memory, Hola's products equal to HYPRE's, no analysis during the timing.
  [ $rc -eq 0 ] && ! grep -q "device memory" "$log" && { note "matvec calls $tag: not on device memory"; status=1; }
  grep -E "^hypre_matvec_calls:|^analyses|^beta|^[01] |^Hola hook" "$log" | tee -a "$SUMMARY"
  if [ -s "$json" ]; then
    calls_files+=("$json")
    command -v python3 >/dev/null 2>&1 && calls_json "$json" line | tee -a "$SUMMARY"
  elif [ $rc -eq 0 ]; then
    note "matvec calls $tag: no $json"
    status=1
  fi
}
run_calls 1
[ "$calls_np" -gt 1 ] && run_calls "$calls_np"

# ---- 4. ctest cases of the adapter (after the solves: they must not take the solves' time) ----
ctest_result="not run (no time left)"
if [ "$(left)" -gt 60 ]; then
  timed hypre-ctest ctest --test-dir "$hola_build" -R '^hypre_(adapter_np|krylov_demo)' \
    --output-on-failure > "$OUT/hypre-tests.log" 2>&1 || status=1
  grep -E "tests passed|Failed|\*\*\*|Skipped|Not Run" "$OUT/hypre-tests.log" | tail -12 | tee -a "$SUMMARY"
  ctest_result="$(grep -E "tests passed" "$OUT/hypre-tests.log" | tail -1)"
  # On a GPU machine a skipped case means the device path was not checked.
  if grep -qE "\(Skipped\)|Not Run" "$OUT/hypre-tests.log"; then
    note "ctest: cases skipped on the GPU machine (see hypre-tests.log)"
    ctest_result="$ctest_result; some skipped"
    status=1
  fi
else
  note "ctest: no time left (run again)"
  status=3
fi

# hypre.json: this run's setting, every comparison solve (hypre_krylov --json) and the
# hypre_matvec_calls results (--output).
gpu="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
{
  printf '{"commit": "%s", "gpu": "%s", "hypre": "%s", "hypre_from": "%s", "ranks": %s,\n' \
    "$commit" "$gpu" "$hypre_version" "$hypre_from" "$np"
  printf ' "build_s": {"hypre": %s, "hola_hypre_targets": %s},\n' "$hypre_build_s" "$hola_build_s"
  printf ' "ctest": "%s",\n "runs": [\n' "${ctest_result//\"/}"
  sep=""
  for precond in none amg; do
    f="$OUT/hypre-krylov-n$n-$precond.json"
    [ -s "$f" ] || continue
    printf '%s' "$sep"
    cat "$f"
    sep=","
  done
  printf '],\n "matvec_calls": ['
  sep=""
  for f in ${calls_files[@]+"${calls_files[@]}"}; do
    printf '%s\n' "$sep"
    # With python3, the result plus the ratios Hola hook / HYPRE; else the result as it is.
    if command -v python3 >/dev/null 2>&1; then calls_json "$f" entry || cat "$f"; else cat "$f"; fi
    sep=","
  done
  printf ']}\n'
} > "$OUT/hypre.json"
if command -v python3 >/dev/null 2>&1; then
  python3 -m json.tool "$OUT/hypre.json" > /dev/null 2>&1 || { note "hypre.json is not valid JSON"; status=1; }
fi
if ! [ -s "$OUT/hypre-krylov-n$n-none.json" ] || ! [ -s "$OUT/hypre-krylov-n$n-amg.json" ]; then
  note "hypre.json lacks a comparison run (see hypre-krylov-n$n-*.log)"
  [ $status -eq 0 ] && status=1
fi

# ---- 5. Where the products ran: kernels and copies of one Hola solve (nsys, when present) ----
if command -v nsys >/dev/null 2>&1 && [ "$(left)" -gt 130 ]; then
  rep="$OUT/hypre-nsys"
  timeout 80 nsys profile -t cuda -o "$rep" --force-overwrite true "$krylov" -n 32 --solver pcg \
    --precond none --mode hola > "$OUT/hypre-nsys-run.txt" 2>&1 &&
    timeout 40 nsys stats -q -r cuda_gpu_kern_sum,cuda_gpu_mem_size_sum "$rep.nsys-rep" \
      > "$OUT/hypre-nsys-stats.txt" 2>&1
  if grep -qiE "hola" "$OUT/hypre-nsys-stats.txt" 2>/dev/null; then
    note "nsys: Hola kernels ran on the GPU (hypre-nsys-stats.txt)"
  else
    note "nsys: no Hola kernel in the trace (hypre-nsys-stats.txt, hypre-nsys-run.txt)"
  fi
  rm -f "$rep.sqlite"
fi

note "done in $(($(date +%s) - T0)) s, exit $status"
exit $status
