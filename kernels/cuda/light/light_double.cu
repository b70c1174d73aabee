// Explicit instantiations of LightSpMV for double values (split by value type so that the build
// compiles the two halves in parallel).
#include "hola/detail/instantiate.hpp"
#include "light/light_kernel.cuh"

namespace hola::gpu {
HOLA_FOR_EACH_INDEX_OFFSET_OF(HOLA_LIGHT_INSTANTIATE, double)
}  // namespace hola::gpu
