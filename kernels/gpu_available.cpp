#include "hola/gpu_kernels.hpp"

#if defined(HOLA_ENABLE_CUDA)
#include <cuda_runtime_api.h>
#endif

namespace hola::gpu {

bool gpu_available() noexcept {
#if defined(HOLA_ENABLE_CUDA)
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no driver" error
    return false;
  }
  return count > 0;
#else
  return false;
#endif
}

}  // namespace hola::gpu
