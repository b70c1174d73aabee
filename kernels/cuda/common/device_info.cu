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
    // Four attribute queries, not cudaGetDeviceProperties, which fills every field of the
    // properties and costs milliseconds the first time: this runs in an Operator's first setup.
    int sms = 0, threads = 0, l2 = 0, shared_optin = 0;
    HOLA_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    HOLA_CUDA_CHECK(cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerMultiProcessor, dev));
    HOLA_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    HOLA_CUDA_CHECK(
        cudaDeviceGetAttribute(&shared_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    info.device = dev;
    info.sm_count = sms;
    info.max_threads_per_sm = threads;
    info.l2_bytes = static_cast<std::size_t>(l2);
    info.shared_per_block_optin = static_cast<std::size_t>(shared_optin);
  }
  return info;
}

}  // namespace hola::cuda
