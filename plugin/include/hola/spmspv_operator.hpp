// SpmspvOperator: y = op(A) x with a sparse x (hola/spmspv.hpp), set up once per matrix
// structure, the kernel chosen per call from the vector's features. Host memory for now (the
// GPU kernels of kernels/cuda/spmspv are reached through hola/spmspv_gpu.hpp). docs/spmspv.md.
#pragma once

#include <cstdint>
#include <string>

#include "hola/csr_view.hpp"
#include "hola/spmspv.hpp"

namespace hola {

struct SpmspvOptions {
  // "auto" (the selection rule of spmspv::select_algorithm), "matrix_driven", "vector_driven"
  // or "reference".
  std::string kernel = "auto";
  bool validate = true;     // check the CSR structure at setup (the vectors are always checked)
  bool symmetric = false;   // A equals A^T (pattern and values): A serves as its column view
  bool column_view = true;  // build the column view at setup (needed by vector-driven op N
                            // and matrix-driven op T); off: those kernels are not used
};

template <class V, class I, class O>
class SpmspvOperator {
 public:
  explicit SpmspvOperator(SpmspvOptions options = {});

  // Analysis once per structure: validation, the column view ((cols + 1 + nnz) sizeof(O) +
  // nnz (sizeof(I) + sizeof(V)) bytes). The same arrays, sizes and structure_version again:
  // only the values are refreshed.
  void setup(const CsrView<V, I, O>& A, std::uint64_t structure_version = 0);

  // y = op(A) x over `semiring`, with `mask` on y (default: none). Validates x, the mask and y
  // first; on error throws hola::error and writes nothing to y.
  void apply(Op op, spmspv::Semiring semiring, const spmspv::SparseVectorView<V, I>& x,
             spmspv::Output<V, I>& y, const spmspv::Mask& mask = {});

  bool is_setup() const { return setup_done_; }
  // Kernel used by the last apply and why (the features and the rule's comparison).
  spmspv::Algorithm last_algorithm() const { return last_; }
  const std::string& last_reason() const { return reason_; }
  std::size_t column_view_bytes() const { return columns_.bytes(); }
  std::size_t workspace_bytes() const { return ws_.bytes(); }
  const SpmspvOptions& options() const { return options_; }

 private:
  SpmspvOptions options_;
  bool setup_done_ = false;
  CsrView<V, I, O> A_{};
  std::uint64_t version_ = 0;
  spmspv::ColumnView<V, I, O> columns_;
  CsrView<V, I, O> At_{};
  bool has_at_ = false;
  spmspv::Workspace<V, I> ws_;
  spmspv::Algorithm last_ = spmspv::Algorithm::matrix_driven;
  std::string reason_;
};

}  // namespace hola
