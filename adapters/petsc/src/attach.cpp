// The matrix keeps PETSc's type name (PETSc compares type names in many places); only the
// function pointers of the product operations are replaced. PETSc's originals are kept in a
// container composed with the matrix and are used as fallback. For MPIAIJ matrices the outer
// operations stay PETSc's (scatter / compute overlap); the diagonal and off-diagonal blocks are
// re-hooked lazily before every product because PETSc recreates them (preallocation, disassembly,
// COO assembly, ...).
#include "attach.hpp"

#include <algorithm>
#include <cstring>
#include <new>
#include <vector>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "hola/petsc.h"
#include "hola/registry.hpp"

namespace hola_petsc {

PetscLogEvent kSetupEvent = 0;

namespace {

constexpr const char* kCtxKey = "Hola_PetscCtx";

PetscErrorCode CtxDestroy(HOLA_CTX_DESTROY_ARG arg) {
  delete static_cast<Ctx*>(HOLA_CTX_DESTROY_PTR(arg));
  return PETSC_SUCCESS;
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
    if (f != (HolaOpPtr)ctx->seq->mult) PetscCall(Attach(b, ctx->settings, *ctx->seq));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

// What each rank tells the other ranks of its node for the layout lines.
struct NodeEntry {
  int has_gpu;      // a CUDA device context with a device id and a known bus id
  int visible;      // GPUs the process sees
  char bus_id[32];  // PCI bus id of its GPU
};

// -mat_hola_view on an MPI matrix, at its first product (collective, once per matrix): one line per
// rank, in rank order, with its node and node-local rank (MPI_COMM_TYPE_SHARED) and, for a device
// backend, its GPU and whether PETSc hands device buffers to MPI; then, per node, a warning when
// ranks share a GPU although more of the visible GPUs are unused.
PetscErrorCode ViewRankLayout(Mat A, Ctx* ctx) {
  MPI_Comm comm = PetscObjectComm((PetscObject)A), node = MPI_COMM_NULL;
  PetscMPIInt wrank, nrank, nsize;
  char host[MPI_MAX_PROCESSOR_NAME + 1] = "";
  int hlen = 0;
  char line[1024];
  std::string out;

  PetscFunctionBegin;
  ctx->viewed = true;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &wrank));
  PetscCallMPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  PetscCallMPI(MPI_Comm_rank(node, &nrank));
  PetscCallMPI(MPI_Comm_size(node, &nsize));
  PetscCallMPI(MPI_Get_processor_name(host, &hlen));
  PetscCall(PetscSNPrintf(line, sizeof(line), "[%d] Hola (%s): node %s, node-local rank %d of %d",
                          (int)wrank, ctx->seq->name, host, (int)nrank, (int)nsize));
  out = line;
  if (!ctx->seq->rank_device) {
#ifdef _OPENMP
    PetscCall(PetscSNPrintf(line, sizeof(line), ": CPU kernels, OpenMP threads: %d",
                            omp_get_max_threads()));
#else
    PetscCall(PetscSNPrintf(line, sizeof(line), ": CPU kernels"));
#endif
    out += line;
  } else {
    RankDevice d;
    PetscCall(ctx->seq->rank_device(&d));
    NodeEntry mine{};
    mine.has_gpu = d.petsc_device >= 0 && d.bus_id[0];  // without a bus id: left out below
    mine.visible = d.visible;
    PetscCall(PetscStrncpy(mine.bus_id, d.bus_id, sizeof(mine.bus_id)));
    std::vector<NodeEntry> all((size_t)nsize);
    PetscCallMPI(MPI_Allgather(&mine, (int)sizeof(NodeEntry), MPI_BYTE, all.data(),
                               (int)sizeof(NodeEntry), MPI_BYTE, node));
    if (d.petsc_device >= 0)
      PetscCall(PetscSNPrintf(line, sizeof(line), ": GPU %d (PCI %s) of %d visible",
                              (int)d.petsc_device, d.bus_id[0] ? d.bus_id : "unknown", d.visible));
    else
      PetscCall(PetscSNPrintf(line, sizeof(line), ": no CUDA device context (%d GPUs visible)",
                              d.visible));
    out += line;
    if (d.petsc_device >= 0 && d.cuda_device != (int)d.petsc_device) {
      PetscCall(PetscSNPrintf(line, sizeof(line), " (the CUDA runtime's current device is %d)",
                              d.cuda_device));
      out += line;
    }
    out += d.gpu_aware_mpi ? "; GPU-aware MPI: yes" : "; GPU-aware MPI: no";
    // Once per node: ranks sharing a GPU while visible GPUs stay unused.
    if (nrank == 0) {
      int ranks = 0, used = 0, visible = 0, first = -1, second = -1;
      for (int i = 0; i < nsize; i++) {
        if (!all[i].has_gpu) continue;
        ranks++;
        visible = std::max(visible, all[i].visible);
        bool seen = false;
        for (int j = 0; j < i && !seen; j++) {
          if (!all[j].has_gpu || std::strcmp(all[i].bus_id, all[j].bus_id) != 0) continue;
          seen = true;
          if (first < 0) {
            first = j;
            second = i;
          }
        }
        if (!seen) used++;
      }
      if (visible > 1 && used < std::min(ranks, visible)) {
        PetscCall(PetscSNPrintf(
            line, sizeof(line),
            "\n[%d] Hola (%s): warning: on node %s, %d ranks use %d of %d visible GPUs "
            "(node-local ranks %d and %d share PCI %s): likely a wrong rank-to-GPU mapping "
            "(see -device_view, -device_select_cuda, CUDA_VISIBLE_DEVICES)",
            (int)wrank, ctx->seq->name, host, ranks, used, visible, first, second,
            all[first].bus_id));
        out += line;
      }
    }
  }
  PetscCallMPI(MPI_Comm_free(&node));
  PetscCall(PetscSynchronizedPrintf(comm, "%s\n", out.c_str()));
  PetscCall(PetscSynchronizedFlush(comm, PETSC_STDOUT));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// PETSc's outer product (scatter, local blocks, off-diagonal part) once the blocks carry ours.
PetscErrorCode MpiProduct(Mat A, Ctx* ctx, Vec x, Vec y, Vec z, hola::Op op, bool* done) {
  PetscFunctionBegin;
  PetscCall(EnsureBlocks(A, ctx));
  if (ctx->settings.view && !ctx->viewed) PetscCall(ViewRankLayout(A, ctx));
  PetscCall(PetscProduct(A, ctx, x, y, z, op));
  *done = true;
  PetscFunctionReturn(PETSC_SUCCESS);
}
constexpr SeqOps kMpiOps = MakeOps<MpiProduct>("mpi");

// ---- operations that must survive PETSc's resets ----
// B has A's nonzero pattern (a duplicate, or a copy with SAME_NONZERO_PATTERN): B's operator
// takes over A's decision rather than computing features again.
PetscErrorCode InheritDecision(Ctx* from, Mat B) {
  Ctx* to = nullptr;
  PetscFunctionBegin;
#if HOLA_PETSC_SCALAR_SUPPORTED
  if (!from->op || !from->op->decision()) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(GetCtx(B, PETSC_FALSE, &to));
  if (!to) PetscFunctionReturn(PETSC_SUCCESS);
  to->inherited = from->op->decision();
  if (to->op) to->op->reuse_decision(to->inherited);
#else
  (void)from;
  (void)B;
  (void)to;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Duplicate(Mat A, MatDuplicateOption o, Mat* B) {
  Ctx* ctx;
  PetscFunctionBegin;
  PetscCall(GetAttachedCtx(A, &ctx));
  PetscCall(ctx->duplicate(A, o, B));
  PetscCall(Attach(*B, ctx->settings, *ctx->seq));
  PetscCall(InheritDecision(ctx, *B));
  PetscFunctionReturn(PETSC_SUCCESS);
}
PetscErrorCode Copy(Mat A, Mat B, MatStructure str) {
  Ctx* ctx;
  PetscFunctionBegin;
  PetscCall(GetAttachedCtx(A, &ctx));
  if (str == SAME_NONZERO_PATTERN) {
    // MPI: PETSc copies block to block; B's blocks must carry our operations first (they are
    // hooked lazily) so that each block's copy hands its decision over.
    Ctx* to = nullptr;
    PetscBool mpi;
    PetscCall(GetCtx(B, PETSC_FALSE, &to));
    PetscCall(PetscObjectBaseTypeCompare((PetscObject)B, MATMPIAIJ, &mpi));
    if (to && to->seq && mpi) PetscCall(EnsureBlocks(B, to));
  }
  PetscCall(ctx->copy(A, B, str));
  if (str == SAME_NONZERO_PATTERN) PetscCall(InheritDecision(ctx, B));
  PetscFunctionReturn(PETSC_SUCCESS);
}
PetscErrorCode BindToCPU(Mat A, PetscBool flg) {
  Ctx* ctx;
  PetscFunctionBegin;
  PetscCall(GetAttachedCtx(A, &ctx));
  PetscCall(ctx->bindtocpu(A, flg));  // PETSc rewrites the product ops here
  ctx->device = Ctx::DeviceCache{};   // look the device arrays up again at the next product
  // Record them again as fallback and re-install ours (a copy: Attach may reset settings).
  const Settings settings = ctx->settings;
  PetscCall(Attach(A, settings, *ctx->seq));
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

}  // namespace

PetscErrorCode PetscProduct(Mat A, Ctx* ctx, Vec x, Vec y, Vec z, hola::Op op) {
  PetscFunctionBegin;
  if (y)
    PetscCall((op == hola::Op::N ? ctx->multadd : ctx->multtransposeadd)(A, x, y, z));
  else
    PetscCall((op == hola::Op::N ? ctx->mult : ctx->multtranspose)(A, x, z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GetProductArrays(const VecAccessors& f, Vec x, Vec y, Vec z, ProductArrays* a) {
  PetscFunctionBegin;
  PetscCall(f.get_read(x, &a->x));
  if (y && y != z) PetscCall(f.get_read(y, &a->y));
  if (y == z)
    PetscCall(f.get(z, &a->z));
  else
    PetscCall(f.get_write(z, &a->z));
  if (y == z) a->y = a->z;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode RestoreProductArrays(const VecAccessors& f, Vec x, Vec y, Vec z, ProductArrays* a) {
  PetscFunctionBegin;
  if (y == z)
    PetscCall(f.restore(z, &a->z));
  else
    PetscCall(f.restore_write(z, &a->z));
  if (y && y != z) PetscCall(f.restore_read(y, &a->y));
  PetscCall(f.restore_read(x, &a->x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

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
    PetscCall(HolaContainerSetDestroy(c, CtxDestroy));
    PetscCall(PetscObjectCompose((PetscObject)A, kCtxKey, (PetscObject)c));
    PetscCall(PetscContainerDestroy(&c));
    *ctx = n;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

namespace {
const SeqOps* registered_backend[2] = {nullptr, nullptr};  // host, device

// Gives A the operations PETSc installs for its type (read off an empty matrix of that type) in
// place of Hola's, for the operations Attach swaps.
PetscErrorCode RestorePetscOperations(Mat A) {
  Mat fresh;
  MatType type;
  const MatOperation ops[] = {
      MATOP_MULT,      MATOP_MULT_ADD, MATOP_MULT_TRANSPOSE, MATOP_MULT_TRANSPOSE_ADD,
      MATOP_DUPLICATE, MATOP_COPY,     MATOP_BIND_TO_CPU};
  PetscFunctionBegin;
  PetscCall(MatGetType(A, &type));
  PetscCall(MatCreate(PetscObjectComm((PetscObject)A), &fresh));
  PetscCall(MatSetSizes(fresh, 0, 0, 0, 0));
  PetscCall(MatSetType(fresh, type));
  for (MatOperation op : ops) {
    HolaOpPtr f = nullptr;
    PetscCall(MatGetOperation(fresh, op, &f));
    PetscCall(MatSetOperation(A, op, f));
  }
  PetscCall(MatDestroy(&fresh));
  PetscFunctionReturn(PETSC_SUCCESS);
}
}  // namespace

void RegisterBackend(const SeqOps& ops, bool device) { registered_backend[device ? 1 : 0] = &ops; }

PetscErrorCode GetAttachedCtx(Mat A, Ctx** ctx) {
  PetscBool device = PETSC_FALSE;
  Settings settings;

  PetscFunctionBegin;
  PetscCall(GetCtx(A, PETSC_FALSE, ctx));
  if (*ctx) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(
      PetscObjectTypeCompareAny((PetscObject)A, &device, MATSEQAIJCUSPARSE, MATMPIAIJCUSPARSE, ""));
  const SeqOps* backend = registered_backend[device ? 1 : 0];
  PetscCheck(backend, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "Hola: the matrix has Hola's operations but not their context, and no Hola backend "
             "is registered for its type");
  PetscCall(PetscInfo(A,
                      "Hola: the matrix carries Hola's operations without their context (a "
                      "copy of another matrix's operation table); attaching them afresh\n"));
  PetscCall(RestorePetscOperations(A));
  PetscCall(ReadSettings(A, &settings));
  PetscCall(Attach(A, settings, *backend));
  PetscCall(GetCtx(A, PETSC_FALSE, ctx));
  PetscCheck(*ctx, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "Hola: the matrix has Hola's operations but not their context");
  PetscFunctionReturn(PETSC_SUCCESS);
}

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
  // PetscOptionsBool works on PetscBool; the settings keep bool.
  auto read_bool = [&](const char* name, const char* help, bool& value) -> PetscErrorCode {
    flg = value ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(PetscOptionsBool(name, help, "MatMult", flg, &flg, nullptr));
    value = flg == PETSC_TRUE;
    return PETSC_SUCCESS;
  };
  PetscCall(read_bool("-mat_hola_deterministic",
                      "Bitwise reproducible products (no floating-point atomics)",
                      s->deterministic));
  PetscCall(read_bool("-mat_hola_auto_race",
                      "auto on the GPU: also time the tree's pick, its runner-up and cuSPARSE at "
                      "setup and keep the fastest (costs milliseconds per structure)",
                      s->auto_race));
  PetscCall(read_bool("-mat_hola_auto_check",
                      "auto on the GPU: time the tree's pick against its runner-up and cuSPARSE "
                      "over the first products of each op (no synchronisation) and keep the "
                      "fastest",
                      s->auto_check));
  PetscCall(
      PetscOptionsInt("-mat_hola_compress_min_rows",
                      "Leave a block's empty rows out of the kernels' work when at least half "
                      "of its rows and at least this many are empty (a ghost block); "
                      "negative: never",
                      "MatMult", s->compress_min_rows, &s->compress_min_rows, nullptr));
  PetscCall(read_bool("-mat_hola_view", "Print the kernel Hola chose and why", s->view));
  PetscOptionsEnd();
  PetscCheck(hola::KernelRegistry::find(kernel), PetscObjectComm((PetscObject)A),
             PETSC_ERR_ARG_OUTOFRANGE, "Hola: unknown -mat_hola_kernel '%s' (known: %s)", kernel,
             names.c_str());
  s->kernel = kernel;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Attach(Mat A, const Settings& settings, const SeqOps& seq) {
  Ctx* ctx;
  PetscBool mpi;
  MatFactorType ft;

  PetscFunctionBegin;
  PetscCall(MatGetFactorType(A, &ft));
  if (ft != MAT_FACTOR_NONE) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATMPIAIJ, &mpi));  // also mpiaijcusparse
  PetscCall(GetCtx(A, PETSC_TRUE, &ctx));
#if HOLA_PETSC_SCALAR_SUPPORTED
  if (ctx->settings.kernel != settings.kernel ||
      ctx->settings.deterministic != settings.deterministic ||
      ctx->settings.auto_race != settings.auto_race ||
      ctx->settings.auto_check != settings.auto_check || ctx->seq != &seq) {
    ctx->op.reset();
    ctx->device = Ctx::DeviceCache{};
  }
#endif
  ctx->settings = settings;
  ctx->seq = &seq;
  const SeqOps& ours = mpi ? kMpiOps : seq;
  PetscCall(Swap<MultFn>(A, MATOP_MULT, &ctx->mult, ours.mult));
  PetscCall(Swap<MultAddFn>(A, MATOP_MULT_ADD, &ctx->multadd, ours.multadd));
  PetscCall(Swap<MultFn>(A, MATOP_MULT_TRANSPOSE, &ctx->multtranspose, ours.multtranspose));
  PetscCall(
      Swap<MultAddFn>(A, MATOP_MULT_TRANSPOSE_ADD, &ctx->multtransposeadd, ours.multtransposeadd));
  PetscCall(Swap<DupFn>(A, MATOP_DUPLICATE, &ctx->duplicate, Duplicate));
  PetscCall(Swap<CopyFn>(A, MATOP_COPY, &ctx->copy, Copy));
  // CPU-only PETSc types have no bind-to-CPU op: then it stays unset.
  PetscCall(Swap<BindFn>(A, MATOP_BIND_TO_CPU, &ctx->bindtocpu, BindToCPU));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if HOLA_PETSC_SCALAR_SUPPORTED
void SetupOperator(Ctx* ctx, PetscInt rows, PetscInt cols, PetscInt nnz, const PetscInt* ai,
                   const PetscInt* aj, const PetscScalar* aa, hola::Memory memory,
                   PetscObjectState state, void* stream) {
  const auto view = hola::csr_view(rows, cols, nnz, ai, aj, aa, memory);
  if (!ctx->op) {
    hola::OperatorOptions o;
    o.kernel = ctx->settings.kernel;
    o.deterministic = ctx->settings.deterministic;
    o.auto_trial = ctx->settings.auto_race;
    o.auto_check = ctx->settings.auto_check;
    o.compress_empty_rows = ctx->settings.compress_min_rows >= 0;
    o.compress_min_empty_rows = ctx->settings.compress_min_rows;
    ctx->op = std::make_unique<HolaOperator>(o);
    if (ctx->inherited) ctx->op->reuse_decision(ctx->inherited);
  }
  const auto version = static_cast<std::uint64_t>(state);
  if (ctx->op->is_set_up_for(HolaOperator::fingerprint(view, version))) {
    ctx->op->setup(view, version, stream);  // the values pointer only
    return;
  }
  // A full analysis: logged as HolaSetup (a no-op unless PETSc's logging is on).
  (void)PetscLogEventBegin(kSetupEvent, 0, 0, 0, 0);
  try {
    ctx->op->setup(view, version, stream);
  } catch (...) {
    (void)PetscLogEventEnd(kSetupEvent, 0, 0, 0, 0);
    throw;
  }
  (void)PetscLogEventEnd(kSetupEvent, 0, 0, 0, 0);
}

std::string ApplyOperator(Ctx* ctx, hola::Op op, const ProductArrays& a, bool add, PetscInt nx,
                          PetscInt nz, void* stream) {
  try {
    // -mat_hola_view: auto's check at the first products ends after the setup's line was
    // printed, so its verdict gets a line of its own.
    const bool checking = ctx->settings.view && ctx->op->auto_check_pending(op);
    ctx->op->apply(op, PetscScalar(1), hola::ConstVec<PetscScalar>{a.x, nx},
                   add ? PetscScalar(1) : PetscScalar(0),
                   hola::ConstVec<PetscScalar>{a.y, add ? nz : 0}, hola::Vec<PetscScalar>{a.z, nz},
                   stream);
    ctx->kernel_calls++;
    if (checking && !ctx->op->auto_check_pending(op)) {
      const std::string reason = ctx->op->selection_reason();
      const std::string mark = std::string("; op ") + hola::op_name(op) + " ";
      const std::size_t at = reason.rfind(mark);
      (void)PetscPrintf(PETSC_COMM_SELF, "[%d] Hola (%s): op %s runs %s from now on (%s)\n",
                        (int)PetscGlobalRank, ctx->seq->name, hola::op_name(op),
                        ctx->op->kernel_name(op).c_str(),
                        at == std::string::npos ? "" : reason.substr(at + mark.size()).c_str());
    }
    return {};
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown C++ exception";
  }
}

PetscErrorCode ViewOnce(Ctx* ctx, PetscInt rows, PetscInt cols, PetscInt nnz) {
  PetscFunctionBegin;
  if (!ctx->settings.view || ctx->viewed || !ctx->op || !ctx->op->is_setup())
    PetscFunctionReturn(PETSC_SUCCESS);
  ctx->viewed = true;
  PetscMPIInt rank;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  const std::string kernel_t = ctx->op->kernel_name(hola::Op::T);
  PetscCall(PetscPrintf(
      PETSC_COMM_SELF,
      "[%d] Hola (%s): local block %" PetscInt_FMT " x %" PetscInt_FMT ", %" PetscInt_FMT
      " nonzeros: kernel %s (op T: %s); %s\n",
      (int)rank, ctx->seq->name, rows, cols, nnz, ctx->op->kernel_name(hola::Op::N).c_str(),
      kernel_t.empty() ? "PETSc's" : kernel_t.c_str(), ctx->op->selection_reason().c_str()));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

// Calls f(ctx) for each local block of A that Hola is attached to: A itself, or the diagonal and
// off-diagonal blocks of an MPIAIJ matrix.
template <class F>
PetscErrorCode ForEachLocalBlockCtx(Mat A, F&& f) {
  Mat blk[2] = {A, nullptr};
  PetscBool mpi;

  PetscFunctionBegin;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATMPIAIJ, &mpi));
  if (mpi) PetscCall(MatMPIAIJGetSeqAIJ(A, &blk[0], &blk[1], nullptr));
  for (Mat b : blk) {
    Ctx* ctx = nullptr;
    if (!b) continue;
    PetscCall(GetCtx(b, PETSC_FALSE, &ctx));
    if (ctx) f(*ctx);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

}  // namespace hola_petsc

using hola_petsc::Ctx;
using hola_petsc::ForEachLocalBlockCtx;
using hola_petsc::GetCtx;

PETSC_EXTERN PetscErrorCode HolaPetscGetStats(Mat A, PetscInt* kernel_calls, PetscInt* fallbacks,
                                              PetscInt* analyses) {
  PetscInt k = 0, f = 0, r = 0;
  auto add = [&](const Ctx& ctx) {
    k += ctx.kernel_calls;
    f += ctx.fallbacks;
#if HOLA_PETSC_SCALAR_SUPPORTED
    if (ctx.op) r += (PetscInt)ctx.op->analysis_count();
#endif
  };

  PetscFunctionBegin;
  PetscCall(ForEachLocalBlockCtx(A, add));
  if (kernel_calls) *kernel_calls = k;
  if (fallbacks) *fallbacks = f;
  if (analyses) *analyses = r;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PETSC_EXTERN PetscErrorCode HolaPetscGetDecisionsTakenOver(Mat A, PetscInt* taken_over) {
  PetscInt n = 0;
  auto add = [&]([[maybe_unused]] const Ctx& ctx) {
#if HOLA_PETSC_SCALAR_SUPPORTED
    if (ctx.op) n += (PetscInt)ctx.op->decisions_taken_over();
#endif
  };

  PetscFunctionBegin;
  PetscCall(ForEachLocalBlockCtx(A, add));
  *taken_over = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PETSC_EXTERN PetscErrorCode HolaPetscIsAttached(Mat A, PetscBool* attached) {
  Ctx* ctx = nullptr;
  PetscFunctionBegin;
  PetscCall(GetCtx(A, PETSC_FALSE, &ctx));
  *attached = ctx ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
