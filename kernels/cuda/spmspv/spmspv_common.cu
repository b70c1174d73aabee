// GPU SpMSpV helpers that do not depend on the value type (hola/spmspv_gpu.hpp).
#include <cuda_runtime.h>

#include "hola/spmspv_gpu.hpp"

namespace hola::spmspv::gpu {

bool device_accessible(const void* p) {
  if (!p) return true;
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    cudaGetLastError();  // not a pointer CUDA knows: clear the error, report "no"
    return false;
  }
  return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged ||
         (a.type == cudaMemoryTypeHost && a.devicePointer != nullptr);
}

}  // namespace hola::spmspv::gpu
