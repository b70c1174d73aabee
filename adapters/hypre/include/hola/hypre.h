/* Hola for HYPRE: Hola's SpMV kernels behind the matrix-vector product of HYPRE's ParCSR Krylov
   solvers (PCG, GMRES, FlexGMRES, BiCGSTAB). Preconditioners (BoomerAMG, ...) and vectors stay
   HYPRE's.

     HYPRE_ParCSRPCGCreate(comm, &solver);
     HolaHypreEnable(solver, HOLA_HYPRE_PCG);   after Create, before (or after) Setup
     HYPRE_ParCSRPCGSetup(solver, A, b, x);
     HYPRE_ParCSRPCGSolve(solver, A, b, x);

   Every function returns 0 on success or a HYPRE error code (HYPRE_ERROR_ARG for a NULL or wrong
   handle or argument, HYPRE_ERROR_GENERIC for a failed product or an unsupported HYPRE build,
   HYPRE_ERROR_MEMORY); HolaHypreLastError() then says why. These calls never set HYPRE's global
   error flag; a product that fails inside a solver does (the solvers ignore the matvec's return
   value), and leaves the output vector unchanged. */
#ifndef HOLA_HYPRE_H
#define HOLA_HYPRE_H

#include <HYPRE_parcsr_ls.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ParCSR Krylov solvers whose matvec Hola can replace. The solver must come from the
   matching HYPRE_ParCSR<Kind>Create. */
typedef enum {
  HOLA_HYPRE_PCG = 0,
  HOLA_HYPRE_GMRES = 1,
  HOLA_HYPRE_FLEXGMRES = 2,
  HOLA_HYPRE_BICGSTAB = 3,
  HOLA_HYPRE_SOLVER_KIND_MAX_ENUM = 0x7fffffff
} HolaHypreSolverKind;

/* Hola's matvec: caches the analysis of the matrix it last multiplied (rebuilt when the matrix's
   arrays or sizes change) and its communication buffers. */
typedef struct HolaHypreMatvec_s* HolaHypreMatvec;

/* Replaces the solver's MatvecCreate / Matvec / MatvecDestroy with Hola's. kernel: a Hola kernel
   name (NULL or "auto": chosen per matrix; host matrices always use the OpenMP "cpu" kernel);
   deterministic: bitwise reproducible products. Calling it again changes the options. The solver
   is checked first (it must be a ParCSR solver of that kind); on error nothing changes. */
HYPRE_Int HolaHypreEnable(HYPRE_Solver solver, HolaHypreSolverKind kind);
HYPRE_Int HolaHypreEnableWithOptions(HYPRE_Solver solver, HolaHypreSolverKind kind,
                                     const char* kernel, HYPRE_Int deterministic);
HYPRE_Int HolaHyprePCGEnable(HYPRE_Solver solver);
HYPRE_Int HolaHypreGMRESEnable(HYPRE_Solver solver);
HYPRE_Int HolaHypreFlexGMRESEnable(HYPRE_Solver solver);
HYPRE_Int HolaHypreBiCGSTABEnable(HYPRE_Solver solver);

/* Puts HYPRE's own matvec back (no-op when Hola is not enabled). */
HYPRE_Int HolaHypreDisable(HYPRE_Solver solver, HolaHypreSolverKind kind);

/* The solver's Hola matvec, or NULL when Hola is not enabled on it. Owned by the solver; PCG
   makes a new one (same options, counters carried over) at every Setup. */
HYPRE_Int HolaHypreGetMatvec(HYPRE_Solver solver, HolaHypreSolverKind kind,
                             HolaHypreMatvec* matvec);

/* A standalone Hola matvec for programs that multiply ParCSR matrices themselves. */
HYPRE_Int HolaHypreMatvecCreate(const char* kernel, HYPRE_Int deterministic,
                                HolaHypreMatvec* matvec);
/* y = alpha A x + beta y, HYPRE's Matvec convention; beta == 0 never reads y (NaN in y does not
   leak). Collective over A's communicator. x must not alias y. */
HYPRE_Int HolaHypreMatvecApply(HolaHypreMatvec matvec, HYPRE_Complex alpha, HYPRE_ParCSRMatrix A,
                               HYPRE_ParVector x, HYPRE_Complex beta, HYPRE_ParVector y);
/* Counters: products done by Hola, products handed to HYPRE's own matvec (multivectors, device
   matrices in a build without CUDA), analyses of the local blocks (structure changes). */
HYPRE_Int HolaHypreMatvecGetStats(HolaHypreMatvec matvec, long long* products, long long* fallbacks,
                                  long long* analyses);
/* Kernel that ran the diagonal block in the last product ("" before the first one); valid until
   the next product or destroy. */
HYPRE_Int HolaHypreMatvecGetKernelName(HolaHypreMatvec matvec, const char** name);
HYPRE_Int HolaHypreMatvecDestroy(HolaHypreMatvec matvec);

/* Message of the last failing call of this thread ("" if none). */
const char* HolaHypreLastError(void);

#ifdef __cplusplus
}
#endif

#endif /* HOLA_HYPRE_H */
