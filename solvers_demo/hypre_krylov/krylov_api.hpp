// HYPRE's ParCSR Krylov methods as one table of calls per kind (HolaHypreSolverKind), so that a
// solve is written once for PCG, GMRES, FlexGMRES and BiCGSTAB. Used by the hypre_krylov demo and
// the HYPRE adapter test (which may include it; it includes nothing from the tests).
#pragma once

#include <HYPRE_parcsr_ls.h>
#include <mpi.h>

#include "hola/hypre.h"

namespace hola::demo {

// One Krylov method of HYPRE's ParCSR interface: the calls a solve makes, by kind.
struct KrylovApi {
  HYPRE_Int (*create)(MPI_Comm, HYPRE_Solver*);
  HYPRE_Int (*set_tol)(HYPRE_Solver, HYPRE_Real);
  HYPRE_Int (*set_max_iter)(HYPRE_Solver, HYPRE_Int);
  HYPRE_Int (*set_kdim)(HYPRE_Solver, HYPRE_Int);  // restarted methods only
  HYPRE_Int (*set_precond)(HYPRE_Solver, HYPRE_PtrToParSolverFcn, HYPRE_PtrToParSolverFcn,
                           HYPRE_Solver);
  HYPRE_Int (*setup)(HYPRE_Solver, HYPRE_ParCSRMatrix, HYPRE_ParVector, HYPRE_ParVector);
  HYPRE_Int (*solve)(HYPRE_Solver, HYPRE_ParCSRMatrix, HYPRE_ParVector, HYPRE_ParVector);
  HYPRE_Int (*iterations)(HYPRE_Solver, HYPRE_Int*);
  HYPRE_Int (*residual)(HYPRE_Solver, HYPRE_Real*);
  HYPRE_Int (*destroy)(HYPRE_Solver);
};

inline KrylovApi krylov_api(HolaHypreSolverKind kind) {
  switch (kind) {
    case HOLA_HYPRE_PCG:
      return {HYPRE_ParCSRPCGCreate,
              HYPRE_PCGSetTol,
              HYPRE_PCGSetMaxIter,
              nullptr,
              HYPRE_ParCSRPCGSetPrecond,
              HYPRE_ParCSRPCGSetup,
              HYPRE_ParCSRPCGSolve,
              HYPRE_PCGGetNumIterations,
              HYPRE_PCGGetFinalRelativeResidualNorm,
              HYPRE_ParCSRPCGDestroy};
    case HOLA_HYPRE_GMRES:
      return {HYPRE_ParCSRGMRESCreate,
              HYPRE_GMRESSetTol,
              HYPRE_GMRESSetMaxIter,
              HYPRE_GMRESSetKDim,
              HYPRE_ParCSRGMRESSetPrecond,
              HYPRE_ParCSRGMRESSetup,
              HYPRE_ParCSRGMRESSolve,
              HYPRE_GMRESGetNumIterations,
              HYPRE_GMRESGetFinalRelativeResidualNorm,
              HYPRE_ParCSRGMRESDestroy};
    case HOLA_HYPRE_FLEXGMRES:
      return {HYPRE_ParCSRFlexGMRESCreate,
              HYPRE_FlexGMRESSetTol,
              HYPRE_FlexGMRESSetMaxIter,
              HYPRE_FlexGMRESSetKDim,
              HYPRE_ParCSRFlexGMRESSetPrecond,
              HYPRE_ParCSRFlexGMRESSetup,
              HYPRE_ParCSRFlexGMRESSolve,
              HYPRE_FlexGMRESGetNumIterations,
              HYPRE_FlexGMRESGetFinalRelativeResidualNorm,
              HYPRE_ParCSRFlexGMRESDestroy};
    default:
      return {HYPRE_ParCSRBiCGSTABCreate,
              HYPRE_BiCGSTABSetTol,
              HYPRE_BiCGSTABSetMaxIter,
              nullptr,
              HYPRE_ParCSRBiCGSTABSetPrecond,
              HYPRE_ParCSRBiCGSTABSetup,
              HYPRE_ParCSRBiCGSTABSolve,
              HYPRE_BiCGSTABGetNumIterations,
              HYPRE_BiCGSTABGetFinalRelativeResidualNorm,
              HYPRE_ParCSRBiCGSTABDestroy};
  }
}

}  // namespace hola::demo
