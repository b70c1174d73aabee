// gpu::structure_sample_device: the Operator's check that a structure at known addresses is
// still the one it analysed (hola/structure_sample.hpp). One block, one read per thread.
#include <cstdint>
#include <vector>

#include "cuda_utils.cuh"
#include "hola/detail/instantiate.hpp"
#include "hola/structure_sample.hpp"

namespace hola::gpu {
namespace {

template <class I, class O>
__global__ void structure_sample_kernel(const O* row_ptr, const I* col_idx, std::int64_t rows,
                                        std::int64_t nnz, std::int64_t* out) {
  const int t = static_cast<int>(threadIdx.x);
  if (t < kStructureSamples) {
    out[t] = static_cast<std::int64_t>(row_ptr[structure_sample_position(t, rows)]);
  } else if (t < 2 * kStructureSamples) {
    const int k = t - kStructureSamples;
    out[t] =
        nnz > 0 ? static_cast<std::int64_t>(col_idx[structure_sample_position(k, nnz - 1)]) : 0;
  }
}

}  // namespace

template <class I, class O>
std::vector<std::int64_t> structure_sample_device(const O* row_ptr, const I* col_idx,
                                                  std::int64_t rows, std::int64_t nnz,
                                                  void* stream) {
  const cudaStream_t s = cuda::as_stream(stream);
  std::vector<std::int64_t> host(2 * kStructureSamples, 0);
  const std::size_t bytes = host.size() * sizeof(std::int64_t);
  cuda::StreamScratch scratch(bytes, s);
  auto* d = scratch.as<std::int64_t>();
  structure_sample_kernel<I, O><<<1, 2 * kStructureSamples, 0, s>>>(row_ptr, col_idx, rows, nnz, d);
  const cudaError_t launched = cudaPeekAtLastError();
  const cudaError_t copied = launched == cudaSuccess
                                 ? cudaMemcpyAsync(host.data(), d, bytes, cudaMemcpyDeviceToHost, s)
                                 : launched;
  HOLA_CUDA_CHECK(copied);
  HOLA_CUDA_CHECK(cudaStreamSynchronize(s));
  return host;
}

#define HOLA_INSTANTIATE(I, O)                                      \
  template std::vector<std::int64_t> structure_sample_device<I, O>( \
      const O*, const I*, std::int64_t, std::int64_t, void*);
HOLA_FOR_EACH_INDEX_OFFSET(HOLA_INSTANTIATE)
#undef HOLA_INSTANTIATE

}  // namespace hola::gpu
