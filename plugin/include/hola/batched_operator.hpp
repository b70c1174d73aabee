// C++ API of batched SpMV (docs/batched.md): validate once, pick the kernel from the batch
// features, apply many times. Not a row of the single-matrix kernel table.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hola/batched.hpp"

namespace hola {

enum class BatchedBackend {
  automatic,  // gpu for a device batch, cpu for a host batch
  cpu,        // OpenMP over matrices (host memory)
  reference,  // sequential, wide accumulation (host memory)
  gpu,        // kernels/cuda/batched (device memory; builds with CUDA only).
};

const char* batched_backend_name(BatchedBackend b);

template <class V, class I>
class BatchedOperator {
 public:
  // Validates the batch (a device batch's index arrays are copied to the host once for this;
  // values are never read here), computes its features and the GPU plan. kernel: "auto" or a
  // GPU kernel name (batched::kKernels), only for the gpu backend. Throws
  // hola::error (invalid_argument, size_mismatch, invalid_csr, unsupported, no_device, cuda).
  // The arrays must stay valid and unchanged in structure while the operator is used; new
  // values in the same arrays need no new operator.
  explicit BatchedOperator(const batched::BatchView<V, I>& batch,
                           BatchedBackend backend = BatchedBackend::automatic,
                           const std::string& kernel = "auto", int cpu_threads = 0);

  // y_i = alpha A_i x_i + beta y_i for every matrix (x, y in the batch's memory). Checks the
  // lengths (size_mismatch), null vectors (invalid_argument) and overlap (aliasing) first;
  // nothing is written on error. beta == 0 never reads y. stream: a cudaStream_t (gpu only).
  // skip: null, or one flag per matrix in the batch's memory; matrices with a nonzero flag are
  // left out and their rows of y untouched (a batched solver's converged systems).
  void apply(V alpha, const V* x, std::int64_t x_len, V beta, V* y, std::int64_t y_len,
             void* stream = nullptr, const int* skip = nullptr) const;

  const batched::Features& features() const { return features_; }
  const batched::Plan& plan() const { return plan_; }
  BatchedBackend backend() const { return backend_; }
  // "cpu", "reference", or the GPU kernel the plan runs.
  std::string kernel_name() const;

 private:
  batched::BatchView<V, I> batch_;
  batched::Features features_;
  batched::Plan plan_;
  BatchedBackend backend_;
  int cpu_threads_;
};

}  // namespace hola
