// Scatter of a sparse vector into a dense one (densify.hpp).
#include <cstdint>
#include <stdexcept>
#include <string>

#include "densify.hpp"

namespace hola::bench {

namespace {

template <class V, class I>
__global__ void scatter_kernel(std::int64_t nnz, const I* __restrict__ idx,
                               const V* __restrict__ val, V* __restrict__ dense) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < nnz;
       k += stride)
    dense[idx[k]] = val[k];
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

}  // namespace

template <class V, class I>
void densify(std::int64_t n, std::int64_t nnz, const I* idx, const V* val, V* dense,
             cudaStream_t stream) {
  if (n > 0)
    check(cudaMemsetAsync(dense, 0, static_cast<std::size_t>(n) * sizeof(V), stream),
          "densify: cudaMemsetAsync");
  if (nnz <= 0) return;
  constexpr int kBlock = 256;
  const std::int64_t blocks = (nnz + kBlock - 1) / kBlock;
  scatter_kernel<V, I>
      <<<static_cast<unsigned>(blocks < 65536 ? blocks : 65536), kBlock, 0, stream>>>(nnz, idx, val,
                                                                                      dense);
  check(cudaGetLastError(), "densify: scatter_kernel launch");
}

template void densify<float, std::int32_t>(std::int64_t, std::int64_t, const std::int32_t*,
                                           const float*, float*, cudaStream_t);
template void densify<double, std::int32_t>(std::int64_t, std::int64_t, const std::int32_t*,
                                            const double*, double*, cudaStream_t);

}  // namespace hola::bench
