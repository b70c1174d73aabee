// gpu::device_row_length_stats: the selector's features from device row offsets (features.hpp).
// One pass over row_ptr: lengths below kShortLengths go into a histogram (block-local in shared
// memory, then added to a global one); the few longer rows (at most nnz / kShortLengths of them)
// are appended to a list. The host orders the list and walks histogram and list in increasing
// length, which gives the same sums as sorting every length, without a sort of all rows and
// without scratch proportional to the row count: this runs inside `auto`'s setup.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "common/cuda_utils.cuh"
#include "hola/features.hpp"

namespace hola::gpu {

namespace {

constexpr int kShortLengths = 4096;  // histogram bins: lengths 0 .. kShortLengths - 1
constexpr int kThreads = 256;

// Layout of the device scratch: the histogram, then the long-row count, then the list.
struct Counts {
  unsigned long long histogram[kShortLengths];
  unsigned long long long_rows;
};

template <class O>
__global__ void __launch_bounds__(kThreads)
    length_histogram_kernel(const O* __restrict__ row_ptr, std::int64_t rows, Counts* counts,
                            unsigned long long* __restrict__ long_lengths,
                            unsigned long long long_capacity) {
  __shared__ unsigned int bins[kShortLengths];
  for (int b = threadIdx.x; b < kShortLengths; b += blockDim.x) bins[b] = 0;
  __syncthreads();
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t r = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; r < rows;
       r += stride) {
    const auto len = static_cast<unsigned long long>(row_ptr[r + 1] - row_ptr[r]);
    if (len < kShortLengths) {
      atomicAdd(&bins[len], 1u);
    } else {
      const unsigned long long slot = atomicAdd(&counts->long_rows, 1ull);
      if (slot < long_capacity) long_lengths[slot] = len;  // capacity is a proven bound
    }
  }
  __syncthreads();
  for (int b = threadIdx.x; b < kShortLengths; b += blockDim.x)
    if (bins[b] != 0) atomicAdd(&counts->histogram[b], static_cast<unsigned long long>(bins[b]));
}

// The lengths in increasing order as (length, count) runs.
std::vector<std::pair<std::int64_t, std::int64_t>> length_runs(
    const Counts& counts, const std::vector<unsigned long long>& sorted_long) {
  std::vector<std::pair<std::int64_t, std::int64_t>> runs;
  for (int v = 0; v < kShortLengths; ++v)
    if (counts.histogram[v] != 0)
      runs.emplace_back(v, static_cast<std::int64_t>(counts.histogram[v]));
  for (std::size_t i = 0; i < sorted_long.size();) {
    std::size_t j = i;
    while (j < sorted_long.size() && sorted_long[j] == sorted_long[i]) ++j;
    runs.emplace_back(static_cast<std::int64_t>(sorted_long[i]), static_cast<std::int64_t>(j - i));
    i = j;
  }
  return runs;
}

}  // namespace

template <class O>
RowLengthStats device_row_length_stats(const O* row_ptr, std::int64_t rows, std::int64_t cols,
                                       std::int64_t nnz, void* stream) {
  RowLengthStats s;
  s.rows = rows > 0 ? rows : 0;
  s.cols = cols;
  if (rows <= 0) return s;
  const cudaStream_t st = cuda::as_stream(stream);
  // Rows of kShortLengths or more nonzeros: no more than nnz / kShortLengths of them.
  const auto long_capacity = static_cast<unsigned long long>(nnz > 0 ? nnz : 0) / kShortLengths + 1;
  cuda::StreamScratch scratch(sizeof(Counts) + long_capacity * sizeof(unsigned long long), st);
  auto* d_counts = scratch.as<Counts>();
  auto* d_long = reinterpret_cast<unsigned long long*>(d_counts + 1);
  HOLA_CUDA_CHECK(cudaMemsetAsync(d_counts, 0, sizeof(Counts), st));
  const auto& info = cuda::current_device_info();
  const std::int64_t blocks_needed = (rows + kThreads - 1) / kThreads;
  const std::int64_t blocks_max = 2LL * (info.sm_count > 0 ? info.sm_count : 1);
  const int blocks = static_cast<int>(std::min(blocks_needed, blocks_max));
  length_histogram_kernel<<<blocks, kThreads, 0, st>>>(row_ptr, rows, d_counts, d_long,
                                                       long_capacity);
  HOLA_CUDA_CHECK_LAUNCH("length_histogram_kernel");
  Counts counts;
  HOLA_CUDA_CHECK(cudaMemcpyAsync(&counts, d_counts, sizeof(Counts), cudaMemcpyDeviceToHost, st));
  HOLA_CUDA_CHECK(cudaStreamSynchronize(st));
  std::vector<unsigned long long> sorted_long(
      static_cast<std::size_t>(std::min(counts.long_rows, long_capacity)));
  if (!sorted_long.empty()) {
    HOLA_CUDA_CHECK(cudaMemcpyAsync(sorted_long.data(), d_long,
                                    sorted_long.size() * sizeof(unsigned long long),
                                    cudaMemcpyDeviceToHost, st));
    HOLA_CUDA_CHECK(cudaStreamSynchronize(st));
    std::sort(sorted_long.begin(), sorted_long.end());
  }

  // Counts first, then the sums about the mean (as the CPU version, in long double).
  const auto runs = length_runs(counts, sorted_long);
  s.min_row = runs.front().first;  // rows > 0: at least one run
  s.max_row = runs.back().first;
  for (const auto& [len, c] : runs) {
    s.nnz += len * c;
    if (len == 0) s.empty_rows = c;
  }
  const long double n = static_cast<long double>(rows);
  const long double mean = static_cast<long double>(s.nnz) / n;
  long double weighted = 0, squares = 0;
  std::int64_t first = 0;
  for (const auto& [len, c] : runs) {
    const long double x = static_cast<long double>(len), cl = static_cast<long double>(c);
    weighted += x * cl * (2.0L * static_cast<long double>(first) + cl - n);
    squares += cl * (x - mean) * (x - mean);
    first += c;
  }
  detail::set_std_and_gini(squares, weighted, s);
  return s;
}

template RowLengthStats device_row_length_stats<std::int32_t>(const std::int32_t*, std::int64_t,
                                                              std::int64_t, std::int64_t, void*);
template RowLengthStats device_row_length_stats<std::int64_t>(const std::int64_t*, std::int64_t,
                                                              std::int64_t, std::int64_t, void*);

}  // namespace hola::gpu
