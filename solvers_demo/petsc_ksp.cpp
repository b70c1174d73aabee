// petsc_ksp: solve a 3D Poisson problem (-n, default 64) or a Matrix Market file (--matrix, or
// PETSc's -mtx / -matrix) with any KSP / PC from the command line. The options common to every Hola
// program (--matrix FILE, --kernel NAME, --output FILE, --help) are read with CLI11; every other
// argument goes to PETSc unchanged. The matrix type defaults to holaaijcusparse where PETSc has
// CUDA and a GPU is present, else holaaij (-mat_type overrides); -compare solves again with PETSc's
// own type underneath (aijcusparse, aij) and reports both.
//
//   mpiexec -n 4 petsc_ksp -n 64 -ksp_type cg -pc_type jacobi -compare
//
// Each solve prints a line for people and a "result: {...}" JSON line for scripts: iterations,
// solve time, and count, time and share of MatMult and MatMultTranspose during the solve
// (--output FILE writes them, with the commit, the command and the kernel option). On the
// GPU the event times are launch times unless -log_view_gpu_time makes PETSc time the kernels
// ("gpu_s"). A product before the solve keeps one-time setup (Hola's analysis, cuSPARSE buffers)
// out of the numbers, for both types alike.
#include <petscksp.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>
#include <exception>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "grid_problems.hpp"
#include "hola/matrix_market.hpp"
#include "hola/petsc.h"
#include "petsc_cli.hpp"
#include "run_info.hpp"

#if !PETSC_VERSION_GE(3, 19, 0)
#define PETSC_SUCCESS 0
#endif

namespace {

struct Problem {
  PetscInt n = 64;
  std::string mtx;
  hola::CsrMatrix<PetscScalar, PetscInt, PetscInt> file;  // the -mtx matrix (every rank reads it)
  PetscInt rows = 0, cols = 0;
};

// What one event did during the solve, maximum over the ranks.
struct EventUse {
  PetscInt count = 0;
  PetscLogDouble seconds = 0, gpu_seconds = 0;
};

struct Result {
  PetscInt its = 0;
  KSPConvergedReason reason = KSP_CONVERGED_ITERATING;
  PetscReal rnorm = 0;
  PetscLogDouble solve_seconds = 0;
  EventUse mult, mult_transpose;
  std::string json;  // the "result: " object
};

PetscErrorCode Assemble(const Problem& p, MatType type, Mat* A) {
  PetscInt rs, re;
  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, p.rows, p.cols));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSeqAIJSetPreallocation(*A, 7, nullptr));
  PetscCall(MatMPIAIJSetPreallocation(*A, 7, nullptr, 7, nullptr));
  PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatGetOwnershipRange(*A, &rs, &re));
  if (p.mtx.empty()) {
    for (PetscInt r = rs; r < re; r++) {
      PetscInt c[7], m = 0;
      PetscScalar v[7];
      hola::grid::poisson3d_row(p.n, r, [&](PetscInt col, double value) {
        c[m] = col;
        v[m++] = value;
      });
      PetscCall(MatSetValues(*A, 1, &r, m, c, v, INSERT_VALUES));
    }
  } else {
    for (PetscInt r = rs; r < re; r++) {
      const PetscInt b = p.file.row_ptr[r], e = p.file.row_ptr[r + 1];
      PetscCall(MatSetValues(*A, 1, &r, e - b, p.file.col_idx.data() + b, p.file.values.data() + b,
                             INSERT_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode EventSnapshot(const char* name, EventUse* use) {
  PetscLogEvent event;
  PetscEventPerfInfo info;
  PetscFunctionBegin;
  PetscCall(PetscLogEventGetId(name, &event));
  PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, event, &info));
  use->count = info.count;
  use->seconds = info.time;
#if defined(PETSC_HAVE_DEVICE)
  use->gpu_seconds = info.GpuTime;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

// after - before, maximum over the ranks.
PetscErrorCode EventDelta(const EventUse& before, const EventUse& after, EventUse* delta) {
  PetscLogDouble local[3] = {(PetscLogDouble)(after.count - before.count),
                             after.seconds - before.seconds,
                             after.gpu_seconds - before.gpu_seconds},
                 all[3];
  PetscFunctionBegin;
  PetscCallMPI(MPI_Allreduce(local, all, 3, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
  delta->count = (PetscInt)all[0];
  delta->seconds = all[1];
  delta->gpu_seconds = all[2];
  PetscFunctionReturn(PETSC_SUCCESS);
}

// KSP types that multiply by the transpose.
bool UsesTranspose(KSPType type) {
  for (const char* t : {KSPLSQR, KSPCGLS, KSPCGNE, KSPBICG})
    if (std::strcmp(type, t) == 0) return true;
  return false;
}

// Solves with matrix type `type`; prints the results.
PetscErrorCode SolveWith(const Problem& p, const char* type, Result* r) {
  Mat A;
  KSP ksp;
  KSPType ksp_type;
  Vec b, u, tb, tu;
  PetscLogDouble t0, t1;
  EventUse m0, m1, mt0, mt1;
  MatType actual;
  PetscMPIInt size;
  PetscFunctionBegin;
  PetscCall(Assemble(p, type, &A));
  PetscCall(MatGetType(A, &actual));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPGetType(ksp, &ksp_type));
  PetscCall(MatCreateVecs(A, &u, &b));
  PetscCall(KSPSetUp(ksp));
  // One-time setup of the products outside the timed solve.
  PetscCall(VecDuplicate(u, &tu));
  PetscCall(VecDuplicate(b, &tb));
  PetscCall(VecSet(tu, 1.0));
  PetscCall(MatMult(A, tu, tb));
  if (UsesTranspose(ksp_type)) PetscCall(MatMultTranspose(A, tb, tu));
  PetscCall(VecDestroy(&tu));
  PetscCall(VecDestroy(&tb));
  PetscCall(VecSet(b, 1.0));

  PetscCall(EventSnapshot("MatMult", &m0));
  PetscCall(EventSnapshot("MatMultTranspose", &mt0));
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscCall(PetscTime(&t0));
  PetscCall(KSPSolve(ksp, b, u));
  PetscCall(PetscTime(&t1));
  PetscCall(EventSnapshot("MatMult", &m1));
  PetscCall(EventSnapshot("MatMultTranspose", &mt1));
  PetscCall(KSPGetIterationNumber(ksp, &r->its));
  PetscCall(KSPGetConvergedReason(ksp, &r->reason));
  PetscCall(KSPGetResidualNorm(ksp, &r->rnorm));
  t1 -= t0;
  PetscCallMPI(MPI_Allreduce(&t1, &r->solve_seconds, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
  PetscCall(EventDelta(m0, m1, &r->mult));
  PetscCall(EventDelta(mt0, mt1, &r->mult_transpose));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));

  const double share = r->solve_seconds > 0 ? 100.0 * r->mult.seconds / r->solve_seconds : 0.0;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "%-16s (%s): %" PetscInt_FMT
                        " iterations, %s, residual %.3e, solve %.4f s, "
                        "MatMult %" PetscInt_FMT " x %.4f s (%.1f%%)",
                        type, actual, r->its, KSPConvergedReasons[r->reason], (double)r->rnorm,
                        r->solve_seconds, r->mult.count, r->mult.seconds, share));
  if (r->mult.gpu_seconds > 0)
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, ", GPU %.4f s", r->mult.gpu_seconds));
  if (r->mult_transpose.count > 0)
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, ", MatMultTranspose %" PetscInt_FMT " x %.4f s",
                          r->mult_transpose.count, r->mult_transpose.seconds));
  if (r->mult_transpose.gpu_seconds > 0)
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, ", GPU %.4f s", r->mult_transpose.gpu_seconds));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));
  char json[2048];
  std::snprintf(
      json, sizeof(json),
      "{\"type\": \"%s\", \"petsc_type\": \"%s\", \"ksp_type\": \"%s\", \"ranks\": %d, "
      "\"rows\": %" PetscInt_FMT ", \"cols\": %" PetscInt_FMT ", \"iterations\": %" PetscInt_FMT
      ", \"converged_reason\": \"%s\", \"residual\": %.6e, \"solve_s\": %.6f, "
      "\"matmult_count\": %" PetscInt_FMT
      ", \"matmult_s\": %.6f, \"matmult_gpu_s\": %.6f, "
      "\"matmulttranspose_count\": %" PetscInt_FMT
      ", \"matmulttranspose_s\": %.6f, \"matmulttranspose_gpu_s\": %.6f}",
      type, actual, ksp_type, (int)size, p.rows, p.cols, r->its, KSPConvergedReasons[r->reason],
      (double)r->rnorm, r->solve_seconds, r->mult.count, r->mult.seconds, r->mult.gpu_seconds,
      r->mult_transpose.count, r->mult_transpose.seconds, r->mult_transpose.gpu_seconds);
  r->json = json;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "result: %s\n", json));
  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&b));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// holaaijcusparse where every rank sees a GPU (and Hola was built against a CUDA PETSc).
PetscErrorCode DefaultType(char* type, size_t len) {
  PetscBool here;
  PetscMPIInt local, all;
  PetscFunctionBegin;
  PetscCall(HolaPetscDeviceAvailable(&here));
  local = here ? 1 : 0;
  PetscCallMPI(MPI_Allreduce(&local, &all, 1, MPI_INT, MPI_MIN, PETSC_COMM_WORLD));
  PetscCall(PetscStrncpy(type, all ? MATHOLAAIJCUSPARSE : MATHOLAAIJ, len));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The PETSc type a Hola type is built on ("holaaijcusparse" -> "aijcusparse"); others unchanged.
void NativeType(const char* type, char* native, size_t len) {
  const char* base = std::strncmp(type, "hola", 4) == 0 ? type + 4 : type;
  std::strncpy(native, base, len - 1);
  native[len - 1] = '\0';
}

// `output`: where to write the results as JSON (rank 0; none when empty).
PetscErrorCode Run(const std::string& output, const std::string& command) {
  Problem p;
  char type[64], native[64], file[PETSC_MAX_PATH_LEN] = "";
  PetscBool compare = PETSC_FALSE, has_file = PETSC_FALSE;
  Result hola, base;

  PetscFunctionBegin;
  PetscCall(DefaultType(type, sizeof(type)));
  PetscOptionsBegin(PETSC_COMM_WORLD, nullptr, "petsc_ksp: Hola in PETSc's KSP", nullptr);
  PetscCall(
      PetscOptionsInt("-n", "3D Poisson grid points per direction", nullptr, p.n, &p.n, nullptr));
  PetscCall(PetscOptionsString("-mtx", "Matrix Market file instead of the Poisson problem", nullptr,
                               file, file, sizeof(file), &has_file));
  if (!has_file)
    PetscCall(PetscOptionsString("-matrix", "same as -mtx (and --matrix)", nullptr, file, file,
                                 sizeof(file), &has_file));
  PetscCall(
      PetscOptionsString("-mat_type", "matrix type", nullptr, type, type, sizeof(type), nullptr));
  PetscCall(PetscOptionsBool("-compare", "also solve with PETSc's type underneath", nullptr,
                             compare, &compare, nullptr));
  PetscOptionsEnd();
  if (has_file) {
    p.mtx = file;
    std::string err;
    try {
      p.file = hola::read_matrix_market<PetscScalar, PetscInt, PetscInt>(p.mtx);
    } catch (const std::exception& e) {
      err = e.what();
    }
    PetscCheck(err.empty(), PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "%s", err.c_str());
    p.rows = (PetscInt)p.file.rows;
    p.cols = (PetscInt)p.file.cols;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "matrix %s: %" PetscInt_FMT " x %" PetscInt_FMT ", %lld nonzeros\n", file,
                          p.rows, p.cols, (long long)p.file.nnz()));
  } else {
    p.rows = p.cols = p.n * p.n * p.n;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "3D Poisson %" PetscInt_FMT "^3: %" PetscInt_FMT " unknowns\n", p.n,
                          p.rows));
  }
  PetscCall(SolveWith(p, type, &hola));
  NativeType(type, native, sizeof(native));
  if (compare) {
    PetscCall(SolveWith(p, native, &base));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "%s iterations as native %s (%" PetscInt_FMT " vs %" PetscInt_FMT ")\n",
                          hola.its == base.its ? "same" : "DIFFERENT", native, hola.its, base.its));
    // Kernel times where PETSc measured them (-log_view_gpu_time), else event times.
    const bool gpu = hola.mult.gpu_seconds > 0 && base.mult.gpu_seconds > 0;
    const double th = gpu ? hola.mult.gpu_seconds : hola.mult.seconds;
    const double tb = gpu ? base.mult.gpu_seconds : base.mult.seconds;
    if (tb > 0)
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "MatMult %s time %s / %s: %.3f\n",
                            gpu ? "GPU" : "event", type, native, th / tb));
  }
  if (!output.empty() && PetscGlobalRank == 0) {
    char kernel[64] = "auto";
    PetscCall(PetscOptionsGetString(nullptr, nullptr, "-mat_hola_kernel", kernel, sizeof(kernel),
                                    nullptr));
    std::string err;
    try {
      // The requested kernel: PETSc's interface does not report the one chosen (-mat_hola_view).
      const std::string result = "{\"kernel\": " + nlohmann::json(kernel).dump() +
                                 ", \"solves\": [" + hola.json + (compare ? ", " + base.json : "") +
                                 "]}";
      hola::demo::write_result_json(output, command, result);
    } catch (const std::exception& e) {
      err = e.what();
    }
    PetscCheck(err.empty(), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "%s", err.c_str());
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "results written to %s\n", output.c_str()));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

}  // namespace

int main(int argc, char** argv) {
  // The common options first (CLI11); what it does not know is PETSc's, passed on in order.
  CLI::App app{
      "petsc_ksp: Hola in PETSc's KSP (every PETSc option works too: -n 64, -mtx FILE, "
      "-mat_type holaaij, -compare, -ksp_type cg, -pc_type jacobi, -help, ...)"};
  std::string matrix, kernel, output;
  const std::string command = hola::demo::command_line(argc, argv);
  // Long names only: PETSc's single-dash options (-ksp_type, -mat_type) would read as -k, -m.
  app.add_option("--matrix", matrix, "Matrix Market file instead of the 3D Poisson problem")
      ->check(CLI::ExistingFile);
  app.add_option("--kernel", kernel, "Hola kernel (same as -mat_hola_kernel)");
  app.add_option("--output", output,
                 "write the results (iterations, converged reason, solve time per solve; kernel "
                 "option, commit, command) to this JSON file (rank 0)");
  // The common options may come anywhere (petsc_cli.hpp).
  std::vector<char*> args;
  try {
    args = hola::demo::parse_hola_options(app, argc, argv, {"--matrix", "--kernel", "--output"});
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  int nargs = static_cast<int>(args.size()) - 1;
  char** pargs = args.data();

  PetscCall(PetscInitialize(&nargs, &pargs, nullptr, "petsc_ksp: Hola in PETSc's KSP\n"));
  if (!matrix.empty()) PetscCall(PetscOptionsSetValue(nullptr, "-mtx", matrix.c_str()));
  if (!kernel.empty()) PetscCall(PetscOptionsSetValue(nullptr, "-mat_hola_kernel", kernel.c_str()));
  PetscCall(PetscLogDefaultBegin());
  PetscCall(HolaPetscRegister());
  PetscCall(Run(output, command));
  PetscCall(PetscFinalize());
  return 0;
}
