// Explicit instantiations of the row-wise kernels for float values (split by value type so that
// the build compiles the two halves in parallel).
#include "rowwise/rowwise_kernels.cuh"

namespace hola::gpu {
HOLA_ROWWISE_INSTANTIATE(float, std::int32_t, std::int32_t)
HOLA_ROWWISE_INSTANTIATE(float, std::int32_t, std::int64_t)
HOLA_ROWWISE_INSTANTIATE(float, std::int64_t, std::int32_t)
HOLA_ROWWISE_INSTANTIATE(float, std::int64_t, std::int64_t)
}  // namespace hola::gpu
