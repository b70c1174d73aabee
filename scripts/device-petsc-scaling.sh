#!/usr/bin/env bash
# Strong and weak scaling of PETSc's KSP tutorial ex45 (3D Laplacian on a DMDA), unmodified, one
# MPI rank per GPU, holaaijcusparse against aijcusparse (stage `scaling` of
# scripts/device-check.sh, or on its own on a machine with GPUs):
#   OUT=<folder> scripts/device-petsc-scaling.sh
# 1. PETSc 3.26.1 with CUDA, libholapetsc and ex45 as the tutorials stage builds them
#    (scripts/petsc-runs.sh), 2. for each solver (CG + Jacobi, CG + GAMG) and G in the GPU counts:
#      strong_<solver>_g<G>   ex45 N^3 on G ranks, rank r on GPU r (CUDA_VISIBLE_DEVICES=0..G-1;
#                             PETSc picks device rank % visible devices)
#      weak_<solver>_g<G>     ex45 W x W x (W*G) on G ranks (W^3 per GPU)
#    then shared_<solver>_np<R>: the strong problem on R ranks that all use GPU 0.
#    Every case runs SCALING_REPEATS times per type, repeat by repeat over all cases (a budget cut
#    leaves every case with its first repeats), the order of the types alternating; the Hola type
#    is switched on with -dll_append libholapetsc.so alone. Runs use -log_view :file (no
#    -log_view_gpu_time), -ksp_converged_reason, ex45's default -ksp_rtol and
#    -use_gpu_aware_mpi 1 only where the MPI is CUDA-aware (Open MPI: ompi_info's
#    mpi_built_with_cuda_support; others: SCALING_GPU_AWARE), else 0. The first multi-GPU case
#    adds -device_view (which device each rank got).
# 3. bench/petsc_logview.py scaling: OUT/scaling.json (meta, every run, medians, ratios Hola /
#    baseline, parallel efficiency, iterations equal or not, targets) and OUT/scaling.txt;
#    bench/plot_scaling.py: OUT/scaling.png (where matplotlib is found); logs in OUT/scaling/.
#    Exit 1 when a build or a run failed or iteration counts differ (beyond 2 %), 3 when
#    SCALING_BUDGET_S ran out before all runs (the summary covers what ran). Targets (KSPSolve
#    <= 0.90x aijcusparse at every G, weak efficiency at the largest G >= aijcusparse's and
#    >= 85 %, same iterations) are reported, not enforced.
# Environment: OUT, PETSC_CUDA_PREFIX (/tmp/petsc-cuda), HOLA_PETSC_BUILD (build-device-petsc),
# HOLA_COMMIT; SCALING_GPUS (GPU counts, default "1 2 4 8", those above the GPUs present dropped),
# SCALING_STRONG_N (256), SCALING_WEAK_N (200), SCALING_SOLVERS ("jacobi gamg"),
# SCALING_GAMG_ARGS (added to every CG + GAMG run of both types; e.g. "-matptap_backend_cpu
# -matmatmult_backend_cpu -mattransposematmult_backend_cpu" where PETSc's GPU triple product of the
# MPI matrices fails, as cuSPARSE's SpGEMM did on two H200 with CUSPARSE_STATUS_INSUFFICIENT_RESOURCES;
# those options act on MPI matrices only, so a 1-rank run keeps the GPU product),
# SCALING_SHARED_RANKS ("2 4"; empty: none), SCALING_REPEATS (3), SCALING_CASES (case names or
# globs, e.g. "strong_jacobi_* weak_jacobi_*"; default all), SCALING_GPU_AWARE (0/1: overrides the
# detection), SCALING_TYPES ("holaaijcusparse aijcusparse"), SCALING_VEC (cuda), SCALING_HOLA_ARGS
# (added to Hola runs; default -mat_hola_view), SCALING_TIMEOUT (per run, 180 s),
# SCALING_BUDGET_S (no new run after this many seconds of the script, nor one that the previous
# repeat of the case says would end after it; default 540), SCALING_OMP_THREADS (1),
# SCALING_GPU_COUNT (GPUs present; default nvidia-smi -L).
# Without a GPU (checks the script, the parser, the JSON and the plot with CPU types; G is then
# a rank count): SCALING_TYPES="holaaij aij" SCALING_VEC=standard SCALING_STRONG_N=24
# SCALING_WEAK_N=16 SCALING_GPUS="1 2" SCALING_PETSC_PKGCONFIG=<dir of PETSc.pc> (skips the
# PETSc build) SCALING_PETSC_SRC=<PETSc source tree> (default as the tutorials stage: ex45.c
# from the sdist PETSC_SDIST).
set -uo pipefail
source "$(dirname "$0")/env.sh"
cd "$HOLA_ROOT" || exit 1
use_out_dir
OUT="$(cd "$OUT" && pwd)"
rm -f "$OUT/scaling.json" "$OUT/scaling.txt" "$OUT/scaling.png"
stage=scaling
prefix="${PETSC_CUDA_PREFIX:-/tmp/petsc-cuda}"
build="${HOLA_PETSC_BUILD:-$HOLA_ROOT/build-device-petsc}"
commit="$(hola_commit)" arch="$(gpu_arch)"
read -r -a types <<< "${SCALING_TYPES:-holaaijcusparse aijcusparse}"
vec="${SCALING_VEC:-cuda}"
repeats="${SCALING_REPEATS:-3}"
strong_n="${SCALING_STRONG_N:-256}"
weak_n="${SCALING_WEAK_N:-200}"
read -r -a solvers <<< "${SCALING_SOLVERS-jacobi gamg}"
read -r -a shared_ranks <<< "${SCALING_SHARED_RANKS-2 4}"
read -r -a hola_args <<< "${SCALING_HOLA_ARGS--mat_hola_view}"
read -r -a case_filter <<< "${SCALING_CASES:-}"
read -r -a gamg_args <<< "${SCALING_GAMG_ARGS:-}"
run_timeout="${SCALING_TIMEOUT:-180}"
budget="${SCALING_BUDGET_S:-540}"
budget_var=SCALING_BUDGET_S
present="${SCALING_GPU_COUNT:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')}"
[ ${#types[@]} -eq 2 ] || { echo "SCALING_TYPES must name two types (Hola's, then the baseline)"; exit 1; }
# GPU counts: with CUDA vectors only those the machine has; with CPU types a count is ranks.
gpu_counts=()
for g in ${SCALING_GPUS:-1 2 4 8}; do
  [ "$vec" != cuda ] || [ "$g" -le "$present" ] && gpu_counts+=("$g")
done
[ ${#gpu_counts[@]} -gt 0 ] || { echo "no GPU count of '${SCALING_GPUS:-1 2 4 8}' fits the $present GPU(s) present"; exit 1; }
# shellcheck source=scripts/petsc-runs.sh
source "$HOLA_ROOT/scripts/petsc-runs.sh"

# CUDA-aware MPI: Open MPI says so in ompi_info; for other MPIs SCALING_GPU_AWARE decides.
mpi_library="$(mpiexec --version 2>/dev/null | head -1)"
mpi_cuda=unknown
if command -v ompi_info > /dev/null 2>&1; then
  mpi_library="$(ompi_info --version 2>/dev/null | head -1)"
  if ompi_info --parsable --all 2>/dev/null | grep -q "mpi_built_with_cuda_support:value:true"; then
    mpi_cuda=yes
  else
    mpi_cuda=no
  fi
fi
if [ -n "${SCALING_GPU_AWARE:-}" ]; then
  gpu_aware="$SCALING_GPU_AWARE" gpu_aware_from="SCALING_GPU_AWARE=$SCALING_GPU_AWARE"
elif [ "$mpi_cuda" = yes ]; then
  gpu_aware=1 gpu_aware_from="ompi_info: mpi_built_with_cuda_support true"
elif [ "$mpi_cuda" = no ]; then
  gpu_aware=0 gpu_aware_from="ompi_info: mpi_built_with_cuda_support false"
else
  gpu_aware=0 gpu_aware_from="not Open MPI, SCALING_GPU_AWARE unset: assumed not CUDA-aware"
fi
[ "$vec" = cuda ] || { gpu_aware=0 gpu_aware_from="CPU vectors ($vec)"; }
say "MPI: ${mpi_library:-unknown} (CUDA support: $mpi_cuda); -use_gpu_aware_mpi $gpu_aware ($gpu_aware_from)"

# 1. PETSc, libholapetsc, ex45.
petsc_use "${SCALING_PETSC_PKGCONFIG:-}"
hola_petsc_build holapetsc
compile_tutorials "${SCALING_PETSC_SRC:-${PETSC_BUILD_DIR:-$prefix-build}}" src/ksp/ksp/tutorials/ex45.c
ex45="$tut/ex45"

# 2. The runs.
open_runs "$OUT/scaling"
budget_predict=1
# Open MPI's shared-memory transport for device buffers is smcuda: keep it when it exists.
if [ "$gpu_aware" = 1 ] && command -v ompi_info > /dev/null 2>&1 &&
  ompi_info --parsable 2>/dev/null | grep -q "^mca:btl:smcuda:"; then
  mpi_env=("OMPI_MCA_btl=self,vader,smcuda" OMPI_MCA_btl_vader_single_copy_mechanism=none)
fi
export OMP_NUM_THREADS="${SCALING_OMP_THREADS:-1}"
common=(-use_gpu_aware_mpi "$gpu_aware")
warm_up "$ex45"
say "warm-up runs done; ${repeats} repeats of ${types[*]}, vectors $vec, GPUs ${gpu_counts[*]}" \
  "($present present), solvers ${solvers[*]}, shared ranks ${shared_ranks[*]:-none}"

# devices G: CUDA_VISIBLE_DEVICES=0,...,G-1 (nothing with CPU vectors).
devices() {
  local ids
  [ "$vec" = cuda ] || return 0
  ids="$(seq -s, 0 $(($1 - 1)))"
  echo "CUDA_VISIBLE_DEVICES=$ids"
}

# -device_view on the first multi-GPU case that runs (each rank prints the device it got).
device_view_case=""
if [ "$vec" = cuda ]; then
  for solver in "${solvers[@]}"; do
    for g in "${gpu_counts[@]}"; do
      [ "$g" -gt 1 ] && want_case "strong_${solver}_g$g" && { device_view_case="strong_${solver}_g$g"; break 2; }
    done
  done
fi

# One repeat of every case (case_columns: series, solver, grid for the summary).
all_cases() {
  local solver g r grid dev view
  for solver in "${solvers[@]}"; do
    local solve=(-ksp_type cg -pc_type "$solver" -ksp_converged_reason)
    [ "$solver" = gamg ] && solve+=("${gamg_args[@]}")
    for g in "${gpu_counts[@]}"; do
      grid=("$strong_n" "$strong_n" "$strong_n")
      case_columns=(strong "$solver" "${grid[*]}")
      read -r dev <<< "$(devices "$g")"
      view=()
      [ "$device_view_case" = "strong_${solver}_g$g" ] && view=(-device_view)
      run_case "strong_${solver}_g$g" tutorial "$g" "$g" "ex45 ${strong_n}^3, CG + $solver, $g rank(s) on $g GPU(s)" \
        ${dev:+"$dev"} -- "$ex45" -da_grid_x "$strong_n" -da_grid_y "$strong_n" -da_grid_z "$strong_n" \
        -dm_mat_type @TYPE@ -dm_vec_type "$vec" "${solve[@]}" "${view[@]}"
    done
    for g in "${gpu_counts[@]}"; do
      grid=("$weak_n" "$weak_n" $((weak_n * g)))
      case_columns=(weak "$solver" "${grid[*]}")
      read -r dev <<< "$(devices "$g")"
      run_case "weak_${solver}_g$g" tutorial "$g" "$g" "ex45 ${grid[0]}x${grid[1]}x${grid[2]}, CG + $solver, $g rank(s) on $g GPU(s)" \
        ${dev:+"$dev"} -- "$ex45" -da_grid_x "${grid[0]}" -da_grid_y "${grid[1]}" -da_grid_z "${grid[2]}" \
        -dm_mat_type @TYPE@ -dm_vec_type "$vec" "${solve[@]}"
    done
  done
  for solver in "${solvers[@]}"; do
    local solve=(-ksp_type cg -pc_type "$solver" -ksp_converged_reason)
    [ "$solver" = gamg ] && solve+=("${gamg_args[@]}")
    for r in "${shared_ranks[@]}"; do
      case_columns=(shared "$solver" "$strong_n $strong_n $strong_n")
      read -r dev <<< "$(devices 1)"
      run_case "shared_${solver}_np$r" tutorial "$r" 1 "ex45 ${strong_n}^3, CG + $solver, $r ranks on one GPU" \
        ${dev:+"$dev"} -- "$ex45" -da_grid_x "$strong_n" -da_grid_y "$strong_n" -da_grid_z "$strong_n" \
        -dm_mat_type @TYPE@ -dm_vec_type "$vec" "${solve[@]}"
    done
  done
}
for ((only_repeat = 1; only_repeat <= repeats; only_repeat++)); do
  all_cases
done
say "runs done"

# 3. The summary and the plot.
summary_args
[ "$vec" = cuda ] || device="$device; G = MPI ranks"
python3 "$HOLA_ROOT/bench/petsc_logview.py" scaling --cases "$cases_tsv" --runs "$runs_tsv" \
  --json "$OUT/scaling.json" --txt "$OUT/scaling.txt" --types "${types[@]}" "${missing[@]}" \
  --meta "commit=$commit" --meta "device=${device:-unknown}" --meta "gpus_present=$present" \
  --meta "gpu_counts=${gpu_counts[*]}" --meta "mpi=${mpi_library:-unknown}" \
  --meta "mpi_cuda_support=$mpi_cuda" --meta "gpu_aware_mpi=$gpu_aware" \
  --meta "gpu_aware_mpi_from=$gpu_aware_from" --meta "mpi_env=${mpi_env[*]}" \
  --meta "mpi_flags=${mpi_flags[*]}" --meta "petsc=$petsc_version" --meta "repeats=$repeats" \
  --meta "vec_type=$vec" --meta "strong_n=$strong_n" --meta "weak_n=$weak_n" \
  --meta "hola_lib=$lib" --meta "hola_args=${hola_args[*]}" --meta "common_args=${common[*]}" --meta "gamg_args=${gamg_args[*]}" \
  --meta "omp_num_threads=$OMP_NUM_THREADS" --meta "stage_wall_s=$(elapsed)"
status=$?
for py in python3 /usr/bin/python3; do
  if "$py" -c "import matplotlib" > /dev/null 2>&1; then
    "$py" "$HOLA_ROOT/bench/plot_scaling.py" "$OUT/scaling.json" --out "$OUT/scaling.png" ||
      say "plot_scaling.py failed"
    break
  fi
done
[ -f "$OUT/scaling.png" ] || say "no plot (matplotlib not found, or the plot failed)"
[ "$skipped" -eq 0 ] || { say "$skipped runs skipped: SCALING_BUDGET_S=$budget reached"; [ $status -eq 0 ] && status=3; }
say "done, exit $status; -use_gpu_aware_mpi $gpu_aware ($gpu_aware_from); $OUT/scaling.json, $OUT/scaling.txt, logs in $logs"
exit $status
