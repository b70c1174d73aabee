// Explicit instantiations of the batched kernels for double values.
#include "batched/batched_kernels.cuh"

namespace hola::batched::gpu {
HOLA_BATCHED_GPU_INSTANTIATE(double, std::int32_t)
HOLA_BATCHED_GPU_INSTANTIATE(double, std::int64_t)
}  // namespace hola::batched::gpu
