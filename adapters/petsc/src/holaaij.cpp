// holaaij: PETSc's MATSEQAIJ / MATMPIAIJ with Hola's CPU kernels behind MatMult and friends
// (attach.cpp swaps the operations). Also the library's registration entry points, which add
// holaaijcusparse when PETSc was built with CUDA.
#include <exception>
#include <string>

#include "attach.hpp"
#include "hola/error.hpp"
#include "hola/gpu_kernels.hpp"
#include "hola/petsc.h"

namespace hola_petsc {

#if HOLA_PETSC_HAVE_CUDA
// holaaijcusparse.cpp
PetscErrorCode RegisterCUSPARSE();
#endif

namespace {

#if HOLA_PETSC_SCALAR_SUPPORTED

const VecAccessors kHostVecs = {VecGetArrayRead, VecRestoreArrayRead, VecGetArray,
                                VecRestoreArray, VecGetArrayWrite,    VecRestoreArrayWrite};

// z = op(A) x (+ y when y is given; y may be z), on PETSc's host CSR arrays (always done here).
PetscErrorCode SeqProduct(Mat A, Ctx* ctx, Vec x, Vec y, Vec z, hola::Op op, bool* done) {
  const PetscInt *ai = nullptr, *aj = nullptr;
  PetscScalar* aa = nullptr;
  PetscMemType mt;
  PetscInt m, n;
  PetscObjectState state;
  ProductArrays v;
  std::string err;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &m, &n));
  PetscCall(MatSeqAIJGetCSRAndMemType(A, &ai, &aj, &aa, &mt));
  PetscCall(MatGetNonzeroState(A, &state));
  const PetscInt nnz = ai ? ai[m] : 0;
  if (state != ctx->rows_state) {  // once per structure
    PetscInt nonempty = 0;
    for (PetscInt i = 0; ai && i < m; i++) nonempty += ai[i + 1] > ai[i] ? 1 : 0;
    ctx->nonempty_rows = nonempty;
    ctx->rows_state = state;
  }
  const PetscInt nx = op == hola::Op::N ? n : m, nz = op == hola::Op::N ? m : n;

  PetscCall(GetProductArrays(kHostVecs, x, y, z, &v));
  if (nnz == 0 || m == 0 || n == 0) {  // nothing to multiply (e.g. a rank without ghost columns)
    for (PetscInt i = 0; i < nz; i++) v.z[i] = v.y ? v.y[i] : 0;
  } else {
    try {
      SetupOperator(ctx, m, n, nnz, ai, aj, aa, hola::Memory::host, state);
    } catch (const std::exception& e) {
      err = e.what();
    } catch (...) {
      err = "unknown C++ exception";
    }
    if (err.empty()) err = ApplyOperator(ctx, op, v, y != nullptr, nx, nz);
  }
  PetscCall(RestoreProductArrays(kHostVecs, x, y, z, &v));
  PetscCheck(err.empty(), PETSC_COMM_SELF, PETSC_ERR_LIB, "Hola: %s", err.c_str());
  PetscCall(PetscLogFlops(HostProductFlops(nnz, ctx->nonempty_rows, y != nullptr, op)));
  PetscCall(ViewOnce(ctx, m, n, nnz));
  *done = true;
  PetscFunctionReturn(PETSC_SUCCESS);
}

constexpr SeqOps kHostOps = MakeOps<SeqProduct>(MATHOLAAIJ);

#endif  // HOLA_PETSC_SCALAR_SUPPORTED

PetscErrorCode MatCreate_HolaAIJ(Mat A) {
  PetscMPIInt size;
  Settings settings;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  PetscCall(MatSetType(A, size == 1 ? MATSEQAIJ : MATMPIAIJ));  // the name stays PETSc's
  PetscCall(ReadSettings(A, &settings));
#if HOLA_PETSC_SCALAR_SUPPORTED
  PetscCall(Attach(A, settings, kHostOps));
#else
  // Hola has no kernels for this scalar type: the matrix is PETSc's AIJ unchanged.
  PetscCall(PetscInfo(A, "Hola: unsupported scalar type, using PETSc's AIJ products\n"));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

}  // namespace
}  // namespace hola_petsc

PETSC_EXTERN PetscErrorCode HolaPetscRegister(void) {
  static PetscBool done = PETSC_FALSE;
  PetscFunctionBegin;
  if (done) PetscFunctionReturn(PETSC_SUCCESS);
  done = PETSC_TRUE;
  PetscCall(PetscLogEventRegister("HolaSetup", MAT_CLASSID, &hola_petsc::kSetupEvent));
  PetscCall(MatRegister(MATHOLAAIJ, hola_petsc::MatCreate_HolaAIJ));
#if HOLA_PETSC_SCALAR_SUPPORTED
  hola_petsc::RegisterBackend(hola_petsc::kHostOps, false);
#endif
#if HOLA_PETSC_HAVE_CUDA
  PetscCall(hola_petsc::RegisterCUSPARSE());
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_holapetsc(void) { return HolaPetscRegister(); }

PETSC_EXTERN PetscErrorCode HolaPetscDeviceAvailable(PetscBool* available) {
  PetscFunctionBegin;
  PetscCheck(available, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "Hola: null pointer argument");
#if HOLA_PETSC_HAVE_CUDA
  *available = hola::gpu::gpu_available() ? PETSC_TRUE : PETSC_FALSE;
#else
  *available = PETSC_FALSE;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}
