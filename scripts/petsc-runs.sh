# Sourced by the PETSc device scripts that time PETSc's own tutorials (device-petsc-tutorials.sh,
# device-petsc-scaling.sh): PETSc (built with CUDA, or the one named), libholapetsc against it,
# tutorials compiled from PETSc's source, and the timed runs of both matrix types.
# The caller sets (before the functions that use them): OUT (absolute), stage (name in messages
# and log file names), prefix, build, arch, types (array: Hola's type, then the baseline), vec,
# repeats, hola_args (array), common (array: options of every run), run_timeout, budget,
# budget_var (its variable's name, for messages), budget_predict (1: nor a run that the last run
# of the same case says would end after the budget), case_filter (array of case names or globs;
# empty: all).
# shellcheck shell=bash disable=SC2154

petsc_runs_t0=$(date +%s)
skipped=0
declare -A case_seconds=()
elapsed() { echo "$(($(date +%s) - petsc_runs_t0))"; }
say() { echo "$stage [$(elapsed) s] $*"; }

# petsc_use PKGCONFIG_DIR: PETSc from that folder's PETSc.pc, or (empty) built with CUDA into
# $prefix (nothing to do when built already). Sets pc, petsc_libdir, petsc_version.
petsc_use() {
  local pcdir="$1"
  if [ -z "$pcdir" ]; then
    PETSC_CUDA_ARCH="$arch" "$HOLA_ROOT/scripts/build-petsc-cuda.sh" "$prefix" > "$OUT/$stage-petsc-build.log" 2>&1 ||
      { echo "PETSC BUILD FAILED"; tail -30 "$OUT/$stage-petsc-build.log"; exit 1; }
    pcdir="$prefix/lib/pkgconfig"
  fi
  export PKG_CONFIG_PATH="$pcdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  pc=PETSc
  pkg-config --exists PETSc || pc=petsc
  pkg-config --exists "$pc" || { echo "no PETSc.pc in $pcdir"; exit 1; }
  petsc_libdir="$(pkg-config --variable=libdir "$pc")"
  petsc_version="$(pkg-config --modversion "$pc")"
  export LD_LIBRARY_PATH="$petsc_libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  say "PETSc $petsc_version in $(pkg-config --variable=prefix "$pc")"
}

# hola_petsc_build TARGET...: configures $build against that PETSc and builds the targets. Sets lib.
hola_petsc_build() {
  local log="$OUT/$stage-hola-build.log" built_against
  {
    cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$arch" \
      -DHOLA_WITH_PETSC=ON -DHOLA_WITH_TPETRA=OFF -DHOLA_WITH_HYPRE=OFF &&
      cmake --build "$build" -j "$JOBS" --target "$@"
  } > "$log" 2>&1 || { echo "HOLA PETSC BUILD FAILED"; tail -30 "$log"; exit 1; }
  built_against="$(sed -n 's/^PETSC_PREFIX:INTERNAL=//p' "$build/CMakeCache.txt")"
  [ "$built_against" = "$(pkg-config --variable=prefix "$pc")" ] ||
    { echo "$build was configured against PETSc in '$built_against', not this one"; exit 1; }
  if [[ "${types[*]}" == *holaaijcusparse* ]] && ! grep -q "holaaijcusparse ON" "$log"; then
    echo "holaaijcusparse was not configured (see $stage-hola-build.log)"
    exit 1
  fi
  lib="$build/adapters/petsc/libholapetsc.so"
  say "Hola built in $build"
}

# compile_tutorials SOURCE FILE...: the tutorials (paths inside PETSc's source), compiled as PETSc
# compiles them (its compiler and flags from PETSc.pc) into $tut. SOURCE: a PETSc source tree;
# when it lacks the files, they are taken from the sdist PETSC_SDIST.
compile_tutorials() {
  local src="$1" f exe cc log="$OUT/$stage-compile.log"
  shift
  local wanted="$src/$1"
  local files=("$@") cflags libs
  tut="$build/petsc-tutorials"
  mkdir -p "$tut"
  if [ ! -f "$src/$1" ]; then
    local sdist="${PETSC_SDIST:-$HOLA_ROOT/.carry/petsc-src/petsc-3.26.1.tar.gz}"
    src="$tut/src-tree"
    rm -rf "$src"
    mkdir -p "$src"
    tar xf "$sdist" -C "$src" --strip-components=1 --wildcards "${files[@]/#/*/}" ||
      { echo "no PETSc source: neither $wanted nor $sdist"; exit 1; }
  fi
  cc="$(pkg-config --variable=ccompiler "$pc")"
  read -r -a cflags <<< "$(pkg-config --variable=cflags_extra "$pc") $(pkg-config --cflags "$pc")"
  read -r -a libs <<< "$(pkg-config --libs "$pc")"
  : > "$log"
  for f in "${files[@]}"; do
    exe="$tut/$(basename "$f" .c)"
    echo "$cc ${cflags[*]} -o $exe $src/$f ${libs[*]} -Wl,-rpath,$petsc_libdir -lm" >> "$log"
    "${cc:-mpicc}" "${cflags[@]}" -o "$exe" "$src/$f" "${libs[@]}" -Wl,-rpath,"$petsc_libdir" -lm \
      >> "$log" 2>&1 || { echo "TUTORIAL COMPILE FAILED: $f"; tail -20 "$log"; exit 1; }
  done
  say "tutorials compiled from $src"
}

# open_runs FOLDER: a fresh log folder with the case and run tables; the MPI launch settings.
open_runs() {
  logs="$1"
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
}

want_case() {
  local c
  [ ${#case_filter[@]} -eq 0 ] && return 0
  for c in "${case_filter[@]}"; do
    # shellcheck disable=SC2053  # a name or a glob
    [[ "$1" == $c ]] && return 0
  done
  return 1
}

# run_one CASE TYPE REPEAT KIND RANKS [VAR=VALUE ...] -- EXE ARGS...: one process, its wall time,
# one line in runs.tsv. KIND tutorial: with -log_view into a file and, for Hola's type,
# -dll_append libholapetsc.so and hola_args.
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
  local expect=0 why=""
  [ "${budget_predict:-0}" = 1 ] && expect="${case_seconds[$case]:-0}"
  [ "$expect" -gt 0 ] && why=" by the end of this run: its last run took $expect s"
  if [ "$(($(elapsed) + expect))" -ge "$budget" ]; then
    say "$case $type #$rep: SKIPPED ($budget_var=$budget reached$why)"
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
  case_seconds[$case]=$(awk -v s="$start" -v e="$end" 'BEGIN {printf "%d", e - s + 1}')
  local its
  its="$(grep -hoE "(Linear|Nonlinear) solve .* iterations [0-9]+" "$base.out" | sed 's/.* iterations //' | paste -sd, -)"
  say "$case $type #$rep: exit $rc, $(awk -v s="$start" -v e="$end" 'BEGIN {printf "%.2f", e - s}') s${its:+, iterations $its}"
  [ "$rc" -eq 0 ] || tail -15 "$base.out"
}

# run_case NAME KIND RANKS GPUS DESCRIPTION [VAR=VALUE ...] -- EXE ARGS (with @TYPE@ for the
# matrix type): REPEATS x both types, the order of the types alternating. With only_repeat set,
# that repeat alone (the case's line in cases.tsv is written with repeat 1). case_columns (array):
# more columns of the case's line in cases.tsv.
run_case() {
  local name="$1" kind="$2" ranks="$3" gpus="$4" desc="$5"
  shift 5
  want_case "$name" || return 0
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  local template=("$@") rep type order args a first=1 last="$repeats" extra=""
  [ -n "${only_repeat:-}" ] && { first="$only_repeat"; last="$only_repeat"; }
  [ -n "${case_columns[*]:-}" ] && extra="$(printf '\t%s' "${case_columns[@]}")"
  [ "$first" -eq 1 ] && printf '%s\t%s\t%s\t%s\t%s\t%s%s\n' "$name" "$kind" "$ranks" "$gpus" "$desc" \
    "${envs[*]}${envs[*]:+ }${template[*]//@TYPE@/<type>}" "$extra" >> "$cases_tsv"
  for ((rep = first; rep <= last; rep++)); do
    order=("${types[@]}")
    [ $((rep % 2)) -eq 0 ] && order=("${types[1]}" "${types[0]}")
    for type in "${order[@]}"; do
      args=()
      for a in "${template[@]}"; do args+=("${a//@TYPE@/$type}"); done
      run_one "$name" "$type" "$rep" "$kind" "$ranks" "${envs[@]}" -- "${args[@]}"
    done
  done
}

# warm_up EXE45: a small untimed ex45 run of each type: loads the libraries and the GPU once, and
# stops here when a type does not work at all.
warm_up() {
  local type cmd
  for type in "${types[@]}"; do
    cmd=("$1" -da_grid_x 16 -da_grid_y 16 -da_grid_z 16 -dm_mat_type "$type" -dm_vec_type "$vec"
      -ksp_type cg -pc_type jacobi -ksp_converged_reason "${common[@]}")
    [[ "$type" == hola* ]] && cmd+=(-dll_append "$lib")
    echo "${cmd[*]}" > "$logs/warmup-$type.out"
    timeout -k 10 120 "${cmd[@]}" >> "$logs/warmup-$type.out" 2>&1 ||
      { echo "WARM-UP RUN FAILED with $type"; tail -20 "$logs/warmup-$type.out"; exit 1; }
  done
}

# summary_args: what every summary gets from the runs: the machine (the GPU's name, or the CPU's
# for host types) in `device`, and --allow-missing in `missing` when the budget skipped runs.
summary_args() {
  if [ "$vec" = cuda ]; then
    device="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
  else
    device="CPU ($(getconf _NPROCESSORS_ONLN) cores, $(uname -n))"
  fi
  missing=()
  [ "$skipped" -eq 0 ] || missing=(--allow-missing)
}
