// GPU SpMSpV instantiations for double values (one file per value type: they compile in parallel).
#include "hola/detail/instantiate.hpp"
#include "spmspv_gpu.cuh"

namespace hola::spmspv::gpu {
HOLA_FOR_EACH_INDEX_OFFSET_OF(HOLA_SPMSPV_GPU_INSTANTIATE, double)
}  // namespace hola::spmspv::gpu
