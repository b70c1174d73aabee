// GPU SpMSpV instantiations for double values (one file per value type: they compile in parallel).
#include "spmspv_gpu.cuh"

namespace hola::spmspv::gpu {
template class Spmspv<double, std::int32_t, std::int32_t>;
template class Spmspv<double, std::int32_t, std::int64_t>;
template class Spmspv<double, std::int64_t, std::int32_t>;
template class Spmspv<double, std::int64_t, std::int64_t>;
}  // namespace hola::spmspv::gpu
