#!/usr/bin/env bash
# The HYPRE stage of the device check (scripts/device-check.sh hypre), or on its own on a machine
# with a GPU:  OUT=<folder> scripts/device-hypre.sh
# 1. unpacks HYPRE's src/ from .carry/hypre-src.tar.xz (scripts/fetch-hypre-src.sh makes it) and
#    builds HYPRE with CUDA for the GPU found (shared, MPI on, Umpire off) into WORK/install;
# 2. builds Hola's HYPRE adapter (libholahypre), hypre_adapter_test and hypre_krylov against it
#    in WORK/hola (Hola with CUDA: the adapter's device path);
# 3. runs hypre_krylov on 3D Poisson (-n $HYPRE_N, default 100) with PCG, GMRES and BiCGSTAB, with
#    and without BoomerAMG, each with HYPRE's own matvec and with Hola's (--mode compare); HYPRE's
#    CUDA build keeps matrices and vectors in device memory by default (HYPRE_MEMORY_DEVICE);
# 4. runs the HYPRE ctest cases (hypre_adapter_np1/2/4, hypre_krylov_demo_np2);
# 5. when nsys is there, traces one Hola solve and lists its kernels and memory copies.
# Each device command may run 10 minutes: the builds stop cleanly when HYPRE_TIME_BUDGET seconds
# (default 540, counted from this script's start) are spent, and the script exits 3; run it again
# (the same WORK folder) and it resumes where ninja stopped. Steps already done are skipped
# (stamps in WORK). Exit status: 0 all done and equal iteration counts, 1 a failure, 3 not
# finished within the budget (run again).
# Writes into OUT: hypre-build.log, hypre-hola-build.log, hypre-tests.log, hypre-krylov-*.log,
# hypre-results.csv (one line per solve), hypre-summary.txt (times, GPU, commit), hypre-nsys-*.txt.
# Environment: OUT, HOLA_ROOT, JOBS (env.sh), HYPRE_SRC_TAR (default .carry/hypre-src.tar.xz),
# HYPRE_WORK (default build-hypre: git-ignored, kept between consecutive device commands),
# HYPRE_CUDA_PREFIX (default WORK/install), HYPRE_TIME_BUDGET, HYPRE_N, HYPRE_NP (ranks of the
# solves, default 1), HYPRE_RUN_TIMEOUT (seconds per hypre_krylov process, default 240),
# HYPRE_KRYLOV_ARGS (more hypre_krylov arguments), HYPRE_EXTRA_CMAKE (more HYPRE CMake options,
# e.g. -DHYPRE_ENABLE_CURAND=OFF where a library is missing), HYPRE_RUN_MIN (seconds the solves
# need after the builds, default 200), HOLA_COMMIT.
set -uo pipefail
source "$(dirname "$0")/env.sh"
cd "$HOLA_ROOT" || exit 1
T0=$(date +%s)
OUT="${OUT:-$HOLA_ROOT/device-out}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
work="${HYPRE_WORK:-$HOLA_ROOT/build-hypre}"
mkdir -p "$work"
work="$(cd "$work" && pwd)"
src_tar="${HYPRE_SRC_TAR:-$HOLA_ROOT/.carry/hypre-src.tar.xz}"
prefix="${HYPRE_CUDA_PREFIX:-$work/install}"
hola_build="$work/hola"
budget="${HYPRE_TIME_BUDGET:-540}"
n="${HYPRE_N:-100}"
np="${HYPRE_NP:-1}"
run_timeout="${HYPRE_RUN_TIMEOUT:-240}"
jobs="${JOBS:-$(nproc)}"
commit="${HOLA_COMMIT:-$(git rev-parse HEAD 2>/dev/null || cat "$HOLA_ROOT/.carry/commit" 2>/dev/null || echo unknown)}"
arch="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d .)"
arch="${arch:-90}"
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
  echo "started: $(date -u +%FT%TZ), budget $budget s, sm_$arch, $jobs jobs"
} >> "$SUMMARY"

command -v nvcc >/dev/null || { note "nvcc not found"; exit 1; }
command -v mpicc >/dev/null || { note "mpicc not found"; exit 1; }

# ---- 1. HYPRE with CUDA ----
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
  case "$prefix" in "$work"/*) rm -rf "$prefix" ;; esac
  cmake --install "$hbuild" >> "$OUT/hypre-build.log" 2>&1 || { note "HYPRE INSTALL FAILED"; exit 1; }
  echo "$hypre_key" > "$prefix/.hola-built"
fi
grep -q "define HYPRE_USING_CUDA 1" "$prefix/include/HYPRE_config.h" ||
  { note "$prefix is not a HYPRE built with CUDA"; exit 1; }
hypre_lib="$(ls "$prefix"/lib*/libHYPRE.so 2>/dev/null | head -1)"
LD_LIBRARY_PATH="$(dirname "$hypre_lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH
note "HYPRE with CUDA in $prefix (build times so far: $(grep '^hypre-' "$TIMES" | awk '{s+=$2} END {print s+0}') s over all commands)"

# ---- 2. Hola's HYPRE adapter, its test and hypre_krylov ----
if ! [ -f "$hola_build/.hola-configured" ] ||
  [ "$(cat "$hola_build/.hola-configured")" != "$hypre_key" ]; then
  timed hola-configure cmake -S . -B "$hola_build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES="$arch" -DHOLA_ENABLE_CUDA=ON \
    -DHOLA_WITH_PETSC=OFF -DHOLA_WITH_TPETRA=OFF -DHOLA_WITH_HYPRE=ON \
    -DHYPRE_ROOT="$prefix" -DCMAKE_PREFIX_PATH="$prefix" \
    -DHOLA_HYPRE_INCLUDE_DIR="$prefix/include" -DHOLA_HYPRE_LIBRARY="$hypre_lib" \
    > "$OUT/hypre-hola-build.log" 2>&1 ||
    { note "HOLA CONFIGURE FAILED"; tail -30 "$OUT/hypre-hola-build.log"; exit 1; }
  grep -q "HYPRE adapter:.*HYPRE_USING_CUDA=1" "$OUT/hypre-hola-build.log" ||
    { note "Hola did not find the CUDA HYPRE (see hypre-hola-build.log)"; exit 1; }
  echo "$hypre_key" > "$hola_build/.hola-configured"
fi
timed hola-build cmake --build "$hola_build" -j "$jobs" --target holahypre hypre_adapter_test \
  hypre_krylov >> "$OUT/hypre-hola-build.log" 2>&1
rc=$?
[ $rc -eq 124 ] || [ $rc -eq 130 ] && incomplete "Hola build"
[ $rc -eq 0 ] || { note "HOLA HYPRE BUILD FAILED"; grep -A8 -m5 "error" "$OUT/hypre-hola-build.log"; exit 1; }
note "Hola's HYPRE targets built ($(grep '^hola-' "$TIMES" | awk '{s+=$2} END {print s+0}') s over all commands)"
grep -E "^(hypre|hola)-" "$TIMES" >> "$SUMMARY"

# The solves need time: stop here rather than cut them off.
[ "$(left)" -gt "${HYPRE_RUN_MIN:-200}" ] || incomplete "the solves (builds are done)"

status=0
krylov="$hola_build/solvers_demo/hypre_krylov/hypre_krylov"
[ -x "$krylov" ] || krylov="$(find "$hola_build" -name hypre_krylov -type f -perm -u+x | head -1)"
mpi_flags=(--oversubscribe --bind-to none)
[ "$(id -u)" = 0 ] && mpi_flags+=(--allow-run-as-root)
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none OMP_NUM_THREADS=1
# hypre_krylov has no memory option unless a later version adds one (--memory device).
mem_args=()
"$krylov" --help 2>/dev/null | grep -q -- "--memory" && mem_args=(--memory device)

# ---- 3. hypre_krylov: smoke run, then the comparison ----
run_krylov() {  # name args...
  local name="$1" log="$OUT/hypre-krylov-$1.log"
  shift
  local secs=$(($(left) - 10))
  [ "$secs" -gt "$run_timeout" ] && secs="$run_timeout"
  [ "$secs" -gt 20 ] || { note "krylov $name: no time left"; status=3; return; }
  echo "mpiexec -n $np $krylov $* ${mem_args[*]} ${HYPRE_KRYLOV_ARGS:-}" > "$log"
  local t
  t=$(date +%s)
  # shellcheck disable=SC2086
  timeout --kill-after=10 "$secs" mpiexec -n "$np" "${mpi_flags[@]}" "$krylov" "$@" "${mem_args[@]}" \
    ${HYPRE_KRYLOV_ARGS:-} >> "$log" 2>&1
  local rc=$?
  note "krylov $name: exit $rc ($(($(date +%s) - t)) s)"
  [ $rc -eq 0 ] || { status=1; tail -15 "$log"; }
  grep -E "iterations|rows" "$log" | tee -a "$SUMMARY"
}
run_krylov smoke -n 12 --solver all --precond none
run_krylov smoke-amg -n 12 --solver pcg --precond amg
for precond in none amg; do
  run_krylov "n$n-$precond" -n "$n" --solver all --precond "$precond" --mode compare
done

# One line per solve: precond,solver,path,iterations,residual,setup_s,solve_s,kernel,products,fallbacks
csv="$OUT/hypre-results.csv"
echo "commit,gpu,hypre,ranks,problem,precond,solver,path,iterations,residual,setup_s,solve_s,kernel,products,fallbacks" > "$csv"
gpu="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
for precond in none amg; do
  log="$OUT/hypre-krylov-n$n-$precond.log"
  [ -f "$log" ] || continue
  # Portable awk (mawk): fields around the words of hypre_krylov's report lines.
  awk -v pre="$precond" -v c="$commit" -v g="$gpu" -v h="$tag" -v np="$np" -v n="$n" '
    /^(PCG|GMRES|FlexGMRES|BiCGSTAB)$/ { solver = $1; next }
    /^ *(native|hola) *: / {
      path = $1; sub(":", "", path)
      it = rs = su = so = k = p = f = ""
      for (i = 2; i <= NF; ++i) {
        if ($i == "iterations,") it = $(i - 1)
        if ($i == "residual") { rs = $(i + 1); sub(",", "", rs) }
        if ($i == "setup") su = $(i + 1)
        if ($i == "solve") so = $(i + 1)
        if ($i == "kernel") { k = $(i + 1); sub(",", "", k) }
        if ($i ~ /^products/) p = $(i - 1)
        if ($i ~ /^fallbacks/) f = $(i - 1)
      }
      printf "%s,%s,%s,%s,poisson3d n=%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", c, g, h, np, n, pre, solver, path, it, rs, su, so, k, p, f
    }' "$log" >> "$csv"
  grep -q "different iterations" "$log" && { note "$precond: iteration counts differ"; status=1; }
  grep -qE "[1-9][0-9]* fallbacks" "$log" && note "$precond: Hola fell back to HYPRE's matvec (see log)"
done

# ---- 4. ctest cases of the adapter (after the solves: they must not take the solves' time) ----
if [ "$(left)" -gt 60 ]; then
  timed hypre-ctest ctest --test-dir "$hola_build" -R hypre --timeout 90 --output-on-failure \
    > "$OUT/hypre-tests.log" 2>&1 || status=1
  grep -E "tests passed|Failed|\*\*\*|Skipped|Not Run" "$OUT/hypre-tests.log" | tail -12 | tee -a "$SUMMARY"
else
  note "ctest: no time left (run again)"
  status=3
fi

# ---- 5. Where the products ran: kernels and copies of one Hola solve (nsys, when present) ----
if command -v nsys >/dev/null 2>&1 && [ "$(left)" -gt 90 ]; then
  rep="$OUT/hypre-nsys"
  timeout 80 nsys profile -t cuda -o "$rep" --force-overwrite true "$krylov" -n 32 --solver pcg \
    --precond none --mode hola "${mem_args[@]}" > "$OUT/hypre-nsys-run.txt" 2>&1 &&
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
