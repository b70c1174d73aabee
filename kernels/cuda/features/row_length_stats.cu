// gpu::device_row_length_stats: the selector's features from device row offsets (features.hpp).
#include <thrust/iterator/counting_iterator.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>

#include <cstdint>
#include <limits>

#include "common/cuda_utils.cuh"
#include "hola/features.hpp"

namespace hola::gpu {

namespace {

// Everything the statistics need, summed over the sorted row lengths.
struct LengthSums {
  unsigned long long nnz;
  unsigned long long empty_rows;
  unsigned long long min_row;
  unsigned long long max_row;
  double sum_squares;
  double gini_weighted;  // sum over ranks i of (2i - n + 1) x_i
};

struct CombineSums {
  __host__ __device__ LengthSums operator()(const LengthSums& a, const LengthSums& b) const {
    return {a.nnz + b.nnz,
            a.empty_rows + b.empty_rows,
            a.min_row < b.min_row ? a.min_row : b.min_row,
            a.max_row > b.max_row ? a.max_row : b.max_row,
            a.sum_squares + b.sum_squares,
            a.gini_weighted + b.gini_weighted};
  }
};

// Rank i of the sorted lengths -> its contribution to every sum.
template <class K>
struct RankContribution {
  const K* sorted;
  std::int64_t rows;
  __host__ __device__ LengthSums operator()(std::int64_t i) const {
    const K x = sorted[i];
    const double xd = static_cast<double>(x);
    return {static_cast<unsigned long long>(x),
            x == 0 ? 1ull : 0ull,
            static_cast<unsigned long long>(x),
            static_cast<unsigned long long>(x),
            xd * xd,
            xd * static_cast<double>(2 * i - rows + 1)};
  }
};

template <class O, class K>
__global__ void row_lengths_kernel(const O* __restrict__ row_ptr, std::int64_t rows,
                                   K* __restrict__ lengths) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t r = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; r < rows;
       r += stride)
    lengths[r] = static_cast<K>(row_ptr[r + 1] - row_ptr[r]);
}

int bit_width(unsigned long long v) {
  int bits = 0;
  while (v) {
    ++bits;
    v >>= 1;
  }
  return bits;
}

std::size_t align_up(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

// Sorts the lengths (in keys.Current()) and sums over them; K is the row-length type.
template <class K>
RowLengthStats stats_of_lengths(cub::DoubleBuffer<K>& keys, void* temp, std::size_t temp_bytes,
                                LengthSums* d_sums, std::int64_t rows, std::int64_t cols,
                                int end_bit, cudaStream_t stream) {
  const thrust::counting_iterator<std::int64_t> ranks(0);
  const LengthSums init{0, 0, std::numeric_limits<unsigned long long>::max(), 0, 0.0, 0.0};
  if (end_bit > 0)
    HOLA_CUDA_CHECK(
        cub::DeviceRadixSort::SortKeys(temp, temp_bytes, keys, rows, 0, end_bit, stream));
  HOLA_CUDA_CHECK(
      cub::DeviceReduce::TransformReduce(temp, temp_bytes, ranks, d_sums, rows, CombineSums{},
                                         RankContribution<K>{keys.Current(), rows}, init, stream));
  LengthSums sums{};
  HOLA_CUDA_CHECK(
      cudaMemcpyAsync(&sums, d_sums, sizeof(LengthSums), cudaMemcpyDeviceToHost, stream));
  HOLA_CUDA_CHECK(cudaStreamSynchronize(stream));

  RowLengthStats s;
  s.rows = rows;
  s.cols = cols;
  s.nnz = static_cast<std::int64_t>(sums.nnz);
  s.min_row = static_cast<std::int64_t>(sums.min_row);
  s.max_row = static_cast<std::int64_t>(sums.max_row);
  s.empty_rows = static_cast<std::int64_t>(sums.empty_rows);
  const double n = static_cast<double>(rows), mean = static_cast<double>(s.nnz) / n;
  const double variance = sums.sum_squares / n - mean * mean;
  s.std_row = variance > 0 ? std::sqrt(variance) : 0.0;
  s.gini = s.nnz > 0 ? sums.gini_weighted / (n * static_cast<double>(s.nnz)) : 0.0;
  return s;
}

// Scratch sizes for K, then the lengths pass over row_ptr and the rest.
template <class O, class K>
RowLengthStats stats_with(const O* row_ptr, std::int64_t rows, std::int64_t cols, std::int64_t nnz,
                          cudaStream_t stream) {
  // Only the sort needs to know how many bits a length can have: no length exceeds nnz.
  const int end_bit = bit_width(static_cast<unsigned long long>(nnz > 0 ? nnz : 0));
  std::size_t sort_bytes = 0, reduce_bytes = 0;
  cub::DoubleBuffer<K> keys(nullptr, nullptr);
  HOLA_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, keys, rows, 0,
                                                 end_bit > 0 ? end_bit : 1, stream));
  HOLA_CUDA_CHECK(cub::DeviceReduce::TransformReduce(
      nullptr, reduce_bytes, thrust::counting_iterator<std::int64_t>(0),
      static_cast<LengthSums*>(nullptr), rows, CombineSums{}, RankContribution<K>{nullptr, rows},
      LengthSums{}, stream));
  const std::size_t key_bytes = align_up(static_cast<std::size_t>(rows) * sizeof(K));
  const std::size_t temp_bytes = align_up(sort_bytes > reduce_bytes ? sort_bytes : reduce_bytes);
  cuda::StreamScratch scratch(2 * key_bytes + temp_bytes + sizeof(LengthSums), stream);
  char* base = scratch.as<char>();
  keys = cub::DoubleBuffer<K>(reinterpret_cast<K*>(base), reinterpret_cast<K*>(base + key_bytes));
  auto* d_sums = reinterpret_cast<LengthSums*>(base + 2 * key_bytes + temp_bytes);

  const int threads = 256;
  const std::int64_t blocks_needed = (rows + threads - 1) / threads;
  const int blocks = static_cast<int>(blocks_needed < 65536 ? blocks_needed : 65536);
  row_lengths_kernel<<<blocks, threads, 0, stream>>>(row_ptr, rows, keys.Current());
  HOLA_CUDA_CHECK_LAUNCH("row_lengths_kernel");
  return stats_of_lengths(keys, base + 2 * key_bytes, temp_bytes, d_sums, rows, cols, end_bit,
                          stream);
}

}  // namespace

template <class O>
RowLengthStats device_row_length_stats(const O* row_ptr, std::int64_t rows, std::int64_t cols,
                                       std::int64_t nnz, void* stream) {
  if (rows <= 0) {
    RowLengthStats s;
    s.cols = cols;
    return s;
  }
  const cudaStream_t s = cuda::as_stream(stream);
  if (static_cast<unsigned long long>(nnz) <= std::numeric_limits<std::uint32_t>::max())
    return stats_with<O, std::uint32_t>(row_ptr, rows, cols, nnz, s);
  return stats_with<O, std::uint64_t>(row_ptr, rows, cols, nnz, s);
}

template RowLengthStats device_row_length_stats<std::int32_t>(const std::int32_t*, std::int64_t,
                                                              std::int64_t, std::int64_t, void*);
template RowLengthStats device_row_length_stats<std::int64_t>(const std::int64_t*, std::int64_t,
                                                              std::int64_t, std::int64_t, void*);

}  // namespace hola::gpu
