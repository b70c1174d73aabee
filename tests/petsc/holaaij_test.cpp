// holaaij against PETSc's own AIJ: every product, KSP iteration counts, duplicates, new values,
// new nonzeros and MatBindToCPU. Run with 1, 2 and 4 ranks; with more than one rank the last rank
// owns no rows. Exit code 0 when every check passed.
#include <petscksp.h>

#include "hola/petsc.h"

#if !PETSC_VERSION_GE(3, 19, 0)
#define PETSC_SUCCESS 0
#endif

namespace {

int failures = 0;

PetscErrorCode Check(bool ok, const char* what, double value) {
  PetscFunctionBegin;
  if (!ok) failures++;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s %-44s %.3g\n", ok ? "ok  " : "FAIL", what, value));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// n*n unknowns; the last rank owns none when there are several.
PetscErrorCode LocalRows(PetscInt N, PetscInt* mloc) {
  PetscMPIInt rank, size;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  if (size == 1)
    *mloc = N;
  else {
    const PetscInt parts = size - 1;
    *mloc = rank == size - 1 ? 0 : N / parts + (rank < N % parts ? 1 : 0);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Create(MatType type, PetscInt n, Mat* A) {
  PetscInt m;
  PetscFunctionBegin;
  PetscCall(LocalRows(n * n, &m));
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, m, m, n * n, n * n));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSeqAIJSetPreallocation(*A, 5, nullptr));
  PetscCall(MatMPIAIJSetPreallocation(*A, 5, nullptr, 2, nullptr));
  PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Shifted 2D Laplacian with a small unsymmetric convection term; `extra` adds far-away entries.
PetscErrorCode Fill(Mat A, PetscInt n, PetscScalar shift, PetscBool extra) {
  PetscInt rs, re;
  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  for (PetscInt r = rs; r < re; r++) {
    const PetscInt i = r / n, j = r % n;
    PetscCall(MatSetValue(A, r, r, 4.0 + shift, INSERT_VALUES));
    if (i > 0) PetscCall(MatSetValue(A, r, r - n, -1.0, INSERT_VALUES));
    if (i < n - 1) PetscCall(MatSetValue(A, r, r + n, -1.0, INSERT_VALUES));
    if (j > 0) PetscCall(MatSetValue(A, r, r - 1, -1.1, INSERT_VALUES));
    if (j < n - 1) PetscCall(MatSetValue(A, r, r + 1, -0.9, INSERT_VALUES));
    if (extra) PetscCall(MatSetValue(A, r, (r + n * n / 2) % (n * n), 0.01, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode RelDiff(Vec a, Vec ref, PetscReal* rel) {
  Vec d;
  PetscReal nd, nr;
  PetscFunctionBegin;
  PetscCall(VecDuplicate(a, &d));
  PetscCall(VecWAXPY(d, -1.0, ref, a));
  PetscCall(VecNorm(d, NORM_2, &nd));
  PetscCall(VecNorm(ref, NORM_2, &nr));
  *rel = nr > 0 ? nd / nr : nd;
  PetscCall(VecDestroy(&d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// All products of A against R; also checks that Hola's kernels ran.
PetscErrorCode Compare(const char* what, Mat A, Mat R) {
  Vec x, y, yr, w, xt, zt, ztr, wt;
  PetscReal e;
  PetscInt before, after;
  char label[128];
  const PetscReal tol = 1e-12;

  PetscFunctionBegin;
  PetscCall(HolaPetscGetStats(A, &before, nullptr, nullptr));
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecDuplicate(y, &yr));
  PetscCall(VecDuplicate(y, &w));
  PetscCall(VecDuplicate(x, &xt));
  PetscCall(VecDuplicate(x, &zt));
  PetscCall(VecDuplicate(x, &ztr));
  PetscCall(VecDuplicate(x, &wt));
  PetscCall(VecSetRandom(x, nullptr));
  PetscCall(VecSetRandom(w, nullptr));
  PetscCall(VecSetRandom(wt, nullptr));

  PetscCall(MatMult(A, x, y));
  PetscCall(MatMult(R, x, yr));
  PetscCall(RelDiff(y, yr, &e));
  PetscCall(PetscSNPrintf(label, sizeof(label), "%s: MatMult", what));
  PetscCall(Check(e <= tol, label, e));

  PetscCall(MatMultAdd(A, x, w, y));  // y = w + A x
  PetscCall(MatMultAdd(R, x, w, yr));
  PetscCall(RelDiff(y, yr, &e));
  PetscCall(PetscSNPrintf(label, sizeof(label), "%s: MatMultAdd", what));
  PetscCall(Check(e <= tol, label, e));

  PetscCall(MatMultAdd(A, x, y, y));  // z == y
  PetscCall(MatMultAdd(R, x, yr, yr));
  PetscCall(RelDiff(y, yr, &e));
  PetscCall(PetscSNPrintf(label, sizeof(label), "%s: MatMultAdd z==y", what));
  PetscCall(Check(e <= tol, label, e));

  PetscCall(MatMultTranspose(A, w, zt));
  PetscCall(MatMultTranspose(R, w, ztr));
  PetscCall(RelDiff(zt, ztr, &e));
  PetscCall(PetscSNPrintf(label, sizeof(label), "%s: MatMultTranspose", what));
  PetscCall(Check(e <= tol, label, e));

  PetscCall(MatMultTransposeAdd(A, w, wt, zt));
  PetscCall(MatMultTransposeAdd(R, w, wt, ztr));
  PetscCall(RelDiff(zt, ztr, &e));
  PetscCall(PetscSNPrintf(label, sizeof(label), "%s: MatMultTransposeAdd", what));
  PetscCall(Check(e <= tol, label, e));

  PetscCall(MatMultTransposeAdd(A, w, zt, zt));
  PetscCall(MatMultTransposeAdd(R, w, ztr, ztr));
  PetscCall(RelDiff(zt, ztr, &e));
  PetscCall(PetscSNPrintf(label, sizeof(label), "%s: MatMultTransposeAdd z==y", what));
  PetscCall(Check(e <= tol, label, e));

  PetscCall(HolaPetscGetStats(A, &after, nullptr, nullptr));
  PetscInt calls = after - before, total = 0;
  PetscCallMPI(MPI_Allreduce(&calls, &total, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(PetscSNPrintf(label, sizeof(label), "%s: Hola kernel calls", what));
  PetscCall(Check(total > 0, label, (double)total));

  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yr));
  PetscCall(VecDestroy(&w));
  PetscCall(VecDestroy(&xt));
  PetscCall(VecDestroy(&zt));
  PetscCall(VecDestroy(&ztr));
  PetscCall(VecDestroy(&wt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Solve(Mat A, KSPType type, PetscInt* its) {
  KSP ksp;
  PC pc;
  Vec b, u;
  PetscFunctionBegin;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, type));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, 500));
  PetscCall(MatCreateVecs(A, &u, &b));
  PetscCall(VecSet(b, 1.0));
  PetscCall(KSPSolve(ksp, b, u));
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&b));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SolveBoth(const char* what, Mat A, Mat R, KSPType type) {
  PetscInt ia, ir;
  char label[128];
  PetscFunctionBegin;
  PetscCall(Solve(A, type, &ia));
  PetscCall(Solve(R, type, &ir));
  PetscCall(PetscSNPrintf(label, sizeof(label), "%s: KSP %s its %d == native %d", what, type,
                          (int)ia, (int)ir));
  PetscCall(Check(ia == ir && ia > 0, label, (double)ia));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Run() {
  Mat A, R, S, RS, D;
  PetscInt n = 16;
  PetscBool attached;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetInt(nullptr, nullptr, "-n", &n, nullptr));
  PetscCall(Create(MATHOLAAIJ, n, &A));
  PetscCall(Create(MATAIJ, n, &R));
  PetscCall(Fill(A, n, 0.0, PETSC_FALSE));
  PetscCall(Fill(R, n, 0.0, PETSC_FALSE));
  PetscCall(HolaPetscIsAttached(A, &attached));
  PetscCall(Check(attached == PETSC_TRUE, "holaaij carries Hola's operations", 0));
  PetscCall(Compare("assembled", A, R));

  // Symmetric positive definite copy for CG (no convection term).
  PetscCall(Create(MATHOLAAIJ, n, &S));
  PetscCall(Create(MATAIJ, n, &RS));
  for (Mat M : {S, RS}) {
    PetscCall(MatZeroEntries(M));
    PetscInt rs, re;
    PetscCall(MatGetOwnershipRange(M, &rs, &re));
    for (PetscInt r = rs; r < re; r++) {
      const PetscInt i = r / n, j = r % n;
      PetscCall(MatSetValue(M, r, r, 4.0, INSERT_VALUES));
      if (i > 0) PetscCall(MatSetValue(M, r, r - n, -1.0, INSERT_VALUES));
      if (i < n - 1) PetscCall(MatSetValue(M, r, r + n, -1.0, INSERT_VALUES));
      if (j > 0) PetscCall(MatSetValue(M, r, r - 1, -1.0, INSERT_VALUES));
      if (j < n - 1) PetscCall(MatSetValue(M, r, r + 1, -1.0, INSERT_VALUES));
    }
    PetscCall(MatAssemblyBegin(M, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(M, MAT_FINAL_ASSEMBLY));
  }
  PetscCall(SolveBoth("SPD", S, RS, KSPCG));
  PetscCall(SolveBoth("unsym", A, R, KSPGMRES));
  PetscCall(SolveBoth("unsym", A, R, KSPBCGS));

  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &D));
  PetscCall(HolaPetscIsAttached(D, &attached));
  PetscCall(Check(attached == PETSC_TRUE, "MatDuplicate keeps Hola", 0));
  PetscCall(Compare("MatDuplicate", D, R));
  PetscCall(MatDestroy(&D));

  PetscCall(Fill(A, n, 1.0, PETSC_FALSE));  // same pattern, new values
  PetscCall(Fill(R, n, 1.0, PETSC_FALSE));
  PetscCall(Compare("new values", A, R));
  PetscCall(Fill(A, n, 1.0, PETSC_TRUE));  // new nonzeros after assembly
  PetscCall(Fill(R, n, 1.0, PETSC_TRUE));
  PetscCall(Compare("new nonzeros", A, R));
  PetscCall(SolveBoth("new nonzeros", A, R, KSPGMRES));

  PetscCall(MatBindToCPU(A, PETSC_TRUE));
  PetscCall(Compare("MatBindToCPU(true)", A, R));
  PetscCall(MatBindToCPU(A, PETSC_FALSE));
  PetscCall(Compare("MatBindToCPU(false)", A, R));

  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&R));
  PetscCall(MatDestroy(&S));
  PetscCall(MatDestroy(&RS));
  PetscFunctionReturn(PETSC_SUCCESS);
}

}  // namespace

int main(int argc, char** argv) {
  PetscCall(PetscInitialize(&argc, &argv, nullptr, nullptr));
  PetscCall(HolaPetscRegister());
  PetscCall(Run());
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %d failure(s)\n", failures ? "FAILED" : "PASSED",
                        failures));
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}
