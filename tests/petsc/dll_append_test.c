/* A PETSc program that knows nothing of Hola: run it with
   -dll_append <build>/adapters/petsc/libholapetsc.so -mat_type holaaij. It checks that MatMult
   of the matrix from the options equals PETSc's AIJ and that the matrix's MatMult is not
   PETSc's own (Hola's operations were installed). */
#include <petscmat.h>

#if !PETSC_VERSION_GE(3, 19, 0)
#define PETSC_SUCCESS 0
#endif
#if PETSC_VERSION_GE(3, 24, 0)
typedef PetscErrorCodeFn* OpPtr;
#else
typedef void (*OpPtr)(void);
#endif

static PetscErrorCode Build(Mat A, PetscInt n) {
  PetscInt rs, re;

  PetscFunctionBegin;
  PetscCall(MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, n * n, n * n));
  PetscCall(MatSetUp(A));
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  for (PetscInt r = rs; r < re; r++) {
    PetscInt i = r / n, j = r % n;
    PetscCall(MatSetValue(A, r, r, 4.0, INSERT_VALUES));
    if (i > 0) PetscCall(MatSetValue(A, r, r - n, -1.0, INSERT_VALUES));
    if (i < n - 1) PetscCall(MatSetValue(A, r, r + n, -1.0, INSERT_VALUES));
    if (j > 0) PetscCall(MatSetValue(A, r, r - 1, -1.0, INSERT_VALUES));
    if (j < n - 1) PetscCall(MatSetValue(A, r, r + 1, -1.0, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char** argv) {
  Mat A, R;
  Vec x, y, yr;
  PetscReal e, nr;
  OpPtr fa, fr;
  MatType t;
  PetscInt n = 10;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
  PetscCall(MatSetFromOptions(A));
  PetscCall(Build(A, n));
  PetscCall(MatCreate(PETSC_COMM_WORLD, &R));
  PetscCall(MatSetType(R, MATAIJ));
  PetscCall(Build(R, n));
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecDuplicate(y, &yr));
  PetscCall(VecSetRandom(x, NULL));
  PetscCall(MatMult(A, x, y));
  PetscCall(MatMult(R, x, yr));
  PetscCall(VecNorm(yr, NORM_2, &nr));
  PetscCall(VecAXPY(yr, -1.0, y));
  PetscCall(VecNorm(yr, NORM_2, &e));
  PetscCall(MatGetOperation(A, MATOP_MULT, &fa));
  PetscCall(MatGetOperation(R, MATOP_MULT, &fr));
  PetscCall(MatGetType(A, &t));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "type %s, relative error %g, MatMult replaced: %s\n", t,
                        (double)(e / nr), fa != fr ? "yes" : "no"));
  PetscCheck(e <= 1e-12 * nr, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "MatMult differs from AIJ");
  PetscCheck(fa != fr, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "holaaij did not install its MatMult");
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PASSED\n"));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yr));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&R));
  PetscCall(PetscFinalize());
  return 0;
}
