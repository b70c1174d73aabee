#include "hola/gpu_kernels.hpp"

#include <string>

#include "hola/error.hpp"

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

std::string device_name() {
#if defined(HOLA_ENABLE_CUDA)
  int device = 0;
  cudaDeviceProp p{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&p, device) != cudaSuccess) {
    cudaGetLastError();
    return {};
  }
  return p.name;
#else
  return {};
#endif
}

void copy_device_to_host(void* dst, const void* src, std::size_t bytes) {
#if defined(HOLA_ENABLE_CUDA)
  if (bytes == 0) return;
  const cudaError_t e = cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) {
    cudaGetLastError();  // reported here: not again by the next launch check
    fail(status::cuda, std::string("device-to-host copy: ") + cudaGetErrorString(e));
  }
#else
  (void)dst;
  (void)src;
  (void)bytes;
  fail(status::no_device, "this build of Hola has no CUDA support");
#endif
}

}  // namespace hola::gpu
