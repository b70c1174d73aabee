// holaaijcusparse: PETSc's MATSEQAIJCUSPARSE / MATMPIAIJCUSPARSE with Hola's GPU kernels behind
// MatMult and friends (attach.cpp swaps the operations). The kernels read PETSc's own device CSR
// arrays in place (MatSeqAIJCUSPARSEGetIJ gives full row offsets even where PETSc stores
// compressed rows) and run on PETSc's current stream. Compiled only against a PETSc with CUDA.
#include <cuda_runtime.h>
#include <petscdevice.h>

#include <exception>
#include <string>

#include "attach.hpp"
#include "hola/error.hpp"
#include "hola/petsc.h"

#if !PETSC_VERSION_GE(3, 20, 0)
#error "holaaijcusparse needs PETSc 3.20 or newer (PetscDeviceContextGetStreamHandle)"
#endif

// PETSc's switch for handing device buffers to MPI (-use_gpu_aware_mpi, else what PETSc detected
// at PetscInitialize). libpetsc exports it, but only PETSc's private petsc/private/petscimpl.h
// declares it (3.26; Debian's CPU build of 3.18 declares it nowhere): an identical declaration.
PETSC_EXTERN PetscBool use_gpu_aware_mpi;

namespace hola_petsc {

PetscErrorCode RegisterCUSPARSE();

namespace {

#if HOLA_PETSC_SCALAR_SUPPORTED

const VecAccessors kDeviceVecs = {VecCUDAGetArrayRead,  VecCUDARestoreArrayRead,
                                  VecCUDAGetArray,      VecCUDARestoreArray,
                                  VecCUDAGetArrayWrite, VecCUDARestoreArrayWrite};

// True when v gives a device array: a CUDA vector not bound to the CPU (PETSc copies a newer
// host copy over first, as for its own products).
PetscErrorCode OnDevice(Vec v, bool* ok) {
  PetscBool cuda = PETSC_FALSE, bound = PETSC_FALSE;
  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)v, &cuda, VECSEQCUDA, VECMPICUDA, ""));
  if (cuda) PetscCall(VecBoundToCPU(v, &bound));
  *ok = cuda && !bound;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Reads what the products use while A's nonzero state and object state stay as they are: the
// local nonzero count (per structure), PETSc's device CSR arrays (copied there by PETSc if the
// host is newer, as for aijcusparse itself), and ctx->op set up for them on `stream` (an analysis
// only when the structure changed, else the values pointer only). Throws nothing.
PetscErrorCode RefreshDeviceCache(Mat A, Ctx* ctx, PetscInt m, PetscInt n,
                                  PetscObjectState nnz_state, PetscObjectState state,
                                  void* stream) {
  Ctx::DeviceCache& c = ctx->device;
  std::string err;

  PetscFunctionBegin;
  c.state = -1;                    // valid again only once everything below succeeded
  if (nnz_state != c.nnz_state) {  // the host count is exact and O(1)
    MatInfo info;
    PetscCall(MatGetInfo(A, MAT_LOCAL, &info));
    c.nnz = (PetscInt)info.nz_used;
    c.nnz_state = nnz_state;
  }
  c.ai = c.aj = nullptr;
  c.aa = nullptr;
  if (c.nnz == 0 || m == 0 || n == 0) {  // nothing to multiply: no arrays, no operator
    c.state = state;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  // The pointers stay valid while the two states are unchanged: PETSc replaces the device arrays
  // only with a new structure, and every change of the values increases the object state.
  const PetscInt *ai = nullptr, *aj = nullptr;
  const PetscScalar* aa = nullptr;
  PetscCall(MatSeqAIJCUSPARSEGetIJ(A, PETSC_FALSE, &ai, &aj));
  PetscCall(MatSeqAIJCUSPARSEGetArrayRead(A, &aa));
  c.ai = ai;
  c.aj = aj;
  c.aa = aa;
  PetscCall(MatSeqAIJCUSPARSERestoreArrayRead(A, &aa));
  PetscCall(MatSeqAIJCUSPARSERestoreIJ(A, PETSC_FALSE, &ai, &aj));
  try {
    // On PETSc's stream, after PETSc's own work on the arrays: no device-wide synchronisation.
    SetupOperator(ctx, m, n, c.nnz, c.ai, c.aj, c.aa, hola::Memory::device, nnz_state, stream);
    if (ctx->op->analysis_count() != c.analyses_seen) {
      c.analyses_seen = ctx->op->analysis_count();
      c.transpose_in_hola = !ctx->op->kernel_name(hola::Op::T).empty();
    }
  } catch (const std::exception& e) {
    err = e.what();
  } catch (...) {
    err = "unknown C++ exception";
  }
  PetscCheck(err.empty(), PETSC_COMM_SELF, PETSC_ERR_LIB, "Hola: %s", err.c_str());
  c.state = state;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// z = op(A) x (+ y when y is given; y may be z) on the device. *done is false (and nothing was
// touched) when the caller must use PETSc's own operation instead. While A's states and the
// current device context are unchanged this looks nothing up again (ctx->device), allocates
// nothing and never synchronises; GPU time is logged only when PETSc's logging asks for it
// (PetscLogGpuTimeBegin returns at once otherwise, as in aijcusparse's own products).
PetscErrorCode DeviceProduct(Mat A, Ctx* ctx, Vec x, Vec y, Vec z, hola::Op op, bool* done) {
  PetscBool cusparse, bound;
  bool ok_x, ok_y = true, ok_z;
  PetscInt m, n;
  PetscObjectState nnz_state, state;
  PetscDeviceContext dctx;
  PetscDeviceType dtype;
  PetscObjectId dctx_id;
  Ctx::DeviceCache& c = ctx->device;

  PetscFunctionBegin;
  *done = false;
  // PETSc's device arrays exist only for seqaijcusparse (a block PETSc made of another type
  // keeps PETSc's products).
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJCUSPARSE, &cusparse));
  if (!cusparse) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatBoundToCPU(A, &bound));
  if (bound) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(OnDevice(x, &ok_x));
  if (y) PetscCall(OnDevice(y, &ok_y));
  PetscCall(OnDevice(z, &ok_z));
  if (!ok_x || !ok_y || !ok_z) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
  PetscCall(PetscDeviceContextGetDeviceType(dctx, &dtype));
  if (dtype != PETSC_DEVICE_CUDA) PetscFunctionReturn(PETSC_SUCCESS);

  // PETSc's current stream: the handle points into the context, looked up once per context.
  PetscCall(PetscObjectGetId((PetscObject)dctx, &dctx_id));
  if (dctx_id != c.dctx_id || !c.stream_handle) {
    void* handle = nullptr;
    PetscCall(PetscDeviceContextGetStreamHandle(dctx, &handle));
    c.stream_handle = handle;
    c.dctx_id = dctx_id;
  }
  void* stream = *static_cast<void**>(c.stream_handle);  // a cudaStream_t; null: default stream

  PetscCall(MatGetSize(A, &m, &n));
  PetscCall(HolaMatGetStates(A, &nnz_state, &state));
  if (nnz_state != c.nnz_state || state != c.state || (c.nnz > 0 && !ctx->op))
    PetscCall(RefreshDeviceCache(A, ctx, m, n, nnz_state, state, stream));
  const PetscInt nnz = c.nnz;
  if (nnz == 0 || m == 0 || n == 0) {  // nothing to multiply (e.g. a rank without ghost columns)
    if (!y)
      PetscCall(VecSet(z, 0.0));
    else if (y != z)
      PetscCall(VecCopy(y, z));
    *done = true;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  // Deterministic mode may have no device transpose: PETSc's does it then.
  if (op == hola::Op::T && !c.transpose_in_hola) PetscFunctionReturn(PETSC_SUCCESS);

  const PetscInt nx = op == hola::Op::N ? n : m, nz = op == hola::Op::N ? m : n;
  ProductArrays v;
  PetscCall(GetProductArrays(kDeviceVecs, x, y, z, &v));
  PetscCall(PetscLogGpuTimeBegin());
  const std::string err = ApplyOperator(ctx, op, v, y != nullptr, nx, nz, stream);
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(RestoreProductArrays(kDeviceVecs, x, y, z, &v));
  PetscCheck(err.empty(), PETSC_COMM_SELF, PETSC_ERR_LIB, "Hola: %s", err.c_str());
  // 2 nz, what aijcusparse logs on PETSc 3.26 for sequential matrices and MPI diagonal blocks
  // (its nonempty-row count, subtracted when there is no y, reads 0 there; for ghost blocks it
  // does not, and -log_view's GPU flops of the two types differ by one per nonempty ghost row:
  // holaaij_test on an H100).
  PetscCall(PetscLogGpuFlops(2.0 * (PetscLogDouble)nnz));
  PetscCall(ViewOnce(ctx, m, n, nnz));
  *done = true;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The GPU of this rank for -mat_hola_view (once per MPI matrix, never on the product path):
// PETSc's device id of the current device context's device, its PCI bus id, the CUDA runtime's
// current device (Hola's kernels launch there; it follows PETSc's through the shared driver
// context), the visible GPU count and PETSc's use_gpu_aware_mpi.
PetscErrorCode RankDeviceInfo(RankDevice* d) {
  PetscDeviceContext dctx;
  PetscDeviceType type;
  int count = 0, current = -1;

  PetscFunctionBegin;
  *d = RankDevice{};
  d->gpu_aware_mpi = use_gpu_aware_mpi == PETSC_TRUE;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    count = 0;
  }
  d->visible = count;
  if (cudaGetDevice(&current) != cudaSuccess) {
    (void)cudaGetLastError();
    current = -1;
  }
  d->cuda_device = current;
  PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
  PetscCall(PetscDeviceContextGetDeviceType(dctx, &type));
  if (type == PETSC_DEVICE_CUDA) {
    PetscDevice device;
    PetscInt id = -1;
    PetscCall(PetscDeviceContextGetDevice(dctx, &device));
    PetscCall(PetscDeviceGetDeviceId(device, &id));
    d->petsc_device = id;
    if (id >= 0 &&
        cudaDeviceGetPCIBusId(d->bus_id, (int)sizeof(d->bus_id), (int)id) != cudaSuccess) {
      (void)cudaGetLastError();
      d->bus_id[0] = '\0';
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

constexpr SeqOps kDeviceOps = MakeOps<DeviceProduct>(MATHOLAAIJCUSPARSE, RankDeviceInfo);

#endif  // HOLA_PETSC_SCALAR_SUPPORTED

PetscErrorCode MatCreate_HolaAIJCUSPARSE(Mat A) {
  PetscMPIInt size;
  Settings settings;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  // The name stays PETSc's, and with it cuSPARSE's storage, vectors and preconditioners.
  PetscCall(MatSetType(A, size == 1 ? MATSEQAIJCUSPARSE : MATMPIAIJCUSPARSE));
  PetscCall(ReadSettings(A, &settings));
#if HOLA_PETSC_SCALAR_SUPPORTED
  PetscCall(Attach(A, settings, kDeviceOps));
#else
  PetscCall(PetscInfo(A, "Hola: unsupported scalar type, using PETSc's aijcusparse products\n"));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

}  // namespace

PetscErrorCode RegisterCUSPARSE() {
  PetscFunctionBegin;
  PetscCall(MatRegister(MATHOLAAIJCUSPARSE, MatCreate_HolaAIJCUSPARSE));
#if HOLA_PETSC_SCALAR_SUPPORTED
  RegisterBackend(kDeviceOps, true);
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

}  // namespace hola_petsc
