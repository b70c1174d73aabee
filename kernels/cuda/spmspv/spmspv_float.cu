// GPU SpMSpV instantiations for float values (one file per value type: they compile in parallel).
#include "spmspv_gpu.cuh"

namespace hola::spmspv::gpu {
template class Spmspv<float, std::int32_t, std::int32_t>;
template class Spmspv<float, std::int32_t, std::int64_t>;
template class Spmspv<float, std::int64_t, std::int32_t>;
template class Spmspv<float, std::int64_t, std::int64_t>;
}  // namespace hola::spmspv::gpu
