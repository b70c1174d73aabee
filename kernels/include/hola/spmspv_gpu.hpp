// GPU SpMSpV kernels (kernels/cuda/spmspv/, builds with HOLA_ENABLE_CUDA only): the same
// problem as hola/spmspv.hpp with every array in device memory; tests/gpu/spmspv_gpu_test.cu
// checks every kernel against the CPU reference.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "hola/csr_view.hpp"
#include "hola/spmspv.hpp"

namespace hola {
struct RowLengthStats;  // hola/features.hpp (not included here: its hola::gpu would clash with
                        // this gpu where both namespaces are in use)
}  // namespace hola

namespace hola::spmspv::gpu {

enum class Kernel : int {
  matrix_direct = 0,    // thread per row of M (A for N, A^T for T), x through a bitmap
  matrix_balanced = 1,  // equal runs of nonzeros of M per thread, row partials combined
                        // atomically
  vector_direct = 2,    // thread per entry of x over its column, atomic write-back
  vector_balanced = 3,  // equal shares of the touched nonzeros per thread (scan of the
                        // column lengths of x's entries), atomic write-back
  densify = 4,          // densify-and-SpMV: x scattered into a dense vector, one dense SpMV
                        // (the caller's: Spmspv::set_dense_spmv), the mask applied, a sparse y
                        // compacted; plus_times only
};

// How vector_balanced combines its products into y. atomic (the default): atomically, in
// whatever order the threads meet, so that a plus_times sum may round differently from run to
// run. sorted: x put in increasing index order when it is not, the touched nonzeros expanded
// into (output index, product) pairs in chunks, each chunk stable-sorted by output index (CUB
// radix sort), and each output's run of pairs summed by one thread in that order, continuing
// the earlier chunks' sum: every output is the sum of its products in increasing input index,
// started from the first, as matrix_direct computes it over a CSR with increasing columns. The
// same y in every run, for one more stream synchronisation per call (the touched count, which
// sizes the sort) and the sort's traffic.
enum class WriteBack : int { atomic = 0, sorted = 1 };

inline const char* kernel_name(Kernel k) {
  switch (k) {
    case Kernel::matrix_direct:
      return "matrix_direct";
    case Kernel::matrix_balanced:
      return "matrix_balanced";
    case Kernel::vector_direct:
      return "vector_direct";
    case Kernel::vector_balanced:
      return "vector_balanced";
    case Kernel::densify:
      return "densify";
  }
  return "unknown";
}

#if defined(HOLA_ENABLE_CUDA)

// True when device code can read p (device, managed, or mapped pinned host memory; null counts
// as accessible). One cudaPointerGetAttributes call: the validation of the operator's arguments.
bool device_accessible(const void* p);

// The column view on the device: the CSR of A^T built from A in device memory, with the CSR
// position of each entry so that new values are copied without a rebuild. Built by a stable CUB
// radix sort of A's column indices carrying the positions (entries of a column stay in row
// order: the same arrays as the host ColumnView). Memory: (cols + 1 + nnz) sizeof(O) +
// nnz (sizeof(I) + sizeof(V)) bytes; the build borrows nnz (sizeof(I) + sizeof(O)) bytes more
// plus CUB's scratch, freed before it returns.
template <class V, class I, class O>
class DeviceColumnView {
 public:
  DeviceColumnView();
  ~DeviceColumnView();
  DeviceColumnView(const DeviceColumnView&) = delete;
  DeviceColumnView& operator=(const DeviceColumnView&) = delete;

  // A in device memory, valid (the caller validated it). A's rows must fit I (they become A^T's
  // column indices). Runs on `stream` (a cudaStream_t) and synchronizes it.
  void build(const CsrView<V, I, O>& A, void* stream);
  // Same structure, new values (A.values), on `stream`; no synchronisation.
  void refresh_values(const CsrView<V, I, O>& A, void* stream);
  CsrView<V, I, O> view() const;  // A^T, device memory
  std::size_t bytes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One matrix structure, its device workspace, and the kernels. Device memory everywhere
// (A, At, x, mask, y). Workspace: per output entry one V and one int32 flag and one I (touched
// list) plus a sort buffer of I; per input entry one bit and one V; CUB temporary storage.
// Kernel::densify uses the same workspace (x's dense copy, the scan buffers as its dense y).
template <class V, class I, class O>
class Spmspv {
 public:
  // y = op(A) x for dense x and y of A's shapes (beta 0: y is not read), queued on `stream`
  // without allocation or synchronisation: the SpMV of Kernel::densify.
  using DenseSpmv = std::function<void(Op op, const V* x, V* y, void* stream)>;

  Spmspv();
  ~Spmspv();
  Spmspv(const Spmspv&) = delete;
  Spmspv& operator=(const Spmspv&) = delete;

  // A, and A^T as a CSR (the column view uploaded, or A itself for a symmetric matrix; may be
  // null: the kernels that need it then refuse), both in device memory. Allocates the workspace
  // on `stream` (a cudaStream_t), computes the row-length statistics of A and A^T (one pass
  // each; one when At is A) and synchronizes `stream`.
  void setup(const CsrView<V, I, O>& A, const CsrView<V, I, O>* At, void* stream = nullptr);

  // Row-length statistics of A's rows and of A^T's (A^T's: empty without A^T), from setup: the
  // heavy-row pass of vector_direct reads their longest rows, a selection their spread.
  const RowLengthStats& rows_of_A() const;
  const RowLengthStats& rows_of_At() const;

  // New values for the same structure (A's, and A^T's when setup had one; device memory): the
  // views are repointed, nothing runs.
  void set_values(const V* A_values, const V* At_values);

  // The dense SpMV of Kernel::densify (unset: that kernel refuses).
  void set_dense_spmv(DenseSpmv spmv);
  bool has_dense_spmv() const;

  // y = op(A) x over the semiring with the mask, on `stream` (a cudaStream_t). With
  // `validate` the vector is checked on the device first (range, order, duplicates, bitmap
  // tail and count) and the stream synchronized; on error hola::error is thrown and y is not
  // written. A sparse y synchronizes the stream to learn its nnz (capacity check before
  // anything is written); a dense y does not. Kernel::densify: plus_times only; a sparse y's
  // entries are those some stored a_ij with x_j present reaches (as the other kernels', value 0
  // included), found by a pass over the rows of A (op N) or A^T (op T; without A^T over the rows
  // of A that x selects), sorted by index.
  void apply(Kernel kernel, Op op, Semiring semiring, const SparseVectorView<V, I>& x,
             const Mask& mask, Output<V, I>& y, void* stream = nullptr, bool validate = true);

  // Median time (ms, CUDA events) of `reps` applies of `kernel` on `op` with an empty x (plus
  // `warmup` untimed ones) and a dense y of its own, unvalidated: the fixed cost of a kernel,
  // which for densify is one dense SpMV. Setup time: allocates y, synchronizes `stream`.
  double time_empty_ms(Kernel kernel, Op op, int warmup, int reps, void* stream = nullptr);

  std::size_t workspace_bytes() const;

  // vector_balanced's write-back (kept for the next structures' setups; setup sizes it). sorted
  // allocates 2 P (sizeof(I) + sizeof(V)) bytes for the pairs (P = max(n, min(nnz, 2^22))
  // pairs per chunk, n = max(rows, cols)) and grows CUB's scratch to sort them; atomic frees
  // the pairs. `pairs_per_chunk` > 0 sets P instead (tests: many chunks on small matrices).
  void set_write_back(WriteBack w, std::int64_t pairs_per_chunk = 0);
  WriteBack write_back() const;

  // Lanes per entry of x in Kernel::vector_direct: 1, 2, 4, 8, 16 or 32, or 0 (the default:
  // chosen per call from nnz(x), the GPU's size and the mean row length). For tests and
  // measurements; anything else is refused with invalid_argument.
  void set_direct_lanes(int lanes);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

#endif

}  // namespace hola::spmspv::gpu
