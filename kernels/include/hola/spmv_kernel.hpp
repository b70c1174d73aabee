// The one interface every SpMV kernel implements (CPU and GPU alike).
//
// Contract (docs/architecture.md, "Kernel contract"): y_out = alpha * op(A) * x + beta * y_in.
//  - beta == 0: y_in is not read (it may be null, NaN in it never leaks).
//  - y_in == y_out is allowed (the usual in-place update); PETSc's z = y + A x passes
//    alpha = beta = 1 with distinct y_in and y_out.
//  - x must not overlap y_out (the plugin checks this before calling).
//  - setup() may allocate and synchronize; apply() allocates nothing, copies nothing between
//    host and device and never synchronizes the device. It runs on the given stream
//    (a cudaStream_t passed as void*, ignored by CPU kernels).
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "hola/csr_view.hpp"

namespace hola {

// Options every kernel understands; kernels ignore what does not apply to them.
struct KernelOptions {
  bool deterministic = false;  // bitwise reproducible results: no floating-point atomics
  int nnz_per_thread = 0;      // 0: the kernel's tuned default
  int threads_per_block = 0;   // 0: the kernel's tuned default
  int cpu_threads = 0;         // 0: OpenMP's default
  // hola transpose, how products reach y: -1 the kernel's choice, 0 atomics in thread order,
  // 1 merged per column in shared memory first, 2 atomics in load (warp) order.
  int transpose_variant = -1;
  // hola op N: matrices of at most this many nonzeros take the carry path (fixed-order fix-up of
  // block-crossing rows, reproducible) even without `deterministic`; larger ones use atomics.
  // -1: the kernel's measured default; 0: atomics whenever `deterministic` is off.
  std::int64_t carry_path_max_nnz = -1;
  // scalar, vector, vector-adaptive op T: matrices of at most this many nonzeros take one gather
  // launch over a column index built at setup (no atomics, no zeroing pass) instead of the
  // zeroing pass and the atomic scatter. -1: the kernels' default (2^18); 0: never.
  std::int64_t gather_transpose_max_nnz = -1;
  // merge op N, and hola op N on the carry path: products of at most this many tiles (hola: blocks)
  // add the carries in the last block to finish (one launch) instead of a second kernel. -1: the
  // kernel's default (its threads per block: merge, one 32-tile chunk per warp of that block;
  // hola, one block boundary per thread); 0: never.
  std::int64_t fused_fixup_max_tiles = -1;
  // hola op N: each block asks the L2 for the column indices and values of the block this many
  // blocks ahead of its own, so that DRAM is read ahead of the blocks that will need them.
  // -1: the kernel's choice, which is now never (measured slower since the matrix loads are
  // evict-first: docs/kernels.md); 0: never.
  int l2_prefetch_tiles = -1;
  // vector-adaptive (lanes per row) and inode (lanes per group of rows): 2, 4, 8, 16 or 32, for
  // both ops; 0: the kernel's rule (about six entries a lane).
  int lanes_per_row = 0;
  // vector, vector-adaptive op T scatter at widths below 32 lanes: lanes of one warp step that
  // add into the same column sum their products first, so each distinct column of the step takes
  // one atomic. -1: the kernel's choice (off: measured slower, docs/kernels.md); 0: off; 1: on.
  int transpose_combine = -1;
  // vector, vector-adaptive op T scatter: a block owns a tile of consecutive rows and adds the
  // products whose columns fall into the bands around the diagonal that the matrix has (banded
  // matrices of random columns) into shared-memory windows first, then each window to y once.
  // Planned from a sample of rows at the first op T product of a structure (not inside a graph
  // capture). -1: the kernel's choice (bands that put at least 1.5 entries into each window slot
  // and hold at most half of their entries on diagonals: not stencils or FEM block rows, where
  // the plain scatter measured faster); 0: off; 1: wherever any band fits the shared memory (for
  // tests).
  int transpose_window = -1;
  // Shared memory the windows above may take a block, in KiB, 1 to 96 (above 48 only where the
  // GPU lets a block opt in to it; else setup throws): that budget's plan, as
  // the rule above gives it. 0 (default): at the first op T product the plans with 48 and 24 KiB
  // and the plain scatter are timed on scratch vectors and the fastest kept (less shared memory
  // lets more blocks share an SM but covers fewer columns; measured, neither wins everywhere, and
  // 96 KiB lost everywhere). The trial needs (rows + cols) values of scratch; without them, or
  // above 2 GiB, 48 KiB untimed.
  int transpose_window_kib = 0;
  // merge op T: the columns holding the most entries (hubs: power-law graphs) summed in a hash
  // table in each block's shared memory, the blocks resident and looping over the tiles, one
  // global atomic per hub and block at the end. The hubs are found at the first op T product of
  // a structure (not inside a graph capture) and left out when they hold under 5 % of the
  // nonzeros. -1: the kernel's choice (on, a table of at most 2048 entries, the smallest power
  // of two from 64 that the hubs found fill at most half); 0: off; 1: on (as -1); a power of two
  // from 64 to 16384: a table of that many entries (at most half of them hubs).
  int transpose_hubs = -1;
  // vector, vector-adaptive op N: each lane's steps four at a time, every step behind its own
  // bound, instead of four at a time and then the last (up to three) one by one; the same sums
  // bit for bit. -1: the kernel's choice (below 32 lanes where the rows hold at least one entry
  // a lane on average: measured faster there, docs/kernels.md); 0: off; 1: on.
  int predicated_row_steps = -1;
};

template <class V, class I, class O>
class SpmvKernel {
 public:
  virtual ~SpmvKernel() = default;

  virtual std::string name() const = 0;
  virtual bool supports(Op op) const = 0;
  virtual bool deterministic() const = 0;

  // Analysis and buffers for this structure. The view must stay valid until the next setup.
  virtual void setup(const CsrView<V, I, O>& A, void* stream) = 0;
  // New values with the same structure (no new analysis).
  virtual void set_values(const V* values) = 0;
  // Bytes of memory the kernel holds for this matrix beyond the matrix itself.
  virtual std::size_t workspace_bytes() const = 0;

  virtual void apply(Op op, V alpha, const V* x, V beta, const V* y_in, V* y_out, void* stream) = 0;

  // What setup decided for this structure and op, in a few words for benchmark notes (empty:
  // nothing to say).
  virtual std::string tuning(Op /*op*/) const { return {}; }
};

template <class V, class I, class O>
using SpmvKernelPtr = std::unique_ptr<SpmvKernel<V, I, O>>;

}  // namespace hola
