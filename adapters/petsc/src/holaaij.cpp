// holaaij: PETSc's MATSEQAIJ / MATMPIAIJ with Hola's CPU kernels behind MatMult and friends.
//
// The matrix keeps PETSc's type name (PETSc compares type names in many places); only the
// function pointers of the product operations are replaced. PETSc's originals are kept in a
// container composed with the matrix and are used as fallback. For MATMPIAIJ the outer operations
// stay PETSc's (scatter / compute overlap); the diagonal and off-diagonal blocks are re-hooked
// lazily before every product because PETSc recreates them (preallocation, disassembly, ...).
#include <petscmat.h>
#include <petscversion.h>

#include <cstdio>
#include <exception>
#include <memory>
#include <string>

#include "hola/error.hpp"
#include "hola/operator.hpp"
#include "hola/petsc.h"
#include "hola/registry.hpp"

// ---- PETSc 3.18 .. 3.26 differences ----
#if !PETSC_VERSION_GE(3, 19, 0)
#define PETSC_SUCCESS 0
#endif
#if PETSC_VERSION_GE(3, 24, 0)
using HolaOpPtr = PetscErrorCodeFn*;
#else
using HolaOpPtr = void (*)(void);
#endif

namespace {

using MultFn = PetscErrorCode (*)(Mat, Vec, Vec);
using MultAddFn = PetscErrorCode (*)(Mat, Vec, Vec, Vec);
using DupFn = PetscErrorCode (*)(Mat, MatDuplicateOption, Mat*);
using BindFn = PetscErrorCode (*)(Mat, PetscBool);

constexpr const char* kCtxKey = "Hola_PetscCtx";

struct Settings {
  std::string kernel = "auto";
  bool deterministic = false;
  bool view = false;
};

#if !defined(PETSC_USE_COMPLEX)
using HolaOperator = hola::Operator<PetscScalar, PetscInt, PetscInt>;
#endif

struct Ctx {
  // PETSc's own operations (fallback, and the MPI products we delegate to).
  MultFn mult = nullptr, multtranspose = nullptr;
  MultAddFn multadd = nullptr, multtransposeadd = nullptr;
  DupFn duplicate = nullptr;
  BindFn bindtocpu = nullptr;
  Settings settings;
  bool viewed = false;
#if !defined(PETSC_USE_COMPLEX)
  std::unique_ptr<HolaOperator> op;  // seq matrices only, made at the first product
#endif
  PetscInt kernel_calls = 0, fallbacks = 0;
};

#if PETSC_VERSION_GE(3, 25, 0)
PetscErrorCode CtxDestroy(PetscCtxRt p) {
  delete *static_cast<Ctx**>(p);
  return PETSC_SUCCESS;
}
#elif PETSC_VERSION_GE(3, 23, 0)
PetscErrorCode CtxDestroy(void** p) {
  delete static_cast<Ctx*>(*p);
  return PETSC_SUCCESS;
}
#else
PetscErrorCode CtxDestroy(void* p) {
  delete static_cast<Ctx*>(p);
  return PETSC_SUCCESS;
}
#endif

PetscErrorCode GetCtx(Mat A, PetscBool create, Ctx** ctx) {
  PetscContainer c = nullptr;

  PetscFunctionBegin;
  *ctx = nullptr;
  PetscCall(PetscObjectQuery((PetscObject)A, kCtxKey, (PetscObject*)&c));
  if (c) {
    void* p = nullptr;
    PetscCall(PetscContainerGetPointer(c, &p));
    *ctx = static_cast<Ctx*>(p);
  } else if (create) {
    Ctx* n = new (std::nothrow) Ctx();
    PetscCheck(n, PETSC_COMM_SELF, PETSC_ERR_MEM, "Hola: out of memory");
    PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &c));
    PetscCall(PetscContainerSetPointer(c, n));
#if PETSC_VERSION_GE(3, 23, 0)
    PetscCall(PetscContainerSetCtxDestroy(c, CtxDestroy));
#else
    PetscCall(PetscContainerSetUserDestroy(c, CtxDestroy));
#endif
    PetscCall(PetscObjectCompose((PetscObject)A, kCtxKey, (PetscObject)c));
    PetscCall(PetscContainerDestroy(&c));
    *ctx = n;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Attach(Mat A, const Settings& settings);

// Reads -mat_hola_* with the matrix's prefix (also lists them under -help).
PetscErrorCode ReadSettings(Mat A, Settings* s) {
  char kernel[64];
  PetscBool set = PETSC_FALSE, flg;
  const std::string names = hola::KernelRegistry::names();

  PetscFunctionBegin;
  const char* prefix = nullptr;
  PetscCall(MatGetOptionsPrefix(A, &prefix));
  PetscCall(PetscStrncpy(kernel, s->kernel.c_str(), sizeof(kernel)));
  PetscOptionsBegin(PetscObjectComm((PetscObject)A), prefix, "Hola SpMV options", "Mat");
  PetscCall(PetscOptionsString("-mat_hola_kernel", ("Hola SpMV kernel: " + names).c_str(),
                               "MatMult", kernel, kernel, sizeof(kernel), &set));
  flg = s->deterministic ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(PetscOptionsBool("-mat_hola_deterministic",
                             "Bitwise reproducible products (no floating-point atomics)", "MatMult",
                             flg, &flg, nullptr));
  s->deterministic = flg == PETSC_TRUE;
  flg = s->view ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(PetscOptionsBool("-mat_hola_view", "Print the kernel Hola chose and why", "MatMult",
                             flg, &flg, nullptr));
  s->view = flg == PETSC_TRUE;
  PetscOptionsEnd();
  PetscCheck(hola::KernelRegistry::find(kernel), PetscObjectComm((PetscObject)A),
             PETSC_ERR_ARG_OUTOFRANGE, "Hola: unknown -mat_hola_kernel '%s' (known: %s)", kernel,
             names.c_str());
  s->kernel = kernel;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// ---- sequential products on Hola's kernels ----
#if !defined(PETSC_USE_COMPLEX)

// z = op(A) x (+ y when y is given; y may be z).
PetscErrorCode SeqProduct(Mat A, Ctx* ctx, Vec x, Vec y, Vec z, hola::Op op) {
  const PetscInt *ai = nullptr, *aj = nullptr;
  PetscScalar* aa = nullptr;
  PetscMemType mt;
  PetscInt m, n;
  PetscObjectState state;
  const PetscScalar *xa = nullptr, *ya = nullptr;
  PetscScalar* za = nullptr;
  std::string err;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &m, &n));
  PetscCall(MatSeqAIJGetCSRAndMemType(A, &ai, &aj, &aa, &mt));
  PetscCall(MatGetNonzeroState(A, &state));
  const PetscInt nnz = ai ? ai[m] : 0;
  const PetscInt nx = op == hola::Op::N ? n : m, nz = op == hola::Op::N ? m : n;

  PetscCall(VecGetArrayRead(x, &xa));
  if (y && y != z) PetscCall(VecGetArrayRead(y, &ya));
  if (y == z)
    PetscCall(VecGetArray(z, &za));
  else
    PetscCall(VecGetArrayWrite(z, &za));
  if (y == z) ya = za;

  if (nnz == 0 || m == 0 || n == 0) {  // nothing to multiply (e.g. a rank without ghost columns)
    for (PetscInt i = 0; i < nz; i++) za[i] = ya ? ya[i] : 0;
  } else {
    try {
      if (!ctx->op) {
        hola::OperatorOptions o;
        o.kernel = ctx->settings.kernel;
        o.deterministic = ctx->settings.deterministic;
        ctx->op = std::make_unique<HolaOperator>(o);
      }
      hola::CsrView<PetscScalar, PetscInt, PetscInt> view;
      view.rows = m;
      view.cols = n;
      view.nnz = nnz;
      view.row_ptr = ai;
      view.col_idx = aj;
      view.values = aa;
      view.memory = hola::Memory::host;
      ctx->op->setup(view, static_cast<std::uint64_t>(state));
      ctx->op->apply(op, PetscScalar(1), hola::ConstVec<PetscScalar>{xa, nx},
                     y ? PetscScalar(1) : PetscScalar(0),
                     hola::ConstVec<PetscScalar>{ya, y ? nz : 0}, hola::Vec<PetscScalar>{za, nz});
      ctx->kernel_calls++;
    } catch (const std::exception& e) {
      err = e.what();
    } catch (...) {
      err = "unknown C++ exception";
    }
  }

  if (y == z)
    PetscCall(VecRestoreArray(z, &za));
  else
    PetscCall(VecRestoreArrayWrite(z, &za));
  if (y && y != z) PetscCall(VecRestoreArrayRead(y, &ya));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscCheck(err.empty(), PETSC_COMM_SELF, PETSC_ERR_LIB, "Hola: %s", err.c_str());
  PetscCall(PetscLogFlops(2.0 * (PetscLogDouble)nnz));

  if (ctx->settings.view && !ctx->viewed && ctx->op && ctx->op->is_setup()) {
    ctx->viewed = true;
    PetscMPIInt rank;
    PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
    PetscCall(PetscPrintf(PETSC_COMM_SELF,
                          "[%d] Hola: local block %" PetscInt_FMT " x %" PetscInt_FMT
                          ", %" PetscInt_FMT " nonzeros: kernel %s (op T: %s); %s\n",
                          (int)rank, m, n, nnz, ctx->op->kernel_name(hola::Op::N).c_str(),
                          ctx->op->kernel_name(hola::Op::T).c_str(),
                          ctx->op->selection_reason().c_str()));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MultSeq(Mat A, Vec x, Vec y) {
  Ctx* ctx;
  PetscFunctionBegin;
  PetscCall(GetCtx(A, PETSC_FALSE, &ctx));
  PetscCall(SeqProduct(A, ctx, x, nullptr, y, hola::Op::N));
  PetscFunctionReturn(PETSC_SUCCESS);
}
PetscErrorCode MultAddSeq(Mat A, Vec x, Vec y, Vec z) {
  Ctx* ctx;
  PetscFunctionBegin;
  PetscCall(GetCtx(A, PETSC_FALSE, &ctx));
  PetscCall(SeqProduct(A, ctx, x, y, z, hola::Op::N));
  PetscFunctionReturn(PETSC_SUCCESS);
}
PetscErrorCode MultTransposeSeq(Mat A, Vec x, Vec y) {
  Ctx* ctx;
  PetscFunctionBegin;
  PetscCall(GetCtx(A, PETSC_FALSE, &ctx));
  PetscCall(SeqProduct(A, ctx, x, nullptr, y, hola::Op::T));
  PetscFunctionReturn(PETSC_SUCCESS);
}
PetscErrorCode MultTransposeAddSeq(Mat A, Vec x, Vec y, Vec z) {
  Ctx* ctx;
  PetscFunctionBegin;
  PetscCall(GetCtx(A, PETSC_FALSE, &ctx));
  PetscCall(SeqProduct(A, ctx, x, y, z, hola::Op::T));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// ---- MPI: PETSc's outer products, our blocks ----
PetscErrorCode EnsureBlocks(Mat A, Ctx* ctx) {
  Mat blk[2] = {nullptr, nullptr};
  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(A, &blk[0], &blk[1], nullptr));
  for (Mat b : blk) {
    if (!b) continue;
    HolaOpPtr f = nullptr;
    PetscCall(MatGetOperation(b, MATOP_MULT, &f));
    if (f != (HolaOpPtr)MultSeq) PetscCall(Attach(b, ctx->settings));  // new or reset block
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
PetscErrorCode MultMPI(Mat A, Vec x, Vec y) {
  Ctx* ctx;
  PetscFunctionBegin;
  PetscCall(GetCtx(A, PETSC_FALSE, &ctx));
  PetscCall(EnsureBlocks(A, ctx));
  PetscCall(ctx->mult(A, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}
PetscErrorCode MultAddMPI(Mat A, Vec x, Vec y, Vec z) {
  Ctx* ctx;
  PetscFunctionBegin;
  PetscCall(GetCtx(A, PETSC_FALSE, &ctx));
  PetscCall(EnsureBlocks(A, ctx));
  PetscCall(ctx->multadd(A, x, y, z));
  PetscFunctionReturn(PETSC_SUCCESS);
}
PetscErrorCode MultTransposeMPI(Mat A, Vec x, Vec y) {
  Ctx* ctx;
  PetscFunctionBegin;
  PetscCall(GetCtx(A, PETSC_FALSE, &ctx));
  PetscCall(EnsureBlocks(A, ctx));
  PetscCall(ctx->multtranspose(A, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}
PetscErrorCode MultTransposeAddMPI(Mat A, Vec x, Vec y, Vec z) {
  Ctx* ctx;
  PetscFunctionBegin;
  PetscCall(GetCtx(A, PETSC_FALSE, &ctx));
  PetscCall(EnsureBlocks(A, ctx));
  PetscCall(ctx->multtransposeadd(A, x, y, z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// ---- operations that must survive PETSc's resets ----
PetscErrorCode Duplicate(Mat A, MatDuplicateOption o, Mat* B) {
  Ctx* ctx;
  PetscFunctionBegin;
  PetscCall(GetCtx(A, PETSC_FALSE, &ctx));
  PetscCall(ctx->duplicate(A, o, B));
  PetscCall(Attach(*B, ctx->settings));
  PetscFunctionReturn(PETSC_SUCCESS);
}
PetscErrorCode BindToCPU(Mat A, PetscBool flg) {
  Ctx* ctx;
  PetscFunctionBegin;
  PetscCall(GetCtx(A, PETSC_FALSE, &ctx));
  PetscCall(ctx->bindtocpu(A, flg));    // PETSc may rewrite the product ops here
  PetscCall(Attach(A, ctx->settings));  // record them again as fallback, re-install ours
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <class T>
PetscErrorCode Swap(Mat A, MatOperation op, T* saved, T ours) {
  HolaOpPtr cur = nullptr;
  PetscFunctionBegin;
  PetscCall(MatGetOperation(A, op, &cur));
  if (cur != (HolaOpPtr)ours) *saved = (T)cur;
  if (*saved) PetscCall(MatSetOperation(A, op, (HolaOpPtr)ours));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Attach(Mat A, const Settings& settings) {
  Ctx* ctx;
  PetscBool mpi;
  MatFactorType ft;

  PetscFunctionBegin;
  PetscCall(MatGetFactorType(A, &ft));
  if (ft != MAT_FACTOR_NONE) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATMPIAIJ, &mpi));
  PetscCall(GetCtx(A, PETSC_TRUE, &ctx));
  if (ctx->settings.kernel != settings.kernel ||
      ctx->settings.deterministic != settings.deterministic)
    ctx->op.reset();
  ctx->settings = settings;
  if (mpi) {
    PetscCall(Swap<MultFn>(A, MATOP_MULT, &ctx->mult, MultMPI));
    PetscCall(Swap<MultAddFn>(A, MATOP_MULT_ADD, &ctx->multadd, MultAddMPI));
    PetscCall(Swap<MultFn>(A, MATOP_MULT_TRANSPOSE, &ctx->multtranspose, MultTransposeMPI));
    PetscCall(
        Swap<MultAddFn>(A, MATOP_MULT_TRANSPOSE_ADD, &ctx->multtransposeadd, MultTransposeAddMPI));
  } else {
    PetscCall(Swap<MultFn>(A, MATOP_MULT, &ctx->mult, MultSeq));
    PetscCall(Swap<MultAddFn>(A, MATOP_MULT_ADD, &ctx->multadd, MultAddSeq));
    PetscCall(Swap<MultFn>(A, MATOP_MULT_TRANSPOSE, &ctx->multtranspose, MultTransposeSeq));
    PetscCall(
        Swap<MultAddFn>(A, MATOP_MULT_TRANSPOSE_ADD, &ctx->multtransposeadd, MultTransposeAddSeq));
  }
  PetscCall(Swap<DupFn>(A, MATOP_DUPLICATE, &ctx->duplicate, Duplicate));
  // CPU-only PETSc types have no bind-to-CPU op: then it stays unset.
  PetscCall(Swap<BindFn>(A, MATOP_BIND_TO_CPU, &ctx->bindtocpu, BindToCPU));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif  // !PETSC_USE_COMPLEX

PetscErrorCode MatCreate_HolaAIJ(Mat A) {
  PetscMPIInt size;
  Settings settings;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  PetscCall(MatSetType(A, size == 1 ? MATSEQAIJ : MATMPIAIJ));  // the name stays PETSc's
  PetscCall(ReadSettings(A, &settings));
#if defined(PETSC_USE_COMPLEX)
  // Hola has no complex kernels yet: the matrix is PETSc's AIJ unchanged.
  PetscCall(PetscInfo(A, "Hola: complex scalars are not supported, using PETSc's AIJ products\n"));
#else
  PetscCall(Attach(A, settings));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

}  // namespace

PETSC_EXTERN PetscErrorCode HolaPetscGetStats(Mat A, PetscInt* kernel_calls, PetscInt* fallbacks,
                                              PetscInt* analyses) {
  Mat blk[2] = {A, nullptr};
  PetscBool mpi;
  PetscInt k = 0, f = 0, r = 0;

  PetscFunctionBegin;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATMPIAIJ, &mpi));
  if (mpi) PetscCall(MatMPIAIJGetSeqAIJ(A, &blk[0], &blk[1], nullptr));
  for (Mat b : blk) {
    Ctx* ctx = nullptr;
    if (!b) continue;
    PetscCall(GetCtx(b, PETSC_FALSE, &ctx));
    if (!ctx) continue;
    k += ctx->kernel_calls;
    f += ctx->fallbacks;
#if !defined(PETSC_USE_COMPLEX)
    if (ctx->op) r += (PetscInt)ctx->op->analysis_count();
#endif
  }
  if (kernel_calls) *kernel_calls = k;
  if (fallbacks) *fallbacks = f;
  if (analyses) *analyses = r;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PETSC_EXTERN PetscErrorCode HolaPetscIsAttached(Mat A, PetscBool* attached) {
  Ctx* ctx = nullptr;
  PetscFunctionBegin;
  PetscCall(GetCtx(A, PETSC_FALSE, &ctx));
  *attached = ctx ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PETSC_EXTERN PetscErrorCode HolaPetscRegister(void) {
  static PetscBool done = PETSC_FALSE;
  PetscFunctionBegin;
  if (done) PetscFunctionReturn(PETSC_SUCCESS);
  done = PETSC_TRUE;
  PetscCall(MatRegister(MATHOLAAIJ, MatCreate_HolaAIJ));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_holapetsc(void) { return HolaPetscRegister(); }
