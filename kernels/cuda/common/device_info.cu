#include <mutex>
#include <vector>

#include "cuda_utils.cuh"

namespace hola::cuda {

const DeviceInfo& current_device_info() {
  static std::mutex mutex;
  static std::vector<DeviceInfo> cache;
  int dev = 0;
  HOLA_CUDA_CHECK(cudaGetDevice(&dev));
  std::lock_guard<std::mutex> lock(mutex);
  if (static_cast<int>(cache.size()) <= dev) cache.resize(dev + 1);
  DeviceInfo& info = cache[dev];
  if (info.sm_count == 0) {
    cudaDeviceProp p{};
    HOLA_CUDA_CHECK(cudaGetDeviceProperties(&p, dev));
    info.device = dev;
    info.sm_count = p.multiProcessorCount;
    info.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
    info.l2_bytes = static_cast<std::size_t>(p.l2CacheSize);
    info.shared_per_block_optin = p.sharedMemPerBlockOptin;
  }
  return info;
}

}  // namespace hola::cuda
