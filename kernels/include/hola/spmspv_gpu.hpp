// GPU SpMSpV kernels (kernels/cuda/spmspv/, builds with HOLA_ENABLE_CUDA only): the same
// problem as hola/spmspv.hpp with every array in device memory; tests/gpu/spmspv_gpu_test.cu
// checks every kernel against the CPU reference.
#pragma once

#include <cstdint>
#include <memory>

#include "hola/csr_view.hpp"
#include "hola/spmspv.hpp"

namespace hola::spmspv::gpu {

enum class Kernel : int {
  matrix_direct = 0,    // thread per row of M (A for N, A^T for T), x through a bitmap
  matrix_balanced = 1,  // equal runs of nonzeros of M per thread, row partials combined
                        // atomically
  vector_direct = 2,    // thread per entry of x over its column, atomic write-back
  vector_balanced = 3,  // equal shares of the touched nonzeros per thread (scan of the
                        // column lengths of x's entries), atomic write-back
};

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
  }
  return "unknown";
}

#if defined(HOLA_ENABLE_CUDA)

// One matrix structure, its device workspace, and the four kernels. Device memory everywhere
// (A, At, x, mask, y). Workspace: per output entry one V and one int32 flag and one I (touched
// list) plus a sort buffer of I; per input entry one bit and one V; CUB temporary storage.
template <class V, class I, class O>
class Spmspv {
 public:
  Spmspv();
  ~Spmspv();
  Spmspv(const Spmspv&) = delete;
  Spmspv& operator=(const Spmspv&) = delete;

  // A, and A^T as a CSR (the column view uploaded, or A itself for a symmetric matrix; may be
  // null: the kernels that need it then refuse), both in device memory. Allocates the workspace
  // (synchronizes the device).
  void setup(const CsrView<V, I, O>& A, const CsrView<V, I, O>* At);

  // y = op(A) x over the semiring with the mask, on `stream` (a cudaStream_t). With
  // `validate` the vector is checked on the device first (range, order, duplicates, bitmap
  // tail and count) and the stream synchronized; on error hola::error is thrown and y is not
  // written. A sparse y synchronizes the stream to learn its nnz (capacity check before
  // anything is written); a dense y does not.
  void apply(Kernel kernel, Op op, Semiring semiring, const SparseVectorView<V, I>& x,
             const Mask& mask, Output<V, I>& y, void* stream = nullptr, bool validate = true);

  std::size_t workspace_bytes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

#endif

}  // namespace hola::spmspv::gpu
