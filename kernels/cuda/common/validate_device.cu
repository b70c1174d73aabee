// One pass over row_ptr and one over col_idx; the first offending position (smallest index)
// is kept with atomicMin so that the message is the same as the host check's.
#include <cstdint>
#include <string>

#include "cuda_utils.cuh"
#include "hola/detail/instantiate.hpp"
#include "hola/gpu_validate.hpp"

namespace hola::gpu {
namespace {

constexpr unsigned long long kNone = ~0ull;

template <class O>
__global__ void check_row_ptr_kernel(const O* row_ptr, std::int64_t rows, std::int64_t nnz,
                                     unsigned long long* first_bad_row) {
  const std::int64_t r = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (r > rows) return;
  bool bad = false;
  if (r == 0) bad = row_ptr[0] != 0;
  if (r == rows) bad = bad || static_cast<std::int64_t>(row_ptr[rows]) != nnz;
  if (r < rows) bad = bad || row_ptr[r] > row_ptr[r + 1];
  if (bad) atomicMin(first_bad_row, static_cast<unsigned long long>(r));
}

template <class I>
__global__ void check_col_idx_kernel(const I* col_idx, std::int64_t nnz, std::int64_t cols,
                                     unsigned long long* first_bad_entry) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t k = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; k < nnz;
       k += stride) {
    const std::int64_t c = col_idx[k];
    if (c < 0 || c >= cols) {
      atomicMin(first_bad_entry, static_cast<unsigned long long>(k));
      return;
    }
  }
}

template <class T>
T fetch(const T* p, std::int64_t i, cudaStream_t s) {
  T v{};
  HOLA_CUDA_CHECK(cudaMemcpyAsync(&v, p + i, sizeof(T), cudaMemcpyDeviceToHost, s));
  HOLA_CUDA_CHECK(cudaStreamSynchronize(s));
  return v;
}

}  // namespace

template <class V, class I, class O>
std::string check_csr_device(const CsrView<V, I, O>& A, void* stream) {
  cudaStream_t s = cuda::as_stream(stream);
  cuda::StreamScratch flags(2 * sizeof(unsigned long long), s);
  auto* f = flags.as<unsigned long long>();
  HOLA_CUDA_CHECK(cudaMemsetAsync(f, 0xff, 2 * sizeof(unsigned long long), s));
  const unsigned threads = 256;
  check_row_ptr_kernel<<<cuda::div_up(A.rows + 1, threads), threads, 0, s>>>(A.row_ptr, A.rows,
                                                                             A.nnz, f);
  HOLA_CUDA_CHECK_LAUNCH("check_row_ptr");
  if (A.nnz > 0) {
    const unsigned blocks =
        static_cast<unsigned>(std::min<std::int64_t>(cuda::div_up(A.nnz, threads), 16 * 1024));
    check_col_idx_kernel<<<blocks, threads, 0, s>>>(A.col_idx, A.nnz, A.cols, f + 1);
    HOLA_CUDA_CHECK_LAUNCH("check_col_idx");
  }
  unsigned long long h[2];
  HOLA_CUDA_CHECK(cudaMemcpyAsync(h, f, sizeof(h), cudaMemcpyDeviceToHost, s));
  HOLA_CUDA_CHECK(cudaStreamSynchronize(s));
  if (h[0] != kNone) {
    const auto r = static_cast<std::int64_t>(h[0]);
    const auto a = static_cast<std::int64_t>(fetch(A.row_ptr, r, s));
    if (r == 0 && a != 0) return "row_ptr[0] = " + std::to_string(a) + ", expected 0";
    if (r == A.rows)
      return "row_ptr[" + std::to_string(r) + "] = " + std::to_string(a) +
             " does not match nnz = " + std::to_string(A.nnz);
    const auto b = static_cast<std::int64_t>(fetch(A.row_ptr, r + 1, s));
    return "row_ptr is not monotone: row_ptr[" + std::to_string(r) + "] = " + std::to_string(a) +
           " > row_ptr[" + std::to_string(r + 1) + "] = " + std::to_string(b);
  }
  if (h[1] != kNone) {
    const auto k = static_cast<std::int64_t>(h[1]);
    const auto c = static_cast<std::int64_t>(fetch(A.col_idx, k, s));
    return "column index out of range: col_idx[" + std::to_string(k) + "] = " + std::to_string(c) +
           ", matrix has " + std::to_string(A.cols) + " columns";
  }
  return {};
}

#define HOLA_INSTANTIATE(V, I, O) \
  template std::string check_csr_device<V, I, O>(const CsrView<V, I, O>&, void*);
HOLA_FOR_EACH_VALUE_INDEX_OFFSET(HOLA_INSTANTIATE)
#undef HOLA_INSTANTIATE

}  // namespace hola::gpu
