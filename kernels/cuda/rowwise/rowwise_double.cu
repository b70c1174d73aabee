// Explicit instantiations of the row-wise kernels for double values (split by value type so that
// the build compiles the two halves in parallel).
#include "hola/detail/instantiate.hpp"
#include "rowwise/rowwise_kernels.cuh"

namespace hola::gpu {
HOLA_FOR_EACH_INDEX_OFFSET_OF(HOLA_ROWWISE_INSTANTIATE, double)
}  // namespace hola::gpu
