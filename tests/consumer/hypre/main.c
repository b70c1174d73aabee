/* A program outside the Hola tree linking the installed libholahypre: HYPRE's PCG with Hola's
   matvec solves a 1D Poisson problem. */
#include <stdio.h>

#include <HYPRE.h>
#include <HYPRE_IJ_mv.h>
#include <HYPRE_parcsr_ls.h>
#include <mpi.h>

#include "hola/hypre.h"

#define CHECK(call)                                                                               \
  do {                                                                                            \
    HYPRE_Int check_rc_ = (call);                                                                 \
    if (check_rc_ != 0) {                                                                         \
      printf("FAILED: %s returned %d (Hola: %s)\n", #call, (int)check_rc_, HolaHypreLastError()); \
      return 1;                                                                                   \
    }                                                                                             \
  } while (0)

static int solve(MPI_Comm comm, HYPRE_BigInt n) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  /* Contiguous rows per rank. */
  const HYPRE_BigInt lo = n * rank / size, hi = n * (rank + 1) / size - 1;
  HYPRE_IJMatrix ij;
  HYPRE_IJVector ijb, ijx;
  HYPRE_ParCSRMatrix A;
  HYPRE_ParVector b, x;
  HYPRE_Solver pcg;
  HYPRE_Int iterations;
  HYPRE_Real residual;
  HolaHypreMatvec matvec;
  long long products = 0, fallbacks = 0, analyses = 0;

  CHECK(HYPRE_IJMatrixCreate(comm, lo, hi, lo, hi, &ij));
  CHECK(HYPRE_IJMatrixSetObjectType(ij, HYPRE_PARCSR));
  CHECK(HYPRE_IJMatrixInitialize(ij));
  for (HYPRE_BigInt row = lo; row <= hi; row++) {
    HYPRE_BigInt cols[3];
    HYPRE_Complex vals[3];
    HYPRE_Int count = 0;
    if (row > 0) {
      cols[count] = row - 1;
      vals[count++] = -1.0;
    }
    cols[count] = row;
    vals[count++] = 2.0;
    if (row < n - 1) {
      cols[count] = row + 1;
      vals[count++] = -1.0;
    }
    CHECK(HYPRE_IJMatrixSetValues(ij, 1, &count, &row, cols, vals));
  }
  CHECK(HYPRE_IJMatrixAssemble(ij));
  CHECK(HYPRE_IJMatrixGetObject(ij, (void**)&A));

  CHECK(HYPRE_IJVectorCreate(comm, lo, hi, &ijb));
  CHECK(HYPRE_IJVectorCreate(comm, lo, hi, &ijx));
  CHECK(HYPRE_IJVectorSetObjectType(ijb, HYPRE_PARCSR));
  CHECK(HYPRE_IJVectorSetObjectType(ijx, HYPRE_PARCSR));
  CHECK(HYPRE_IJVectorInitialize(ijb));
  CHECK(HYPRE_IJVectorInitialize(ijx));
  for (HYPRE_BigInt row = lo; row <= hi; row++) {
    const HYPRE_Complex one = 1.0, zero = 0.0;
    CHECK(HYPRE_IJVectorSetValues(ijb, 1, &row, &one));
    CHECK(HYPRE_IJVectorSetValues(ijx, 1, &row, &zero));
  }
  CHECK(HYPRE_IJVectorAssemble(ijb));
  CHECK(HYPRE_IJVectorAssemble(ijx));
  CHECK(HYPRE_IJVectorGetObject(ijb, (void**)&b));
  CHECK(HYPRE_IJVectorGetObject(ijx, (void**)&x));

  CHECK(HYPRE_ParCSRPCGCreate(comm, &pcg));
  CHECK(HolaHypreEnable(pcg, HOLA_HYPRE_PCG));
  CHECK(HYPRE_ParCSRPCGSetTol(pcg, 1e-10));
  CHECK(HYPRE_ParCSRPCGSetMaxIter(pcg, 100));
  CHECK(HYPRE_ParCSRPCGSetTwoNorm(pcg, 1));
  CHECK(HYPRE_ParCSRPCGSetup(pcg, A, b, x));
  /* Nonzero also when PCG did not converge (HYPRE_ERROR_CONV). */
  CHECK(HYPRE_ParCSRPCGSolve(pcg, A, b, x));
  CHECK(HYPRE_ParCSRPCGGetNumIterations(pcg, &iterations));
  CHECK(HYPRE_ParCSRPCGGetFinalRelativeResidualNorm(pcg, &residual));
  CHECK(HolaHypreGetMatvec(pcg, HOLA_HYPRE_PCG, &matvec));
  CHECK(HolaHypreMatvecGetStats(matvec, &products, &fallbacks, &analyses));
  if (rank == 0) {
    printf(
        "PCG with Hola's matvec: %d iterations, relative residual %g, %lld products by Hola, "
        "%lld fallbacks\n",
        (int)iterations, (double)residual, products, fallbacks);
  }
  /* CG on n unknowns converges in at most n steps in exact arithmetic; no products by Hola means
     the solver kept HYPRE's matvec. */
  int ok = 1;
  if (residual > 1e-10 || iterations > n) {
    printf("FAILED: PCG did not converge\n");
    ok = 0;
  }
  if (products == 0) {
    printf("FAILED: no product ran through Hola's matvec\n");
    ok = 0;
  }

  CHECK(HYPRE_ParCSRPCGDestroy(pcg));
  CHECK(HYPRE_IJVectorDestroy(ijx));
  CHECK(HYPRE_IJVectorDestroy(ijb));
  CHECK(HYPRE_IJMatrixDestroy(ij));
  return ok ? 0 : 1;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  HYPRE_Init();
  const int rc = solve(MPI_COMM_WORLD, 20);
  HYPRE_Finalize();
  MPI_Finalize();
  if (rc == 0) printf("PASSED\n");
  return rc;
}
