// Batched SpMV on the GPU (kernels/cuda/batched/): declarations, available only in builds with
// HOLA_ENABLE_CUDA (docs/batched.md).
#pragma once

#include "hola/batched.hpp"

namespace hola::batched::gpu {

#if defined(HOLA_ENABLE_CUDA)
// y_i = alpha A_i x_i + beta y_i for a batch whose arrays (and x, y) are in device memory, on
// `stream` (a cudaStream_t; null: the legacy default stream). The batch must have passed
// validate() (on a host copy of its index arrays) and the plan must come from choose_plan on
// its features (a forced plan is checked by check_plan: invalid_argument / unsupported). Launches
// only: no allocation, copy or synchronisation. Launch failures throw status::cuda.
// skip: null, or count flags in device memory; matrix i is left out (its rows of y untouched)
// where skip[i] != 0, read by the kernel (a batched solver's converged systems: no host copy).
template <class V, class I>
void apply(const BatchView<V, I>& batch, const Plan& plan, V alpha, const V* x, V beta, V* y,
           void* stream, const int* skip = nullptr);
#endif

}  // namespace hola::batched::gpu
