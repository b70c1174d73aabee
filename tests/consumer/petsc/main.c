/* A program outside the Hola tree linking the installed libholapetsc: a holaaij matrix must give
   the product of PETSc's own AIJ, computed by Hola's kernels. */
#include <petscmat.h>

#include "hola/petsc.h"

#if !PETSC_VERSION_GE(3, 19, 0)
#define PETSC_SUCCESS 0
#endif

/* A nonsymmetric tridiagonal matrix of n rows, in a matrix of the given type. */
static PetscErrorCode CreateMatrix(MatType type, PetscInt n, Mat* A) {
  PetscInt lo, hi;

  PetscFunctionBeginUser;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, n, n));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSetUp(*A));
  PetscCall(MatGetOwnershipRange(*A, &lo, &hi));
  for (PetscInt i = lo; i < hi; i++) {
    if (i > 0) PetscCall(MatSetValue(*A, i, i - 1, -1.0, INSERT_VALUES));
    PetscCall(MatSetValue(*A, i, i, 2.0 + 0.1 * i, INSERT_VALUES));
    if (i < n - 1) PetscCall(MatSetValue(*A, i, i + 1, -0.5, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char** argv) {
  const PetscInt n = 50;
  Mat A, ref;
  Vec x, y, yref;
  PetscReal err, norm;
  PetscBool attached;
  PetscInt products, fallbacks, analyses;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(HolaPetscRegister());
  PetscCall(CreateMatrix(MATHOLAAIJ, n, &A));
  PetscCall(CreateMatrix(MATAIJ, n, &ref));
  PetscCall(MatCreateVecs(ref, &x, &yref));
  PetscCall(VecDuplicate(yref, &y));
  PetscCall(VecSetRandom(x, NULL));
  PetscCall(MatMult(A, x, y));
  PetscCall(MatMult(ref, x, yref));
  PetscCall(VecNorm(yref, NORM_INFINITY, &norm));
  PetscCall(VecAXPY(y, -1.0, yref));
  PetscCall(VecNorm(y, NORM_INFINITY, &err));
  PetscCall(HolaPetscIsAttached(A, &attached));
  PetscCall(HolaPetscGetStats(A, &products, &fallbacks, &analyses));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "holaaij: Hola attached %d, products %d, fallbacks %d, max error %g\n",
                        (int)attached, (int)products, (int)fallbacks, (double)err));
  /* A product handed back to PETSc would pass the comparison without testing Hola. */
  PetscCheck(attached && products > 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB,
             "the holaaij product did not run Hola's kernels");
  PetscCheck(err <= 1e-12 * norm, PETSC_COMM_WORLD, PETSC_ERR_PLIB,
             "holaaij differs from MATAIJ: max error %g", (double)err);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PASSED\n"));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yref));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&ref));
  PetscCall(PetscFinalize());
  return 0;
}
