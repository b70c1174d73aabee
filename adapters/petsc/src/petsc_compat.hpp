// The PETSc API differences between Debian's 3.18 and 3.26 that the adapter meets, in one place.
#pragma once

#include <petscmat.h>
#include <petscversion.h>

// 3.19 introduced PETSC_SUCCESS (PetscErrorCode became an enum).
#if !PETSC_VERSION_GE(3, 19, 0)
#define PETSC_SUCCESS 0
#endif

// MatGetOperation / MatSetOperation take PetscErrorCodeFn* since 3.24, void (*)(void) before.
#if PETSC_VERSION_GE(3, 24, 0)
using HolaOpPtr = PetscErrorCodeFn*;
#else
using HolaOpPtr = void (*)(void);
#endif

// Container destructors: PetscContainerSetUserDestroy(void*) up to 3.22, then
// PetscContainerSetCtxDestroy with void** (3.23, 3.24) and PetscCtxRt (3.25+).
#if PETSC_VERSION_GE(3, 25, 0)
#define HOLA_CTX_DESTROY_ARG PetscCtxRt
#define HOLA_CTX_DESTROY_PTR(arg) (*static_cast<void**>(arg))
#elif PETSC_VERSION_GE(3, 23, 0)
#define HOLA_CTX_DESTROY_ARG void**
#define HOLA_CTX_DESTROY_PTR(arg) (*(arg))
#else
#define HOLA_CTX_DESTROY_ARG void*
#define HOLA_CTX_DESTROY_PTR(arg) (arg)
#endif

inline PetscErrorCode HolaContainerSetDestroy(PetscContainer c,
                                              PetscErrorCode (*destroy)(HOLA_CTX_DESTROY_ARG)) {
#if PETSC_VERSION_GE(3, 23, 0)
  return PetscContainerSetCtxDestroy(c, destroy);
#else
  return PetscContainerSetUserDestroy(c, destroy);
#endif
}

// A Mat's nonzero state and object state (every change of its values increases the latter).
// 3.26's MatGetState gives both; before, the object state is read with PetscObjectStateGet, which
// PETSc declares only in its private petscimpl.h (MatGetState of 3.22 - 3.25 has another form).
#if !PETSC_VERSION_GE(3, 26, 0)
#include <petsc/private/petscimpl.h>
#endif
inline PetscErrorCode HolaMatGetStates(Mat A, PetscObjectState* nonzero_state,
                                       PetscObjectState* state) {
#if PETSC_VERSION_GE(3, 26, 0)
  MatState s;
  PetscErrorCode ierr = MatGetState(A, &s);
  *nonzero_state = s.nonzerostate;
  *state = s.state;
  return ierr;
#else
  PetscErrorCode ierr = MatGetNonzeroState(A, nonzero_state);
  if (ierr == PETSC_SUCCESS) ierr = PetscObjectStateGet((PetscObject)A, state);
  return ierr;
#endif
}

// Hola's kernels exist for real float and double only (no complex, __float128 or half yet).
#if !defined(PETSC_USE_COMPLEX) && \
    (defined(PETSC_USE_REAL_SINGLE) || defined(PETSC_USE_REAL_DOUBLE))
#define HOLA_PETSC_SCALAR_SUPPORTED 1
#else
#define HOLA_PETSC_SCALAR_SUPPORTED 0
#endif
