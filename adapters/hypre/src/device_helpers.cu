#include <cuda_runtime.h>

#include "device_helpers.hpp"

namespace hola::hypre_adapter {
namespace {

constexpr int kThreads = 256;
constexpr std::int64_t kMaxBlocks = 65535;

int blocks_for(std::int64_t n) {
  const std::int64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<int>(b < kMaxBlocks ? b : kMaxBlocks);
}

std::string last_error(const char* what) {
  const cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? std::string() : std::string(what) + ": " + cudaGetErrorString(e);
}

template <class V, class I>
__global__ void gather_kernel(const V* __restrict__ x, const I* __restrict__ index, std::int64_t n,
                              V* __restrict__ out) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t k = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; k < n;
       k += stride)
    out[k] = x[index[k]];
}

template <class V>
__global__ void scale_kernel(V* __restrict__ y, std::int64_t n, V beta) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t k = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; k < n;
       k += stride)
    y[k] = beta == V(0) ? V(0) : beta * y[k];
}

}  // namespace

template <class V, class I>
std::string device_gather(const V* x, const I* index, std::int64_t n, V* out, void* stream) {
  if (n <= 0) return {};
  gather_kernel<<<blocks_for(n), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(x, index, n,
                                                                                   out);
  return last_error("gather of the values to send");
}

template <class V>
std::string device_scale(V* y, std::int64_t n, V beta, void* stream) {
  if (n <= 0) return {};
  scale_kernel<<<blocks_for(n), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(y, n, beta);
  return last_error("scaling y");
}

std::string device_synchronize(void* stream) {
  const cudaError_t e = cudaStreamSynchronize(static_cast<cudaStream_t>(stream));
  if (e == cudaSuccess) return std::string();
  cudaGetLastError();  // reported here: not again by the next launch check
  return std::string("stream sync: ") + cudaGetErrorString(e);
}

template std::string device_gather<float, std::int32_t>(const float*, const std::int32_t*,
                                                        std::int64_t, float*, void*);
template std::string device_gather<float, std::int64_t>(const float*, const std::int64_t*,
                                                        std::int64_t, float*, void*);
template std::string device_gather<double, std::int32_t>(const double*, const std::int32_t*,
                                                         std::int64_t, double*, void*);
template std::string device_gather<double, std::int64_t>(const double*, const std::int64_t*,
                                                         std::int64_t, double*, void*);
template std::string device_scale<float>(float*, std::int64_t, float, void*);
template std::string device_scale<double>(double*, std::int64_t, double, void*);

}  // namespace hola::hypre_adapter
