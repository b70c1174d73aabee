// What holaaij (host) and holaaijcusparse (device) share: the per-matrix context composed with the
// Mat, the swap of the product operations with PETSc's kept as fallback, the MPI wrappers that
// re-hook the diagonal / off-diagonal blocks, and the -mat_hola_* options.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "hola/operator.hpp"
#include "hola/selector.hpp"
#include "petsc_compat.hpp"

namespace hola_petsc {

using MultFn = PetscErrorCode (*)(Mat, Vec, Vec);
using MultAddFn = PetscErrorCode (*)(Mat, Vec, Vec, Vec);
using DupFn = PetscErrorCode (*)(Mat, MatDuplicateOption, Mat*);
using BindFn = PetscErrorCode (*)(Mat, PetscBool);
using CopyFn = PetscErrorCode (*)(Mat, Mat, MatStructure);

// The "HolaSetup" event of -log_view: a full analysis of a matrix structure (features, the
// kernels' setup; the race when asked for). Registered by HolaPetscRegister.
extern PetscLogEvent kSetupEvent;

struct Settings {
  std::string kernel = "auto";
  bool deterministic = false;
  bool auto_race = false;  // OperatorOptions::auto_trial
  bool auto_check = true;  // OperatorOptions::auto_check
  // OperatorOptions::compress_min_empty_rows; negative: empty rows are never left out.
  PetscInt compress_min_rows = PetscInt(1) << 17;
  bool view = false;
};

struct Ctx;

// One product of a backend on A: z = op(A) x, plus y when y is given (y may be z). *done false:
// nothing was touched and PETSc's own operation must run instead.
using ProductFn = PetscErrorCode (*)(Mat A, Ctx* ctx, Vec x, Vec y, Vec z, hola::Op op, bool* done);

// The GPU one rank of an MPI matrix uses, for the -mat_hola_view layout line (device backends).
struct RankDevice {
  PetscInt petsc_device = -1;  // PETSc's device id (current device context's device); -1: none
  int cuda_device = -1;        // the CUDA runtime's current device of this thread
  int visible = 0;             // GPUs this process sees
  char bus_id[32] = "";        // PCI bus id of PETSc's device: tells GPUs apart across processes
  bool gpu_aware_mpi = false;  // PETSc's use_gpu_aware_mpi
};
using RankDeviceFn = PetscErrorCode (*)(RankDevice*);

// The four products of one backend: what Attach installs on a SeqAIJ matrix or block (made by
// MakeOps from one ProductFn), and for a device backend how to tell which GPU this rank uses.
struct SeqOps {
  const char* name;  // for messages: "holaaij", "holaaijcusparse"
  MultFn mult, multtranspose;
  MultAddFn multadd, multtransposeadd;
  RankDeviceFn rank_device;  // null for host backends
};

#if HOLA_PETSC_SCALAR_SUPPORTED
using HolaOperator = hola::Operator<PetscScalar, PetscInt, PetscInt>;
#endif

struct Ctx {
  // PETSc's own operations (fallback, and the MPI products we delegate to).
  MultFn mult = nullptr, multtranspose = nullptr;
  MultAddFn multadd = nullptr, multtransposeadd = nullptr;
  DupFn duplicate = nullptr;
  BindFn bindtocpu = nullptr;
  CopyFn copy = nullptr;
  const SeqOps* seq = nullptr;  // the backend; MPI matrices give it to their blocks
  Settings settings;
  // -mat_hola_view printed: a block's kernel line, or an MPI matrix's rank layout lines.
  bool viewed = false;
#if HOLA_PETSC_SCALAR_SUPPORTED
  std::unique_ptr<HolaOperator> op;  // seq matrices only, made at the first product
#endif
  // The decision of the matrix this one was duplicated or copied from with the same pattern:
  // op takes it over instead of analysing the structure again (Operator::reuse_decision).
  std::shared_ptr<const hola::KernelDecision> inherited;
  // Device backend (holaaijcusparse): what one product looked up, reused by the next ones while
  // A's nonzero state and object state are those recorded here (the arrays, their count, op set
  // up for them), and while the current device context is the one recorded (its stream).
  struct DeviceCache {
    PetscObjectState nnz_state = -1, state = -1;
    PetscInt nnz = 0;  // the local nonzero count, read at nnz_state
    const PetscInt *ai = nullptr, *aj = nullptr;
    const PetscScalar* aa = nullptr;
    // Whether op has a kernel for A^T (not so in deterministic mode on the GPU), as of analysis
    // number `analyses_seen`.
    bool transpose_in_hola = true;
    std::uint64_t analyses_seen = 0;
    PetscObjectId dctx_id = -1;     // the device context whose stream handle is below
    void* stream_handle = nullptr;  // points at that context's cudaStream_t
  } device;
  // Nonempty local rows at nonzero state `rows_state` (host backend): PETSc's MatMult logs 2 nz
  // less the nonempty rows (the first product of a row adds nothing), and Hola logs the same.
  PetscObjectState rows_state = -1;
  PetscInt nonempty_rows = 0;
  PetscInt kernel_calls = 0, fallbacks = 0;
};

// The flops PETSc's own host product logs: 2 nz, less one per nonempty row for MatMult without y
// (MatMultTranspose_SeqAIJ is MatMultTransposeAdd on a zeroed z and logs 2 nz).
inline PetscLogDouble HostProductFlops(PetscInt nnz, PetscInt nonempty_rows, bool has_y,
                                       hola::Op op) {
  const bool first_products_free = !has_y && op == hola::Op::N;
  return 2.0 * (PetscLogDouble)nnz - (first_products_free ? (PetscLogDouble)nonempty_rows : 0.0);
}

// One family of PETSc's vector array accessors: the host's (VecGetArrayRead, ...) or CUDA's
// (VecCUDAGetArrayRead, ...).
struct VecAccessors {
  PetscErrorCode (*get_read)(Vec, const PetscScalar**);
  PetscErrorCode (*restore_read)(Vec, const PetscScalar**);
  PetscErrorCode (*get)(Vec, PetscScalar**);
  PetscErrorCode (*restore)(Vec, PetscScalar**);
  PetscErrorCode (*get_write)(Vec, PetscScalar**);
  PetscErrorCode (*restore_write)(Vec, PetscScalar**);
};

// The arrays of one product z = op(A) x (+ y): x and y read, z written; when y is z, its array
// is taken once for reading and writing (y == z then).
struct ProductArrays {
  const PetscScalar *x = nullptr, *y = nullptr;
  PetscScalar* z = nullptr;
};
PetscErrorCode GetProductArrays(const VecAccessors& f, Vec x, Vec y, Vec z, ProductArrays* a);
PetscErrorCode RestoreProductArrays(const VecAccessors& f, Vec x, Vec y, Vec z, ProductArrays* a);

// PETSc's own product recorded at Attach, for op and whether y is given.
PetscErrorCode PetscProduct(Mat A, Ctx* ctx, Vec x, Vec y, Vec z, hola::Op op);

// The one skeleton behind MatMult, MatMultAdd, MatMultTranspose and MatMultTransposeAdd: find the
// context, run Product, and PETSc's own operation when Product did not (a fallback). Out is
// (Vec y) for the plain products and (Vec y, Vec z) for the Add ones.
template <ProductFn Product, hola::Op Op, class... Out>
PetscErrorCode ProductSkeleton(Mat A, Vec x, Out... out);

// The four products of a backend, all through ProductSkeleton<Product>.
template <ProductFn Product>
constexpr SeqOps MakeOps(const char* name, RankDeviceFn rank_device = nullptr) {
  return {name,
          ProductSkeleton<Product, hola::Op::N, Vec>,
          ProductSkeleton<Product, hola::Op::T, Vec>,
          ProductSkeleton<Product, hola::Op::N, Vec, Vec>,
          ProductSkeleton<Product, hola::Op::T, Vec, Vec>,
          rank_device};
}

// The context composed with A (created when `create` and absent; else null when absent).
PetscErrorCode GetCtx(Mat A, PetscBool create, Ctx** ctx);
// The context of a matrix carrying Hola's operations. When it has none (a PETSc routine copied
// the operation table of a Hola matrix into another matrix without the composed objects, as
// GAMG's graph setup does with PETSc 3.18), the matrix gets PETSc's own operations of its type
// back and Hola's attached afresh (settings from the options database) — collective on A's
// communicator, like the operations that call it; an error only when that is impossible.
PetscErrorCode GetAttachedCtx(Mat A, Ctx** ctx);
// The backend of matrices of PETSc's host types (holaaij) and of its CUDA types
// (holaaijcusparse), for GetAttachedCtx's recovery; registered with the matrix types.
void RegisterBackend(const SeqOps& ops, bool device);

// Reads -mat_hola_kernel, -mat_hola_deterministic, -mat_hola_auto_race, -mat_hola_auto_check,
// -mat_hola_view with A's
// prefix; an unknown kernel is an error.
PetscErrorCode ReadSettings(Mat A, Settings* settings);

// Installs Hola's products on A (a SeqAIJ* matrix gets `seq`, an MPIAIJ* matrix the MPI
// wrappers, which hand `seq` to their blocks), recording PETSc's current ones as fallback.
// Factored matrices are left alone. Safe to call again (after PETSc reset the operations).
PetscErrorCode Attach(Mat A, const Settings& settings, const SeqOps& seq);

#if HOLA_PETSC_SCALAR_SUPPORTED
// Makes ctx->op at the first call, then sets it up for the local CSR arrays (rows x cols, nnz
// entries, in `memory`): a full analysis when the
// structure (arrays, sizes, PETSc's nonzero state) changed, else only the values pointer is
// refreshed. A device analysis runs on `stream` (a cudaStream_t), after the work queued there.
// Throws hola::error.
void SetupOperator(Ctx* ctx, PetscInt rows, PetscInt cols, PetscInt nnz, const PetscInt* ai,
                   const PetscInt* aj, const PetscScalar* aa, hola::Memory memory,
                   PetscObjectState state, void* stream = nullptr);
// ctx->op's product on the arrays: z = op(A) x, plus y when add (a has nx entries of x and nz of
// z), on `stream` for a device matrix. A failure comes back as its message (empty: none).
std::string ApplyOperator(Ctx* ctx, hola::Op op, const ProductArrays& a, bool add, PetscInt nx,
                          PetscInt nz, void* stream = nullptr);
// Prints the -mat_hola_view line for this block once, after its first analysis.
PetscErrorCode ViewOnce(Ctx* ctx, PetscInt rows, PetscInt cols, PetscInt nnz);
#endif

template <ProductFn Product, hola::Op Op, class... Out>
PetscErrorCode ProductSkeleton(Mat A, Vec x, Out... out) {
  static_assert(sizeof...(Out) == 1 || sizeof...(Out) == 2, "(y) or (y, z)");
  const Vec v[] = {out...};
  const Vec y = sizeof...(Out) == 2 ? v[0] : nullptr, z = v[sizeof...(Out) - 1];
  Ctx* ctx;
  bool done = false;

  PetscFunctionBegin;
  PetscCall(GetAttachedCtx(A, &ctx));
  PetscCall(Product(A, ctx, x, y, z, Op, &done));
  if (!done) {
    ctx->fallbacks++;
    PetscCall(PetscProduct(A, ctx, x, y, z, Op));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

}  // namespace hola_petsc
