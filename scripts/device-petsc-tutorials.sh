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
#                      215: 10^7 rows); per_call_nN_dofD: the same with D unknowns a grid node
#                      (-dof D, rows N^3 D, the D rows of a node alike)
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
# ("22 215"), TUTORIAL_PER_CALL_DOF (unknowns a node, each with every N; default "1"),
# TUTORIAL_PER_CALL_CALLS (1000), TUTORIAL_GPUS (default: nvidia-smi -L | wc -l),
# TUTORIAL_HOLA_ARGS (added to Hola runs; default -mat_hola_view), TUTORIAL_COMMON_ARGS (added to
# every run of both types, e.g. -log_view_gpu_time for a diagnostic pass), TUTORIAL_TIMEOUT (per run,
# 180 s), TUTORIAL_BUDGET_S (no new run after this many seconds of the script, default 420),
# TUTORIAL_OMP_THREADS (OMP_NUM_THREADS of every run, default 1).
# The builds and the runs are scripts/petsc-runs.sh's (shared with device-petsc-scaling.sh).
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
stage=tutorials
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
read -r -a per_call_dof <<< "${TUTORIAL_PER_CALL_DOF:-1}"
per_call_calls="${TUTORIAL_PER_CALL_CALLS:-1000}"
read -r -a hola_args <<< "${TUTORIAL_HOLA_ARGS--mat_hola_view}"
run_timeout="${TUTORIAL_TIMEOUT:-180}"
budget="${TUTORIAL_BUDGET_S:-420}"
budget_var=TUTORIAL_BUDGET_S
ngpu="${TUTORIAL_GPUS:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')}"
# TUTORIAL_CASES: case names; "per_call" stands for every per_call_* case.
read -r -a case_filter <<< "${TUTORIAL_CASES:-}"
for i in "${!case_filter[@]}"; do
  [ "${case_filter[$i]}" = per_call ] && case_filter[i]='per_call_*'
done
[ ${#types[@]} -eq 2 ] || { echo "TUTORIAL_TYPES must name two types (Hola's, then the baseline)"; exit 1; }
# shellcheck source=scripts/petsc-runs.sh
source "$HOLA_ROOT/scripts/petsc-runs.sh"

# 1. PETSc (with CUDA unless TUTORIAL_PETSC_PKGCONFIG names another one).
petsc_use "${TUTORIAL_PETSC_PKGCONFIG:-}"

# 2. libholapetsc and petsc_matmult_calls against it.
hola_petsc_build holapetsc petsc_matmult_calls
calls_exe="$build/solvers_demo/petsc_matmult_calls"

# 3. The tutorials, compiled as PETSc compiles them.
compile_tutorials "${TUTORIAL_PETSC_SRC:-${PETSC_BUILD_DIR:-$prefix-build}}" \
  src/ksp/ksp/tutorials/ex45.c src/ksp/ksp/tutorials/ex2.c src/snes/tutorials/ex19.c

# 4. The runs.
open_runs "$OUT/tutorials"
# One OpenMP thread per process: PETSc's aij uses one core per rank, so holaaij's CPU kernel gets
# one too; and libholapetsc loaded with -dll_append is unloaded by PetscFinalize, which takes
# libgomp with it while the threads of its pool still run (seen with holaaij and 2 threads: a
# segfault at exit after a correct solve).
export OMP_NUM_THREADS="${TUTORIAL_OMP_THREADS:-1}"
common=(-use_gpu_aware_mpi 0)
# A diagnostic pass may add options to every run of both types (e.g. -log_view_gpu_time, which
# gives the setup and product events times, and synchronises after each: not for the targets).
read -r -a common_extra <<< "${TUTORIAL_COMMON_ARGS:-}"
common+=("${common_extra[@]}")

ex45="$tut/ex45"
ex45_args=(-da_grid_x "$n" -da_grid_y "$n" -da_grid_z "$n" -dm_mat_type @TYPE@ -dm_vec_type "$vec"
  -ksp_converged_reason)
ex2_args=(-m "$ex2_n" -n "$ex2_n" -mat_type @TYPE@ -vec_type "$vec" -pc_type none
  -ksp_max_it "$ex2_its" -ksp_rtol 1e-30 -ksp_atol 0 -ksp_converged_reason)
one_gpu=()
[ "$vec" = cuda ] && [ "$ngpu" -ge 2 ] && one_gpu=(CUDA_VISIBLE_DEVICES=0)

warm_up "$ex45"
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
for pd in "${per_call_dof[@]}"; do
  for pn in "${per_call_n[@]}"; do
    name="per_call_n$pn"
    [ "$pd" = 1 ] || name+="_dof$pd"
    run_case "$name" per_call 1 1 "petsc_matmult_calls -n $pn -dof $pd ($((pn * pn * pn * pd)) rows), $per_call_calls calls" -- \
      "$calls_exe" -n "$pn" -dof "$pd" -calls "$per_call_calls" -mat_type @TYPE@
  done
done
say "runs done"

# 5. The summary.
summary_args
python3 "$HOLA_ROOT/bench/petsc_logview.py" tutorials --cases "$cases_tsv" --runs "$runs_tsv" \
  --json "$OUT/tutorials.json" --txt "$OUT/tutorials.txt" --types "${types[@]}" "${missing[@]}" \
  --meta "commit=$commit" --meta "device=${device:-unknown}" --meta "gpus=$ngpu" \
  --meta "petsc=$petsc_version" --meta "repeats=$repeats" --meta "vec_type=$vec" \
  --meta "hola_lib=$lib" --meta "hola_args=${hola_args[*]}" --meta "common_args=${common[*]}" \
  --meta "stage_wall_s=$(elapsed)"
status=$?
[ "$skipped" -eq 0 ] || { say "$skipped runs skipped: TUTORIAL_BUDGET_S=$budget reached"; [ $status -eq 0 ] && status=3; }
say "done, exit $status; $OUT/tutorials.json, $OUT/tutorials.txt, logs in $logs"
exit $status
