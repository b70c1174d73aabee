// y_out = beta * y_in over n outputs, shared by the kernel families (not installed): the first
// pass of every atomic op T scatter, and the whole product where A holds no nonzero or alpha is 0.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "common/cuda_utils.cuh"

namespace hola::cuda {

inline constexpr int kScaleOutputThreads = 256;

// y_out[k] = beta * y_in[k] for k < n; 0 when beta == 0, y_in unread then (BLAS: a NaN in y_in
// must not survive beta = 0). Resets *counter_to_reset when given: `light`'s row counter rides
// along, which saves a launch (stream order makes the reset visible to the next kernel).
template <class V>
__global__ void __launch_bounds__(kScaleOutputThreads)
    scale_output_kernel(std::int64_t n, V beta, const V* y_in, V* y_out,
                        unsigned long long* counter_to_reset) {
  if (counter_to_reset != nullptr && blockIdx.x == 0 && threadIdx.x == 0) *counter_to_reset = 0;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n;
       k += stride)
    y_out[k] = beta == V(0) ? V(0) : beta * y_in[k];
}

// Launches the pass on `stream`. Nothing when it would change nothing (n == 0, or beta == 1 in
// place): returns false then, so that a caller with a counter resets it itself. beta == 0 without
// a counter is a memset (all-zero bytes are +0.0). The grid is at most two waves of full blocks
// (16 of 256 threads an SM); the kernel's grid-stride loop does the rest.
template <class V>
bool scale_output(std::int64_t n, V beta, const V* y_in, V* y_out, int sm_count,
                  cudaStream_t stream, unsigned long long* counter_to_reset = nullptr) {
  if (n <= 0 || (beta == V(1) && y_in == y_out)) return false;
  if (beta == V(0) && counter_to_reset == nullptr) {
    HOLA_CUDA_CHECK(cudaMemsetAsync(y_out, 0, static_cast<std::size_t>(n) * sizeof(V), stream));
    return true;
  }
  const std::int64_t wanted = (n - 1) / kScaleOutputThreads + 1;
  const std::int64_t cap = std::int64_t(std::max(sm_count, 1)) * 16;
  scale_output_kernel<V>
      <<<static_cast<unsigned>(std::min(wanted, cap)), kScaleOutputThreads, 0, stream>>>(
          n, beta, y_in, y_out, counter_to_reset);
  HOLA_CUDA_CHECK_LAUNCH("scale_output_kernel");
  return true;
}

}  // namespace hola::cuda
