// petsc_matmult_calls: the cost of one PETSc matrix product, call by call. Builds the 3D 7-point
// Laplacian on an n x n x n grid (-n, default 22: about 10^4 rows; -n 215: about 10^7), with -dof D
// unknowns per grid node coupled as a PETSc DMDA with D fields couples them (default 1; rows
// n^3 D, 7 D entries a row, the D rows of a node alike: what Hola's `inode` kernel is for), with
// the matrix type from the options (-mat_type aijcusparse, holaaijcusparse, aij, holaaij; vectors
// from MatCreateVecs), times the first MatMult (setup included: the copy to the GPU, Hola's
// analysis, cuSPARSE's buffers), runs -warmup products of each kind, then times -calls (default
// 1000) back-to-back calls of each of MatMult, MatMultAdd, MatMultTranspose and MatMultTransposeAdd
// with the wall clock around the loop and one synchronisation of PETSc's current device context
// after it. Reports microseconds per call, the maximum over the ranks, as a line for people and a
// "result: {...}" JSON line for scripts.
//
//   petsc_matmult_calls -n 215 -mat_type holaaijcusparse -calls 1000 -use_gpu_aware_mpi 0
//
// The Hola types are registered by the program itself (it links libholapetsc); every other PETSc
// option works as usual (-mat_hola_kernel, -mat_hola_view, -log_view). Hola's common options are
// read with CLI11 (petsc_cli.hpp): --help, --output FILE (the result JSON with the commit and the
// command); --matrix is refused, the problem is always the generated grid.
#include <petscmat.h>
#if defined(PETSC_HAVE_DEVICE)
#include <petscdevice.h>
#endif

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "grid_problems.hpp"
#include "hola/petsc.h"
#include "petsc_cli.hpp"
#include "run_info.hpp"

#if !PETSC_VERSION_GE(3, 19, 0)
#define PETSC_SUCCESS 0
#endif

namespace {

// Whether vector x lives on a device (the products then run asynchronously on a stream).
PetscErrorCode OnDevice(Vec x, PetscBool* on_device) {
  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)x, on_device, "seqcuda", "mpicuda", "seqhip",
                                      "mpihip", "seqkokkos", "mpikokkos", ""));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Waits until everything queued on PETSc's current device context has run. Host products are
// synchronous: nothing to wait for (and a PETSc built with CUDA on a machine without a GPU
// cannot create a device context).
PetscErrorCode Synchronize(PetscBool on_device) {
  PetscFunctionBegin;
#if defined(PETSC_HAVE_DEVICE)
  if (on_device) {
    PetscDeviceContext dctx;
    PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
    PetscCall(PetscDeviceContextSynchronize(dctx));
  }
#else
  (void)on_device;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

using Clock = std::chrono::steady_clock;

// Seconds since t0, maximum over the ranks.
PetscErrorCode ElapsedMax(Clock::time_point t0, double* seconds) {
  double local = std::chrono::duration<double>(Clock::now() - t0).count();
  PetscFunctionBegin;
  PetscCallMPI(MPI_Allreduce(&local, seconds, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Assemble(PetscInt n, PetscInt dof, Mat* A) {
  const PetscInt rows = n * n * n * dof;
  const PetscInt row_max = 7 * dof;
  PetscInt rs, re;
  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, rows, rows));
  PetscCall(MatSetFromOptions(*A));
  PetscCall(MatSeqAIJSetPreallocation(*A, row_max, nullptr));
  PetscCall(MatMPIAIJSetPreallocation(*A, row_max, nullptr, 6 * dof, nullptr));
  std::vector<PetscInt> c(row_max);
  std::vector<PetscScalar> v(row_max);
  PetscCall(MatGetOwnershipRange(*A, &rs, &re));
  for (PetscInt r = rs; r < re; r++) {
    PetscInt m = 0;
    hola::grid::poisson3d_block_row(n, dof, r, [&](PetscInt col, double value) {
      c[m] = col;
      v[m++] = value;
    });
    PetscCall(MatSetValues(*A, 1, &r, m, c.data(), v.data(), INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

enum Kind { kMult, kMultAdd, kMultTranspose, kMultTransposeAdd };
const char* const kNames[] = {"MatMult", "MatMultAdd", "MatMultTranspose", "MatMultTransposeAdd"};
const char* const kKeys[] = {"matmult_us", "matmultadd_us", "matmulttranspose_us",
                             "matmulttransposeadd_us"};

// x, w: column-sized (right) vectors; y, z: row-sized (left) ones.
struct Vectors {
  Vec x, y, z, w;
};

PetscErrorCode Apply(Kind kind, Mat A, const Vectors& v) {
  PetscFunctionBegin;
  switch (kind) {
    case kMult:
      PetscCall(MatMult(A, v.x, v.y));
      break;
    case kMultAdd:
      PetscCall(MatMultAdd(A, v.x, v.y, v.z));  // z = y + A x
      break;
    case kMultTranspose:
      PetscCall(MatMultTranspose(A, v.y, v.x));
      break;
    case kMultTransposeAdd:
      PetscCall(MatMultTransposeAdd(A, v.y, v.x, v.w));  // w = x + A^T y
      break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

// `output`: where to write the result JSON (rank 0; none when empty).
PetscErrorCode Run(const std::string& output, const std::string& command) {
  PetscInt n = 22, dof = 1, calls = 1000, warmup = 10;
  Mat A;
  MatType petsc_type;
  Vectors v;
  MatInfo info;
  PetscMPIInt size;
  PetscBool dev;
  char type[64] = "aij";
  double first = 0, per_call[4] = {0, 0, 0, 0};
  Clock::time_point t0;

  PetscFunctionBegin;
  PetscOptionsBegin(PETSC_COMM_WORLD, nullptr, "petsc_matmult_calls: the cost of one product",
                    nullptr);
  PetscCall(
      PetscOptionsInt("-n", "grid points per direction (rows: n^3 dof)", nullptr, n, &n, nullptr));
  PetscCall(PetscOptionsInt("-dof", "unknowns per grid node, coupled within the node", nullptr, dof,
                            &dof, nullptr));
  PetscCall(PetscOptionsInt("-calls", "timed back-to-back calls of each product", nullptr, calls,
                            &calls, nullptr));
  PetscCall(PetscOptionsInt("-warmup", "untimed calls of each product before the timed ones",
                            nullptr, warmup, &warmup, nullptr));
  PetscCall(PetscOptionsString("-mat_type", "matrix type (read again by MatSetFromOptions)",
                               nullptr, type, type, sizeof(type), nullptr));
  PetscOptionsEnd();
  PetscCheck(n > 0 && dof > 0 && calls > 0 && warmup >= 0, PETSC_COMM_WORLD,
             PETSC_ERR_ARG_OUTOFRANGE,
             "-n, -dof and -calls must be positive, -warmup not negative");
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));

  PetscCall(Assemble(n, dof, &A));
  PetscCall(MatGetType(A, &petsc_type));
  PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info));
  PetscCall(MatCreateVecs(A, &v.x, &v.y));
  PetscCall(VecDuplicate(v.y, &v.z));
  PetscCall(VecDuplicate(v.x, &v.w));
  PetscCall(OnDevice(v.x, &dev));
  // Nonzero inputs (never time on zeros): x_i = 1 + (i mod 7) / 8.
  {
    PetscInt lo, hi;
    PetscCall(VecGetOwnershipRange(v.x, &lo, &hi));
    for (PetscInt i = lo; i < hi; i++)
      PetscCall(VecSetValue(v.x, i, 1.0 + (PetscScalar)(i % 7) / 8, INSERT_VALUES));
    PetscCall(VecAssemblyBegin(v.x));
    PetscCall(VecAssemblyEnd(v.x));
  }
  PetscCall(VecSet(v.y, 0.5));
  PetscCall(Synchronize(dev));

  // The first product with everything it sets up.
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  t0 = Clock::now();
  PetscCall(MatMult(A, v.x, v.y));
  PetscCall(Synchronize(dev));
  PetscCall(ElapsedMax(t0, &first));

  for (int k = kMult; k <= kMultTransposeAdd; k++)
    for (PetscInt i = 0; i < warmup; i++) PetscCall(Apply((Kind)k, A, v));
  PetscCall(Synchronize(dev));

  for (int k = kMult; k <= kMultTransposeAdd; k++) {
    PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
    t0 = Clock::now();
    for (PetscInt i = 0; i < calls; i++) PetscCall(Apply((Kind)k, A, v));
    PetscCall(Synchronize(dev));
    double seconds;
    PetscCall(ElapsedMax(t0, &seconds));
    per_call[k] = 1e6 * seconds / (double)calls;
  }

  // Hola's own counters where the matrix carries Hola's operations (products that went back to
  // PETSc's own operation are fallbacks).
  PetscBool attached = PETSC_FALSE;
  PetscInt hola_calls = 0, fallbacks = 0, analyses = 0;
  PetscCall(HolaPetscIsAttached(A, &attached));
  if (attached) PetscCall(HolaPetscGetStats(A, &hola_calls, &fallbacks, &analyses));

  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "%s (%s), %" PetscInt_FMT "^3 x %" PetscInt_FMT " = %" PetscInt_FMT
                        " rows, %.0f nonzeros, %d rank(s): first MatMult %.3f ms;",
                        type, petsc_type, n, dof, n * n * n * dof, (double)info.nz_used, (int)size,
                        1e3 * first));
  for (int k = kMult; k <= kMultTransposeAdd; k++)
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, " %s %.2f us", kNames[k], per_call[k]));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, " (per call, %" PetscInt_FMT " calls)\n", calls));
  // The JSON object once, for the "result: " line and for --output.
  char buf[512];
  std::snprintf(buf, sizeof(buf),
                "{\"type\": \"%s\", \"petsc_type\": \"%s\", \"n\": %" PetscInt_FMT
                ", \"dof\": %" PetscInt_FMT ", \"rows\": %" PetscInt_FMT
                ", \"nnz\": %.0f, \"ranks\": %d, \"calls\": %" PetscInt_FMT
                ", \"warmup\": %" PetscInt_FMT ", \"first_matmult_s\": %.6e",
                type, petsc_type, n, dof, n * n * n * dof, (double)info.nz_used, (int)size, calls,
                warmup, first);
  std::string json = buf;
  for (int k = kMult; k <= kMultTransposeAdd; k++) {
    std::snprintf(buf, sizeof(buf), ", \"%s\": %.4f", kKeys[k], per_call[k]);
    json += buf;
  }
  std::snprintf(buf, sizeof(buf),
                ", \"hola_attached\": %s, \"hola_calls\": %" PetscInt_FMT
                ", \"hola_fallbacks\": %" PetscInt_FMT ", \"hola_analyses\": %" PetscInt_FMT "}",
                attached ? "true" : "false", hola_calls, fallbacks, analyses);
  json += buf;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "result: %s\n", json.c_str()));
  if (!output.empty() && PetscGlobalRank == 0) {
    std::string err;
    try {
      hola::demo::write_result_json(output, command, json);
    } catch (const std::exception& e) {
      err = e.what();
    }
    PetscCheck(err.empty(), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "%s", err.c_str());
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "result written to %s\n", output.c_str()));
  }

  PetscCall(VecDestroy(&v.x));
  PetscCall(VecDestroy(&v.y));
  PetscCall(VecDestroy(&v.z));
  PetscCall(VecDestroy(&v.w));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

}  // namespace

int main(int argc, char** argv) {
  // Hola's common options with CLI11, every other argument to PETSc in order (petsc_cli.hpp), so
  // the PETSc command lines of scripts/device-petsc-tutorials.sh work unchanged.
  CLI::App app{
      "petsc_matmult_calls: microseconds per PETSc matrix product on a generated 3D 7-point "
      "Poisson problem (no matrix file). Every other argument is a PETSc option: -n 22 (grid "
      "points per direction), -dof 1 (unknowns per grid node), -calls 1000, -warmup 10, -mat_type "
      "aij|holaaij|aijcusparse|"
      "holaaijcusparse, -mat_hola_kernel NAME, -help (PETSc's list), ..."};
  std::string output, matrix;
  const std::string command = hola::demo::command_line(argc, argv);
  app.add_option("--output", output,
                 "also write the result JSON (the \"result:\" line, with commit and command) to "
                 "this file (rank 0)");
  // Refused with a reason rather than unknown: the common option exists, this program has no use.
  app.add_option("--matrix", matrix, "not supported: the problem is always the generated grid (-n)")
      ->check(CLI::Validator(
          [](std::string&) {
            return std::string(
                "petsc_matmult_calls times the generated 3D Poisson problem only (-n N); "
                "petsc_ksp --matrix FILE reads a Matrix Market file");
          },
          "", "generated problem only"));
  std::vector<char*> args;
  try {
    args = hola::demo::parse_hola_options(app, argc, argv, {"--matrix", "--output"});
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  int nargs = static_cast<int>(args.size()) - 1;
  char** pargs = args.data();
  PetscCall(PetscInitialize(&nargs, &pargs, nullptr,
                            "petsc_matmult_calls: microseconds per PETSc matrix product\n"));
  PetscCall(HolaPetscRegister());
  PetscCall(Run(output, command));
  PetscCall(PetscFinalize());
  return 0;
}
