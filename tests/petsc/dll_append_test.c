/* A PETSc program that knows nothing of Hola: run it with
   -dll_append <build>/adapters/petsc/libholapetsc.so -mat_type holaaij (or holaaijcusparse with
   -ref_mat_type aijcusparse). It checks that MatMult of the matrix from the options equals the
   reference type's (default aij) and that the matrix's MatMult is not PETSc's own (Hola's
   operations were installed). With -skip_without_cuda_device it exits with 77 (skipped) where
   PETSc cannot start a CUDA device. */
#include <petscmat.h>
#if defined(PETSC_HAVE_CUDA)
#include <petscdevice.h>
#endif

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

/* True when PETSc has CUDA and can start a device on every rank. */
static PetscErrorCode HaveCudaDevice(PetscBool* have) {
  int local = 0, all = 0;

  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  local = PetscDeviceInitialize(PETSC_DEVICE_CUDA) == PETSC_SUCCESS;
  PetscCall(PetscPopErrorHandler());
#endif
  PetscCallMPI(MPI_Allreduce(&local, &all, 1, MPI_INT, MPI_MIN, PETSC_COMM_WORLD));
  *have = all ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char** argv) {
  Mat A, R;
  Vec x, y, yr;
  PetscReal e, nr;
  OpPtr fa, fr;
  MatType t;
  PetscInt n = 10;
  PetscBool skip_without = PETSC_FALSE, have;
  char ref_type[64] = "aij";

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-skip_without_cuda_device", &skip_without, NULL));
  if (skip_without) {
    PetscCall(HaveCudaDevice(&have));
    if (!have) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "SKIPPED: no CUDA device\n"));
      PetscCall(PetscFinalize());
      return 77;
    }
  }
  PetscCall(PetscOptionsGetString(NULL, NULL, "-ref_mat_type", ref_type, sizeof(ref_type), NULL));
  PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
  PetscCall(MatSetFromOptions(A));
  PetscCall(Build(A, n));
  PetscCall(MatCreate(PETSC_COMM_WORLD, &R));
  PetscCall(MatSetType(R, ref_type));
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
  PetscCheck(e <= 1e-12 * nr, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "MatMult differs from %s",
             ref_type);
  PetscCheck(fa != fr, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s did not install its MatMult", t);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PASSED\n"));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yr));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&R));
  PetscCall(PetscFinalize());
  return 0;
}
