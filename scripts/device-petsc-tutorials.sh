#!/usr/bin/env bash
# Wall time of PETSc's own tutorials, unmodified, with holaaijcusparse against aijcusparse (stage
# `tutorials` of scripts/device-check.sh, or on its own on a machine with a GPU):
#   OUT=<folder> scripts/device-petsc-tutorials.sh
# 1. PETSc 3.26.1 with CUDA (scripts/build-petsc-cuda.sh; nothing to do when PETSC_CUDA_PREFIX
#    already holds it), 2. Hola's libholapetsc and petsc_matmult_calls against it in
#    HOLA_PETSC_BUILD, 3. PETSc's tutorials ksp ex45, ksp ex2 and snes ex19 compiled from PETSc's
#    source as they are, 4. each case with both matrix types, TUTORIAL_REPEATS times, alternating
#    the order of the types; the Hola type is switched on with -dll_append libholapetsc.so alone:
#      ex45_cg_jacobi  ex45 (3D Laplacian, DMDA) N^3, CG + Jacobi
#      ex45_cg_gamg    the same with GAMG
#      ex2_bicg        ex2 (2D Laplacian) M x M, BiCG without preconditioner, EX2_ITS iterations
#      ex2_lsqr        the same with LSQR
#      ex19_snes       snes ex19 (driven cavity, 4 fields) -da_refine R, Newton + GMRES + Jacobi
#      ex45_np2        ex45_cg_jacobi on 2 MPI ranks sharing one GPU
#      ex45_np2_2gpu   the same on 2 GPUs (only where nvidia-smi lists two or more)
#      per_call_nN     solvers_demo/petsc_matmult_calls -n N: microseconds per MatMult,
#                      MatMultAdd, MatMultTranspose, MatMultTransposeAdd (N = 22: 10^4 rows,
#                      215: 10^7 rows)
#    Runs use -log_view :file (no -log_view_gpu_time: it synchronises), -use_gpu_aware_mpi 0 and
#    -ksp_converged_reason / -snes_converged_reason; the wall time of each process is measured.
# 5. bench/petsc_logview.py reads the logs: OUT/tutorials.json (commands, every run, medians,
#    ratios Hola / baseline, same iterations or not, targets) and OUT/tutorials.txt (table); the
#    logs are in OUT/tutorials/. Exit 1 when a build or a run failed or iteration counts differ,
#    3 when TUTORIAL_BUDGET_S ran out before all runs (the summary covers what ran). The targets
#    (never slower than aijcusparse in wall time, ex45 CG + Jacobi KSPSolve <= 0.90x, MatMult per
#    call <= 0.75x) are reported, not enforced.
# Environment: OUT, PETSC_CUDA_PREFIX (default /tmp/petsc-cuda), HOLA_PETSC_BUILD (default
# build-device-petsc), HOLA_COMMIT; TUTORIAL_TYPES (Hola type first, then the baseline; default
# "holaaijcusparse aijcusparse"), TUTORIAL_VEC (cuda; "standard" for CPU types), TUTORIAL_REPEATS
# (3), TUTORIAL_CASES (names above, or "per_call"; default all), TUTORIAL_N (200),
# TUTORIAL_EX2_N (2000), TUTORIAL_EX2_ITS (2000), TUTORIAL_EX19_REFINE (7), TUTORIAL_PER_CALL_N
# ("22 215"), TUTORIAL_PER_CALL_CALLS (1000), TUTORIAL_GPUS (default: nvidia-smi -L | wc -l),
# TUTORIAL_HOLA_ARGS (added to Hola runs; default -mat_hola_view), TUTORIAL_TIMEOUT (per run,
# 180 s), TUTORIAL_BUDGET_S (no new run after this many seconds of the script, default 420),
# TUTORIAL_OMP_THREADS (OMP_NUM_THREADS of every run, default 1).
# Without a GPU (checks the script, the parser and the JSON with CPU types):
#   TUTORIAL_TYPES="holaaij aij" TUTORIAL_VEC=standard TUTORIAL_N=40 ... and
#   TUTORIAL_PETSC_PKGCONFIG=<dir of PETSc.pc> (skips the PETSc build), TUTORIAL_PETSC_SRC=<PETSc
#   source tree> (default: PETSC_BUILD_DIR or PETSC_CUDA_PREFIX-build, where build-petsc-cuda.sh
#   unpacks it, else the three files from the sdist PETSC_SDIST).
set -uo pipefail
source "$(dirname "$0")/env.sh"
cd "$HOLA_ROOT" || exit 1
use_out_dir
OUT="$(cd "$OUT" && pwd)"
rm -f "$OUT/tutorials.json" "$OUT/tutorials.txt"
prefix="${PETSC_CUDA_PREFIX:-/tmp/petsc-cuda}"
build="${HOLA_PETSC_BUILD:-$HOLA_ROOT/build-device-petsc}"
commit="$(hola_commit)" arch="$(gpu_arch)"
read -r -a types <<< "${TUTORIAL_TYPES:-holaaijcusparse aijcusparse}"
vec="${TUTORIAL_VEC:-cuda}"
repeats="${TUTORIAL_REPEATS:-3}"
n="${TUTORIAL_N:-200}"
ex2_n="${TUTORIAL_EX2_N:-2000}"
ex2_its="${TUTORIAL_EX2_ITS:-2000}"
refine="${TUTORIAL_EX19_REFINE:-7}"
read -r -a per_call_n <<< "${TUTORIAL_PER_CALL_N:-22 215}"
per_call_calls="${TUTORIAL_PER_CALL_CALLS:-1000}"
read -r -a hola_args <<< "${TUTORIAL_HOLA_ARGS--mat_hola_view}"
run_timeout="${TUTORIAL_TIMEOUT:-180}"
budget="${TUTORIAL_BUDGET_S:-420}"
ngpu="${TUTORIAL_GPUS:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')}"
[ ${#types[@]} -eq 2 ] || { echo "TUTORIAL_TYPES must name two types (Hola's, then the baseline)"; exit 1; }
t0=$(date +%s)
elapsed() { echo "$(($(date +%s) - t0))"; }
say() { echo "tutorials [$(elapsed) s] $*"; }

# 1. PETSc (with CUDA unless TUTORIAL_PETSC_PKGCONFIG names another one).
if [ -n "${TUTORIAL_PETSC_PKGCONFIG:-}" ]; then
  pcdir="$TUTORIAL_PETSC_PKGCONFIG"
else
  PETSC_CUDA_ARCH="$arch" "$HOLA_ROOT/scripts/build-petsc-cuda.sh" "$prefix" > "$OUT/tutorials-petsc-build.log" 2>&1 ||
    { echo "PETSC BUILD FAILED"; tail -30 "$OUT/tutorials-petsc-build.log"; exit 1; }
  pcdir="$prefix/lib/pkgconfig"
fi
export PKG_CONFIG_PATH="$pcdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
pc=PETSc
pkg-config --exists PETSc || pc=petsc
pkg-config --exists "$pc" || { echo "no PETSc.pc in $pcdir"; exit 1; }
petsc_libdir="$(pkg-config --variable=libdir "$pc")"
export LD_LIBRARY_PATH="$petsc_libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
say "PETSc $(pkg-config --modversion "$pc") in $(pkg-config --variable=prefix "$pc")"

# 2. libholapetsc and petsc_matmult_calls against it.
{
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$arch" \
    -DHOLA_WITH_PETSC=ON -DHOLA_WITH_TPETRA=OFF -DHOLA_WITH_HYPRE=OFF &&
    cmake --build "$build" -j "$JOBS" --target holapetsc petsc_matmult_calls
} > "$OUT/tutorials-hola-build.log" 2>&1 ||
  { echo "HOLA PETSC BUILD FAILED"; tail -30 "$OUT/tutorials-hola-build.log"; exit 1; }
built_against="$(sed -n 's/^PETSC_PREFIX:INTERNAL=//p' "$build/CMakeCache.txt")"
[ "$built_against" = "$(pkg-config --variable=prefix "$pc")" ] ||
  { echo "$build was configured against PETSc in '$built_against', not this one"; exit 1; }
if [[ "${types[*]}" == *holaaijcusparse* ]] && ! grep -q "holaaijcusparse ON" "$OUT/tutorials-hola-build.log"; then
  echo "holaaijcusparse was not configured (see tutorials-hola-build.log)"
  exit 1
fi
lib="$build/adapters/petsc/libholapetsc.so"
calls_exe="$build/solvers_demo/petsc_matmult_calls"
say "Hola built in $build"

# 3. The tutorials, compiled as PETSc compiles them (its compiler and flags from PETSc.pc).
tut="$build/petsc-tutorials"
mkdir -p "$tut"
files=(src/ksp/ksp/tutorials/ex45.c src/ksp/ksp/tutorials/ex2.c src/snes/tutorials/ex19.c)
src="${TUTORIAL_PETSC_SRC:-${PETSC_BUILD_DIR:-$prefix-build}}"
if [ ! -f "$src/${files[0]}" ]; then
  sdist="${PETSC_SDIST:-$HOLA_ROOT/.carry/petsc-src/petsc-3.26.1.tar.gz}"
  src="$tut/src-tree"
  rm -rf "$src"
  mkdir -p "$src"
  tar xzf "$sdist" -C "$src" --strip-components=1 --wildcards "${files[@]/#/*/}" ||
    { echo "no PETSc source: neither TUTORIAL_PETSC_SRC / $prefix-build nor $sdist"; exit 1; }
fi
cc="$(pkg-config --variable=ccompiler "$pc")"
read -r -a cflags <<< "$(pkg-config --variable=cflags_extra "$pc") $(pkg-config --cflags "$pc")"
read -r -a libs <<< "$(pkg-config --libs "$pc")"
: > "$OUT/tutorials-compile.log"
for f in "${files[@]}"; do
  exe="$tut/$(basename "$f" .c)"
  echo "$cc ${cflags[*]} -o $exe $src/$f ${libs[*]} -Wl,-rpath,$petsc_libdir -lm" >> "$OUT/tutorials-compile.log"
  "${cc:-mpicc}" "${cflags[@]}" -o "$exe" "$src/$f" "${libs[@]}" -Wl,-rpath,"$petsc_libdir" -lm \
    >> "$OUT/tutorials-compile.log" 2>&1 ||
    { echo "TUTORIAL COMPILE FAILED: $f"; tail -20 "$OUT/tutorials-compile.log"; exit 1; }
done
say "tutorials compiled from $src"

# 4. The runs.
logs="$OUT/tutorials"
rm -rf "$logs"
mkdir -p "$logs"
cases_tsv="$logs/cases.tsv"
runs_tsv="$logs/runs.tsv"
: > "$cases_tsv"
: > "$runs_tsv"
mpi_flags=()
if mpiexec --version 2>/dev/null | grep -qE "Open MPI|OpenRTE"; then
  mpi_flags=(--oversubscribe --bind-to none)
  [ "$(id -u)" = 0 ] && mpi_flags+=(--allow-run-as-root)
fi
mpi_env=("OMPI_MCA_btl=self,vader" OMPI_MCA_btl_vader_single_copy_mechanism=none)
# One OpenMP thread per process: PETSc's aij uses one core per rank, so holaaij's CPU kernel gets
# one too; and libholapetsc loaded with -dll_append is unloaded by PetscFinalize, which takes
# libgomp with it while the threads of its pool still run (seen with holaaij and 2 threads: a
# segfault at exit after a correct solve).
export OMP_NUM_THREADS="${TUTORIAL_OMP_THREADS:-1}"
common=(-use_gpu_aware_mpi 0)
skipped=0

want_case() {
  local c
  [ -z "${TUTORIAL_CASES:-}" ] && return 0
  for c in $TUTORIAL_CASES; do
    [ "$c" = "$1" ] || { [ "$c" = per_call ] && [[ "$1" == per_call_* ]]; } && return 0
  done
  return 1
}

# run_one CASE TYPE REPEAT KIND RANKS [VAR=VALUE ...] -- EXE ARGS...: one process, its wall time,
# one line in runs.tsv.
run_one() {
  local case="$1" type="$2" rep="$3" kind="$4" ranks="$5"
  shift 5
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  local base="$logs/$case-$type-$rep" cmd=() view=""
  [ "$ranks" -gt 1 ] && { cmd=(mpiexec -n "$ranks" "${mpi_flags[@]}"); envs+=("${mpi_env[@]}"); }
  cmd+=("$@" "${common[@]}")
  if [ "$kind" = tutorial ]; then
    view="$base.view"
    cmd+=(-log_view ":$view")
    [[ "$type" == hola* ]] && cmd+=(-dll_append "$lib" "${hola_args[@]}")
  fi
  if [ "$(elapsed)" -ge "$budget" ]; then
    say "$case $type #$rep: SKIPPED (TUTORIAL_BUDGET_S=$budget reached)"
    skipped=$((skipped + 1))
    return
  fi
  echo "${envs[*]}${envs[*]:+ }${cmd[*]}" > "$base.out"
  local start end rc
  start=$(date +%s.%N)
  env "${envs[@]}" timeout -k 10 "$run_timeout" "${cmd[@]}" >> "$base.out" 2>&1
  rc=$?
  end=$(date +%s.%N)
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$case" "$type" "$rep" "$rc" "$start" "$end" \
    "$base.out" "$view" >> "$runs_tsv"
  local its
  its="$(grep -hoE "(Linear|Nonlinear) solve .* iterations [0-9]+" "$base.out" | sed 's/.* iterations //' | paste -sd, -)"
  say "$case $type #$rep: exit $rc, $(awk -v s="$start" -v e="$end" 'BEGIN {printf "%.2f", e - s}') s${its:+, iterations $its}"
  [ "$rc" -eq 0 ] || tail -15 "$base.out"
}

# run_case NAME KIND RANKS GPUS DESCRIPTION [VAR=VALUE ...] -- EXE ARGS (with @TYPE@ for the
# matrix type): REPEATS x both types, the order of the types alternating.
run_case() {
  local name="$1" kind="$2" ranks="$3" gpus="$4" desc="$5"
  shift 5
  want_case "$name" || return 0
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  local template=("$@") rep type order args a
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$kind" "$ranks" "$gpus" "$desc" \
    "${envs[*]}${envs[*]:+ }${template[*]//@TYPE@/<type>}" >> "$cases_tsv"
  for ((rep = 1; rep <= repeats; rep++)); do
    order=("${types[@]}")
    [ $((rep % 2)) -eq 0 ] && order=("${types[1]}" "${types[0]}")
    for type in "${order[@]}"; do
      args=()
      for a in "${template[@]}"; do args+=("${a//@TYPE@/$type}"); done
      run_one "$name" "$type" "$rep" "$kind" "$ranks" "${envs[@]}" -- "${args[@]}"
    done
  done
}

ex45="$tut/ex45"
ex45_args=(-da_grid_x "$n" -da_grid_y "$n" -da_grid_z "$n" -dm_mat_type @TYPE@ -dm_vec_type "$vec"
  -ksp_converged_reason)
ex2_args=(-m "$ex2_n" -n "$ex2_n" -mat_type @TYPE@ -vec_type "$vec" -pc_type none
  -ksp_max_it "$ex2_its" -ksp_rtol 1e-30 -ksp_atol 0 -ksp_converged_reason)
one_gpu=()
[ "$vec" = cuda ] && [ "$ngpu" -ge 2 ] && one_gpu=(CUDA_VISIBLE_DEVICES=0)

# A small untimed run of each type first: loads the libraries and the GPU once, and stops here
# when a type does not work at all.
for type in "${types[@]}"; do
  cmd=("$ex45" -da_grid_x 16 -da_grid_y 16 -da_grid_z 16 -dm_mat_type "$type" -dm_vec_type "$vec"
    -ksp_type cg -pc_type jacobi -ksp_converged_reason "${common[@]}")
  [[ "$type" == hola* ]] && cmd+=(-dll_append "$lib")
  echo "${cmd[*]}" > "$logs/warmup-$type.out"
  timeout -k 10 120 "${cmd[@]}" >> "$logs/warmup-$type.out" 2>&1 ||
    { echo "WARM-UP RUN FAILED with $type"; tail -20 "$logs/warmup-$type.out"; exit 1; }
done
say "warm-up runs done; ${repeats} repeats of ${types[*]}, vectors $vec, $ngpu GPU(s)"

run_case ex45_cg_jacobi tutorial 1 1 "ksp ex45 ${n}^3, CG + Jacobi" -- \
  "$ex45" "${ex45_args[@]}" -ksp_type cg -pc_type jacobi
run_case ex2_bicg tutorial 1 1 "ksp ex2 ${ex2_n}x${ex2_n}, BiCG, no preconditioner, $ex2_its iterations" -- \
  "$tut/ex2" "${ex2_args[@]}" -ksp_type bicg
run_case ex2_lsqr tutorial 1 1 "ksp ex2 ${ex2_n}x${ex2_n}, LSQR, no preconditioner, $ex2_its iterations" -- \
  "$tut/ex2" "${ex2_args[@]}" -ksp_type lsqr
run_case ex19_snes tutorial 1 1 "snes ex19 -da_refine $refine, Newton, GMRES + Jacobi" -- \
  "$tut/ex19" -da_refine "$refine" -dm_mat_type @TYPE@ -dm_vec_type "$vec" -pc_type jacobi \
  -snes_converged_reason -ksp_converged_reason
run_case ex45_cg_gamg tutorial 1 1 "ksp ex45 ${n}^3, CG + GAMG" -- \
  "$ex45" "${ex45_args[@]}" -ksp_type cg -pc_type gamg
run_case ex45_np2 tutorial 2 1 "ksp ex45 ${n}^3, CG + Jacobi, 2 ranks on one GPU" "${one_gpu[@]}" -- \
  "$ex45" "${ex45_args[@]}" -ksp_type cg -pc_type jacobi
if [ "$ngpu" -ge 2 ]; then
  two_gpus=()
  view_devices=()
  [ "$vec" = cuda ] && { two_gpus=("CUDA_VISIBLE_DEVICES=0,1"); view_devices=(-device_view); }
  # PETSc gives rank r device r % (devices): ranks 0 and 1 get GPUs 0 and 1 (-device_view shows it).
  run_case ex45_np2_2gpu tutorial 2 2 "ksp ex45 ${n}^3, CG + Jacobi, 2 ranks on 2 GPUs" "${two_gpus[@]}" -- \
    "$ex45" "${ex45_args[@]}" -ksp_type cg -pc_type jacobi "${view_devices[@]}"
fi
for pn in "${per_call_n[@]}"; do
  run_case "per_call_n$pn" per_call 1 1 "petsc_matmult_calls -n $pn ($((pn * pn * pn)) rows), $per_call_calls calls" -- \
    "$calls_exe" -n "$pn" -calls "$per_call_calls" -mat_type @TYPE@
done
say "runs done"

# 5. The summary.
if [ "$vec" = cuda ]; then
  device="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
else
  device="CPU ($(getconf _NPROCESSORS_ONLN) cores, $(uname -n))"
fi
missing=()
[ "$skipped" -eq 0 ] || missing=(--allow-missing)
python3 "$HOLA_ROOT/bench/petsc_logview.py" tutorials --cases "$cases_tsv" --runs "$runs_tsv" \
  --json "$OUT/tutorials.json" --txt "$OUT/tutorials.txt" --types "${types[@]}" "${missing[@]}" \
  --meta "commit=$commit" --meta "device=${device:-unknown}" --meta "gpus=$ngpu" \
  --meta "petsc=$(pkg-config --modversion "$pc")" --meta "repeats=$repeats" --meta "vec_type=$vec" \
  --meta "hola_lib=$lib" --meta "hola_args=${hola_args[*]}" --meta "common_args=${common[*]}" \
  --meta "stage_wall_s=$(elapsed)"
status=$?
[ "$skipped" -eq 0 ] || { say "$skipped runs skipped: TUTORIAL_BUDGET_S=$budget reached"; [ $status -eq 0 ] && status=3; }
say "done, exit $status; $OUT/tutorials.json, $OUT/tutorials.txt, logs in $logs"
exit $status
