#!/usr/bin/env bash
# The PETSc stage of the device check (scripts/device-check.sh petsc), or on its own on a machine
# with a GPU:  OUT=<folder> scripts/device-petsc.sh
# 1. builds PETSc 3.26.1 with CUDA from the carried sdist (scripts/build-petsc-cuda.sh; skipped
#    when PETSC_CUDA_PREFIX already holds it), 2. builds Hola's PETSc targets against it in
# build-device-petsc, 3. runs the PETSc tests (holaaij vs aij, holaaijcusparse vs aijcusparse),
# 4. solves 3D Poisson (CG + Jacobi, -n $PETSC_N, default 200) and LSQR on the same matrix
# ($PETSC_LSQR_ITS iterations, default 300) with holaaijcusparse and with aijcusparse.
# Writes into OUT: petsc-build.log, petsc-hola-build.log, petsc-tests.log, petsc-<solve>-<type>.log
# (the output and the -log_view summary), petsc.json (results). Exit status 1 when a build, a
# test or a solve failed or the iteration counts differ; the MatMult time target
# (holaaijcusparse <= 0.75 x aijcusparse, GPU kernel time) is reported, not enforced.
# Environment: OUT, HOLA_ROOT, JOBS (from device-check.sh / env.sh), PETSC_CUDA_PREFIX (default
# /tmp/petsc-cuda), HOLA_PETSC_BUILD (default build-device-petsc), HOLA_COMMIT, PETSC_N,
# PETSC_LSQR_ITS.
set -uo pipefail
source "$(dirname "$0")/env.sh"
cd "$HOLA_ROOT" || exit 1
use_out_dir
prefix="${PETSC_CUDA_PREFIX:-/tmp/petsc-cuda}"
build="${HOLA_PETSC_BUILD:-$HOLA_ROOT/build-device-petsc}"
n="${PETSC_N:-200}"
lsqr_its="${PETSC_LSQR_ITS:-300}"
commit="$(hola_commit)" arch="$(gpu_arch)"
stage_start=$(date +%s)
elapsed() { echo "$(($(date +%s) - stage_start)) s"; }

# 1. PETSc with CUDA.
PETSC_CUDA_ARCH="$arch" "$HOLA_ROOT/scripts/build-petsc-cuda.sh" "$prefix" > "$OUT/petsc-build.log" 2>&1 ||
  { echo "PETSC BUILD FAILED"; tail -30 "$OUT/petsc-build.log"; exit 1; }
tail -1 "$OUT/petsc-build.log"

# 2. Hola's PETSc targets (the GPU kernels come with libholapetsc).
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export LD_LIBRARY_PATH="$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
{
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$arch" \
    -DHOLA_WITH_PETSC=ON -DHOLA_WITH_TPETRA=OFF -DHOLA_WITH_HYPRE=OFF &&
    cmake --build "$build" -j "$JOBS" --target holapetsc petsc_holaaij_test petsc_dll_append_test \
      petsc_ksp
} > "$OUT/petsc-hola-build.log" 2>&1 || { echo "HOLA PETSC BUILD FAILED"; tail -30 "$OUT/petsc-hola-build.log"; exit 1; }
grep -q "holaaijcusparse ON" "$OUT/petsc-hola-build.log" ||
  { echo "holaaijcusparse was not configured (see petsc-hola-build.log)"; exit 1; }
echo "petsc: PETSc and Hola built ($(elapsed))"

status=0
# 3. The PETSc tests, CPU and GPU types.
ctest --test-dir "$build" -R '^petsc_' -j 8 --output-on-failure > "$OUT/petsc-tests.log" 2>&1 || status=1
grep -E "tests passed|Failed|\*\*\*|Skipped" "$OUT/petsc-tests.log" | tail -20
echo "petsc: tests done ($(elapsed))"

# 4. The solves, one process per type so that each -log_view summary is one type's.
ksp="$build/solvers_demo/petsc_ksp"
common=(-n "$n" -use_gpu_aware_mpi 0 -log_view_gpu_time)
run_solve() {  # name type args...
  local name="$1" type="$2"
  shift 2
  local log="$OUT/petsc-$name-$type.log"
  echo "$ksp ${common[*]} -mat_type $type $*" > "$log"
  "$ksp" "${common[@]}" -mat_type "$type" "$@" -log_view ":$log.view" >> "$log" 2>&1 || {
    echo "petsc: $name with $type FAILED"; tail -20 "$log"; status=1; }
  cat "$log.view" >> "$log" 2>/dev/null
  rm -f "$log.view"
  grep -E "iterations," "$log"
}
cg_args=(-ksp_type cg -pc_type jacobi -ksp_rtol 1e-6)
lsqr_args=(-ksp_type lsqr -pc_type none -ksp_max_it "$lsqr_its" -ksp_rtol 1e-30 -ksp_atol 0)
run_solve cg holaaijcusparse "${cg_args[@]}" -mat_hola_view
run_solve cg aijcusparse "${cg_args[@]}"
for type in holaaijcusparse aijcusparse; do
  run_solve lsqr "$type" "${lsqr_args[@]}"
done
# The same CG with named kernels instead of auto (PETSC_EXTRA_KERNELS, e.g. "scalar hola"): what
# the kernel choice is worth inside the solver. Logged only, not in petsc.json.
for kernel in ${PETSC_EXTRA_KERNELS:-}; do
  run_solve "cg-$kernel" holaaijcusparse "${cg_args[@]}" -mat_hola_kernel "$kernel" -mat_hola_view
done
echo "petsc: solves done ($(elapsed))"

# Results.
device="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
python3 - "$OUT" "$commit" "${device:-unknown}" "$ksp ${common[*]}" "${cg_args[*]}" \
  "${lsqr_args[*]}" "$(elapsed)" <<'EOF' || status=1
import json, re, sys
out, commit, device, base, cg_args, lsqr_args, wall = sys.argv[1:8]
def result(name, mat_type):
    try:
        with open(f"{out}/petsc-{name}-{mat_type}.log") as f:
            for line in f:
                if line.startswith("result: "):
                    return json.loads(line[len("result: "):])
    except OSError:
        pass
    return None
def ratio(a, b):
    return round(a / b, 4) if a and b else None
solves, ok = {}, True
for name, args in (("cg_jacobi", cg_args), ("lsqr", lsqr_args)):
    short = name.split("_")[0]
    hola, native = result(short, "holaaijcusparse"), result(short, "aijcusparse")
    entry = {"command": f"{base} -mat_type <type> {args}", "holaaijcusparse": hola,
             "aijcusparse": native}
    if hola and native:
        entry["same_iterations"] = hola["iterations"] == native["iterations"]
        entry["matmult_gpu_ratio"] = ratio(hola["matmult_gpu_s"], native["matmult_gpu_s"])
        entry["matmulttranspose_gpu_ratio"] = ratio(hola["matmulttranspose_gpu_s"],
                                                    native["matmulttranspose_gpu_s"])
        ok = ok and entry["same_iterations"]
    else:
        ok = False
    solves[name] = entry
cg = solves["cg_jacobi"]
target = {"matmult_gpu_ratio_max": 0.75, "ratio": cg.get("matmult_gpu_ratio"),
          "met": bool(cg.get("matmult_gpu_ratio") is not None and cg["matmult_gpu_ratio"] <= 0.75)}
summary = {"commit": commit, "device": device, "petsc": "3.26.1 (CUDA)", "stage_wall": wall,
           "solves": solves, "target": target}
with open(f"{out}/petsc.json", "w") as f:
    json.dump(summary, f, indent=2)
for name, e in solves.items():
    print(f"petsc {name}: same iterations {e.get('same_iterations')}, MatMult GPU time ratio "
          f"{e.get('matmult_gpu_ratio')}, MatMultTranspose GPU time ratio "
          f"{e.get('matmulttranspose_gpu_ratio')}")
print(f"petsc target MatMult GPU ratio <= 0.75 (CG): {'met' if target['met'] else 'NOT met'}")
sys.exit(0 if ok else 1)
EOF
echo "petsc: $(elapsed) in all, results in $OUT/petsc.json"
exit $status
