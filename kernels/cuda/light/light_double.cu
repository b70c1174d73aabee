// Explicit instantiations of LightSpMV for double values (split by value type so that the build
// compiles the two halves in parallel).
#include "light/light_kernel.cuh"

namespace hola::gpu {
HOLA_LIGHT_INSTANTIATE(double, std::int32_t, std::int32_t)
HOLA_LIGHT_INSTANTIATE(double, std::int32_t, std::int64_t)
HOLA_LIGHT_INSTANTIATE(double, std::int64_t, std::int32_t)
HOLA_LIGHT_INSTANTIATE(double, std::int64_t, std::int64_t)
}  // namespace hola::gpu
