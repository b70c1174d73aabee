// The device halves of CompressedRows (hola/compressed_rows.hpp): CUB counts and selects the
// nonempty rows at setup; a product adds one gather or scatter over the kept rows alone.
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_select.cuh>

#include <cstdint>

#include "cuda_utils.cuh"
#include "hola/compressed_rows.hpp"
#include "hola/detail/instantiate.hpp"

namespace hola::gpu {

namespace {

constexpr int kThreads = 256;

template <class O>
struct RowIsNonempty {
  const O* row_ptr;
  __host__ __device__ bool operator()(std::int64_t r) const { return row_ptr[r + 1] > row_ptr[r]; }
};

template <class O>
struct NonemptyAsCount {
  const O* row_ptr;
  __host__ __device__ std::int64_t operator()(std::int64_t r) const {
    return row_ptr[r + 1] > row_ptr[r] ? 1 : 0;
  }
};

template <class I>
struct RowNumberAs {
  __host__ __device__ I operator()(std::int64_t r) const { return static_cast<I>(r); }
};

// Grid-stride launch size: enough blocks to fill the GPU, never beyond the grid limit.
unsigned blocks_for(std::int64_t n) {
  const std::int64_t wanted = (n + kThreads - 1) / kThreads;
  const std::int64_t cap = static_cast<std::int64_t>(cuda::current_device_info().sm_count) * 32;
  return static_cast<unsigned>(wanted < 1 ? 1 : (wanted < cap ? wanted : cap));
}

template <class I, class O>
__global__ void kept_offsets_kernel(const O* __restrict__ row_ptr, std::int64_t rows,
                                    std::int64_t kept, const I* __restrict__ row_ids,
                                    O* __restrict__ offsets) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k <= kept;
       k += stride)
    offsets[k] = k < kept ? row_ptr[row_ids[k]] : row_ptr[rows];
}

// y_out = beta y_in on every row (zero when beta == 0, y_in unread); y_in may be y_out.
template <class V>
__global__ void scale_rows_kernel(std::int64_t rows, V beta, const V* y_in, V* y_out) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t r = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; r < rows;
       r += stride)
    y_out[r] = beta == V(0) ? V(0) : beta * y_in[r];
}

template <class V, class I>
__global__ void add_kept_kernel(std::int64_t kept, const I* __restrict__ row_ids, V alpha,
                                const V* __restrict__ w, V* __restrict__ y) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < kept;
       k += stride) {
    const I r = row_ids[k];
    y[r] = y[r] + alpha * w[k];
  }
}

template <class V, class I>
__global__ void gather_kernel(std::int64_t kept, const I* __restrict__ row_ids,
                              const V* __restrict__ x, V* __restrict__ xc) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < kept;
       k += stride)
    xc[k] = x[row_ids[k]];
}

}  // namespace

template <class O>
std::int64_t count_nonempty_rows(const O* row_ptr, std::int64_t rows, void* stream) {
  if (rows <= 0) return 0;
  const cudaStream_t s = cuda::as_stream(stream);
  auto flags = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0),
                                               NonemptyAsCount<O>{row_ptr});
  std::size_t temp_bytes = 0;
  HOLA_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, temp_bytes, flags,
                                         static_cast<std::int64_t*>(nullptr), rows, s));
  cuda::StreamScratch scratch(temp_bytes + 256, s);
  auto* d_count = reinterpret_cast<std::int64_t*>(scratch.as<char>() + (temp_bytes + 7) / 8 * 8);
  HOLA_CUDA_CHECK(cub::DeviceReduce::Sum(scratch.as<void>(), temp_bytes, flags, d_count, rows, s));
  std::int64_t count = 0;
  HOLA_CUDA_CHECK(cudaMemcpyAsync(&count, d_count, sizeof(count), cudaMemcpyDeviceToHost, s));
  HOLA_CUDA_CHECK(cudaStreamSynchronize(s));
  return count;
}

template <class I, class O>
void compress_rows(const O* row_ptr, std::int64_t rows, std::int64_t kept, I* row_ids, O* offsets,
                   void* stream) {
  const cudaStream_t s = cuda::as_stream(stream);
  auto numbers =
      thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), RowNumberAs<I>{});
  auto positions = thrust::counting_iterator<std::int64_t>(0);
  std::size_t temp_bytes = 0;
  // Flagged by position: the predicate reads row_ptr at the row number, not at the value.
  auto flags = thrust::make_transform_iterator(positions, RowIsNonempty<O>{row_ptr});
  HOLA_CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, temp_bytes, numbers, flags, row_ids,
                                             static_cast<std::int64_t*>(nullptr), rows, s));
  cuda::StreamScratch scratch(temp_bytes + 256, s);
  auto* d_selected = reinterpret_cast<std::int64_t*>(scratch.as<char>() + (temp_bytes + 7) / 8 * 8);
  HOLA_CUDA_CHECK(cub::DeviceSelect::Flagged(scratch.as<void>(), temp_bytes, numbers, flags,
                                             row_ids, d_selected, rows, s));
  kept_offsets_kernel<I, O>
      <<<blocks_for(kept + 1), kThreads, 0, s>>>(row_ptr, rows, kept, row_ids, offsets);
  HOLA_CUDA_CHECK_LAUNCH("kept_offsets_kernel");
  // The selection must agree with the count it was sized by (A changed in between otherwise).
  std::int64_t selected = -1;
  HOLA_CUDA_CHECK(
      cudaMemcpyAsync(&selected, d_selected, sizeof(selected), cudaMemcpyDeviceToHost, s));
  HOLA_CUDA_CHECK(cudaStreamSynchronize(s));
  if (selected != kept)
    fail(status::invalid_argument, "CompressedRows: A has " + std::to_string(selected) +
                                       " nonempty rows, not " + std::to_string(kept));
}

template <class V, class I>
void scatter_rows(std::int64_t rows, std::int64_t kept, const I* row_ids, V alpha, const V* w,
                  V beta, const V* y_in, V* y_out, void* stream) {
  const cudaStream_t s = cuda::as_stream(stream);
  if (!(beta == V(1) && y_in == y_out) && rows > 0) {
    scale_rows_kernel<V><<<blocks_for(rows), kThreads, 0, s>>>(rows, beta, y_in, y_out);
    HOLA_CUDA_CHECK_LAUNCH("scale_rows_kernel");
  }
  if (kept == 0) return;
  add_kept_kernel<V, I><<<blocks_for(kept), kThreads, 0, s>>>(kept, row_ids, alpha, w, y_out);
  HOLA_CUDA_CHECK_LAUNCH("add_kept_kernel");
}

template <class V, class I>
void gather_rows(std::int64_t kept, const I* row_ids, const V* x, V* xc, void* stream) {
  if (kept == 0) return;
  const cudaStream_t s = cuda::as_stream(stream);
  gather_kernel<V, I><<<blocks_for(kept), kThreads, 0, s>>>(kept, row_ids, x, xc);
  HOLA_CUDA_CHECK_LAUNCH("gather_kernel");
}

void* device_allocate(std::size_t bytes) {
  void* p = nullptr;
  if (bytes > 0) HOLA_CUDA_CHECK(cudaMalloc(&p, bytes));
  return p;
}

void device_free(void* p) noexcept {
  if (p) cudaFree(p);
}

template std::int64_t count_nonempty_rows<std::int32_t>(const std::int32_t*, std::int64_t, void*);
template std::int64_t count_nonempty_rows<std::int64_t>(const std::int64_t*, std::int64_t, void*);
#define HOLA_INSTANTIATE_COMPRESS(I, O) \
  template void compress_rows<I, O>(const O*, std::int64_t, std::int64_t, I*, O*, void*);
HOLA_FOR_EACH_INDEX_OFFSET(HOLA_INSTANTIATE_COMPRESS)
#undef HOLA_INSTANTIATE_COMPRESS
#define HOLA_INSTANTIATE_VECTORS(V, I, O)                                                          \
  template void scatter_rows<V, I>(std::int64_t, std::int64_t, const I*, V, const V*, V, const V*, \
                                   V*, void*);                                                     \
  template void gather_rows<V, I>(std::int64_t, const I*, const V*, V*, void*);
HOLA_INSTANTIATE_VECTORS(float, std::int32_t, std::int32_t)
HOLA_INSTANTIATE_VECTORS(float, std::int64_t, std::int64_t)
HOLA_INSTANTIATE_VECTORS(double, std::int32_t, std::int32_t)
HOLA_INSTANTIATE_VECTORS(double, std::int64_t, std::int64_t)
#undef HOLA_INSTANTIATE_VECTORS

}  // namespace hola::gpu
