// Batched SpMV on the GPU (kernels/cuda/batched/): declarations, available only in builds with
// HOLA_ENABLE_CUDA. Not yet run on a GPU (docs/batched.md).
#pragma once

#include "hola/batched.hpp"

namespace hola::batched::gpu {

#if defined(HOLA_ENABLE_CUDA)
// y_i = alpha A_i x_i + beta y_i for a batch whose arrays (and x, y) are in device memory, on
// `stream` (a cudaStream_t; null: the legacy default stream). The batch must have passed
// validate() (on a host copy of its index arrays) and the plan must come from choose_plan on
// its features (a forced plan is checked: block_threads a multiple of 32 up to 1024,
// group_threads a multiple of 32 dividing it, the kernel taking the format, the staged x at most
// kStageBytesLimit per block; invalid_argument / unsupported otherwise). Launches only: no
// allocation, copy or synchronisation. Launch failures throw status::cuda.
template <class V, class I>
void apply(const BatchView<V, I>& batch, const Plan& plan, V alpha, const V* x, V beta, V* y,
           void* stream);
#endif

}  // namespace hola::batched::gpu
