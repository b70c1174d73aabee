/* Hola for PETSc: the matrix types holaaij (CPU kernels on MATSEQAIJ / MATMPIAIJ storage) and,
   when the library was built against a PETSc with CUDA, holaaijcusparse (GPU kernels on
   MATSEQAIJCUSPARSE / MATMPIAIJCUSPARSE storage). The matrices keep PETSc's type names.

   Use it without linking: -dll_append <prefix>/lib/libholapetsc.so -mat_type holaaijcusparse
   or link libholapetsc and call HolaPetscRegister() after PetscInitialize().
   Options (with the matrix prefix): -mat_hola_kernel <name>, -mat_hola_deterministic,
   -mat_hola_view. */
#pragma once

#include <petscmat.h>

#define MATHOLAAIJ "holaaij"
#define MATHOLAAIJCUSPARSE "holaaijcusparse"

/* Registers holaaij (and holaaijcusparse where built) with MatRegister(); safe to call more than
   once. */
PETSC_EXTERN PetscErrorCode HolaPetscRegister(void);

/* Entry point PETSc calls when the library is loaded with -dll_append. */
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_holapetsc(void);

/* Counters summed over the local blocks of A (tests, diagnostics): products run by Hola, products
   handed back to PETSc's own op, and analyses (structure changes) done. */
PETSC_EXTERN PetscErrorCode HolaPetscGetStats(Mat A, PetscInt* kernel_calls, PetscInt* fallbacks,
                                              PetscInt* analyses);

/* Analyses of A's local blocks that took over the decision of the matrix A was duplicated or
   copied from (same nonzero pattern: MatDuplicate, MatCopy with SAME_NONZERO_PATTERN) instead of
   computing matrix features again. */
PETSC_EXTERN PetscErrorCode HolaPetscGetDecisionsTakenOver(Mat A, PetscInt* taken_over);

/* True when A carries Hola's operations (holaaij, holaaijcusparse, their duplicates and
   blocks). */
PETSC_EXTERN PetscErrorCode HolaPetscIsAttached(Mat A, PetscBool* attached);

/* True when holaaijcusparse is registered and this process sees a usable CUDA GPU. Not
   collective: ranks may differ. */
PETSC_EXTERN PetscErrorCode HolaPetscDeviceAvailable(PetscBool* available);
