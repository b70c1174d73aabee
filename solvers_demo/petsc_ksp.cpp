// petsc_ksp: solve a 3D Poisson problem (-n, default 64) or a Matrix Market file (-mtx) with any
// KSP / PC from the command line. The matrix type defaults to holaaij (-mat_type overrides);
// -compare solves again with PETSc's native aij and reports both.
//
//   mpiexec -n 4 petsc_ksp -n 64 -ksp_type cg -pc_type jacobi -compare
#include <petscksp.h>

#include <exception>
#include <string>

#include "hola/matrix_market.hpp"
#include "hola/petsc.h"

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
    const PetscInt n = p.n, nn = n * n;
    for (PetscInt r = rs; r < re; r++) {
      const PetscInt i = r / nn, j = (r / n) % n, k = r % n;
      PetscInt c[7], m = 0;
      PetscScalar v[7];
      c[m] = r, v[m++] = 6.0;
      if (i > 0) c[m] = r - nn, v[m++] = -1.0;
      if (i < n - 1) c[m] = r + nn, v[m++] = -1.0;
      if (j > 0) c[m] = r - n, v[m++] = -1.0;
      if (j < n - 1) c[m] = r + n, v[m++] = -1.0;
      if (k > 0) c[m] = r - 1, v[m++] = -1.0;
      if (k < n - 1) c[m] = r + 1, v[m++] = -1.0;
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

PetscErrorCode EventTime(PetscLogEvent event, PetscLogDouble* t) {
  PetscEventPerfInfo info;
  PetscFunctionBegin;
  PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, event, &info));
  *t = info.time;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Solves with matrix type `type`; prints iterations, solve time and the MatMult share.
PetscErrorCode SolveWith(const Problem& p, MatType type, PetscInt* its) {
  Mat A;
  KSP ksp;
  Vec b, u;
  PetscLogEvent mult_event;
  PetscLogDouble t0, t1, m0, m1, tmax, mmax;
  KSPConvergedReason reason;
  PetscReal rnorm;
  MatType actual;
  PetscFunctionBegin;
  PetscCall(Assemble(p, type, &A));
  PetscCall(MatGetType(A, &actual));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(MatCreateVecs(A, &u, &b));
  PetscCall(VecSet(b, 1.0));
  PetscCall(KSPSetUp(ksp));
  PetscCall(PetscLogEventGetId("MatMult", &mult_event));
  PetscCall(EventTime(mult_event, &m0));
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscCall(PetscTime(&t0));
  PetscCall(KSPSolve(ksp, b, u));
  PetscCall(PetscTime(&t1));
  PetscCall(EventTime(mult_event, &m1));
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(KSPGetResidualNorm(ksp, &rnorm));
  t1 -= t0;
  m1 -= m0;
  PetscCallMPI(MPI_Allreduce(&t1, &tmax, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
  PetscCallMPI(MPI_Allreduce(&m1, &mmax, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "%-8s (%s): %" PetscInt_FMT " iterations, %s, residual %.3e, solve %.4f s, "
                        "MatMult %.4f s (%.1f%%)\n",
                        type, actual, *its, KSPConvergedReasons[reason], (double)rnorm, tmax, mmax,
                        tmax > 0 ? 100.0 * mmax / tmax : 0.0));
  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&b));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Run() {
  Problem p;
  char type[64] = MATHOLAAIJ, file[PETSC_MAX_PATH_LEN] = "";
  PetscBool compare = PETSC_FALSE, has_file = PETSC_FALSE;
  PetscInt its, its_native;

  PetscFunctionBegin;
  PetscOptionsBegin(PETSC_COMM_WORLD, nullptr, "petsc_ksp: Hola in PETSc's KSP", nullptr);
  PetscCall(
      PetscOptionsInt("-n", "3D Poisson grid points per direction", nullptr, p.n, &p.n, nullptr));
  PetscCall(PetscOptionsString("-mtx", "Matrix Market file instead of the Poisson problem", nullptr,
                               file, file, sizeof(file), &has_file));
  PetscCall(
      PetscOptionsString("-mat_type", "matrix type", nullptr, type, type, sizeof(type), nullptr));
  PetscCall(PetscOptionsBool("-compare", "also solve with PETSc's native aij", nullptr, compare,
                             &compare, nullptr));
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
  PetscCall(SolveWith(p, type, &its));
  if (compare) {
    PetscCall(SolveWith(p, MATAIJ, &its_native));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "%s iterations as native aij (%" PetscInt_FMT " vs %" PetscInt_FMT ")\n",
                          its == its_native ? "same" : "DIFFERENT", its, its_native));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

}  // namespace

int main(int argc, char** argv) {
  PetscCall(PetscInitialize(&argc, &argv, nullptr, "petsc_ksp: Hola in PETSc's KSP\n"));
  PetscCall(PetscLogDefaultBegin());
  PetscCall(HolaPetscRegister());
  PetscCall(Run());
  PetscCall(PetscFinalize());
  return 0;
}
