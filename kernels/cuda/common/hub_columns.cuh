// The hub columns of a CSR structure: the columns holding the most entries (power-law graphs,
// bordered matrices' dense columns), in a hash table, for op T kernels that sum a hub's products
// in shared memory before one global atomic (merge). Why: op T's atomic scatter is bound by the
// L2's atomic operations, not by memory traffic (H200: 23 M nonzeros took 0.27 ms whether the
// columns were banded or uniformly random; an R-MAT graph's op T took twice its op N, float as
// long as double, bench/results/2026-11-21-h200-anchors-double.txt), and a hub takes many of
// them on one address. Built on the device once per structure: column counts (one atomic pass),
// the columns sorted by count (CUB), the leading ones read back and hashed on the host.
// Internal header.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cub/device/device_radix_sort.cuh>
#include <vector>

#include "common/column_index.cuh"
#include "common/cuda_utils.cuh"

namespace hola::cuda {

// A hub holds at least this many entries (fewer gain nothing over their global atomics), and the
// hubs together hold at least this share of the nonzeros, else a kernel keeps its plain scatter.
constexpr std::int64_t kHubMinEntries = 64;
constexpr double kHubMinShare = 0.05;

namespace hub_detail {

template <class I>
__global__ void column_counts_kernel(const I* __restrict__ col_idx, std::int64_t nnz,
                                     unsigned* __restrict__ counts) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < nnz;
       k += stride)
    atomicAdd(counts + col_idx[k], 1u);
}

}  // namespace hub_detail

// The smallest table (a power of two, at least kHubMinTable entries) at most half full with
// `hubs` hubs.
constexpr int kHubMinTable = 64;
constexpr int fitted_hub_table(int hubs) {
  int entries = kHubMinTable;
  while (entries < 2 * hubs) entries *= 2;
  return entries;
}
static_assert(fitted_hub_table(1) == 64 && fitted_hub_table(32) == 64 &&
              fitted_hub_table(33) == 128 && fitted_hub_table(1024) == 2048);

// The hash of a column into a table of 2^bits entries (multiplicative; the same on host and
// device).
__host__ __device__ inline unsigned hub_hash(std::uint64_t col, int bits) {
  return static_cast<unsigned>((col * 0x9E3779B97F4A7C15ull) >> (64 - bits));
}

// The hubs as an open-addressing table (linear probing, at most half full, empty entries -1)
// that a block copies into its shared memory: a column's membership test then costs a few
// shared-memory reads, no L2 traffic (a per-column slot array in global memory, tried first,
// cost an L2 sector per nonzero, as much as the atomics it saved). Memory kept: the table
// (capacity sizeof(I) bytes). The build borrows 8 + 2 sizeof(I) bytes a column and CUB's
// scratch, in stream order, and synchronises `stream`.
template <class I>
class HubColumns {
 public:
  // The columns of at least kHubMinEntries entries, the longest first, at most capacity / 2 of
  // them (capacity a power of two); none when they hold under kHubMinShare of the nonzeros. A
  // column holds under 2^32 entries. With `fit` the table shrinks to the smallest power of two
  // from kHubMinTable that keeps it at most half full: a block's copy of the table is shared
  // memory that would otherwise limit how many blocks an SM holds (one hub in 2 048 slots: 24 KB
  // of 35 in double; run D of bench/results/2026-11-29-session19/).
  void build(const I* col_idx, std::int64_t cols, std::int64_t nnz, int capacity, bool fit,
             cudaStream_t stream) {
    using namespace hub_detail;
    *this = HubColumns{};
    if (cols <= 0 || nnz <= 0 || capacity < 2 || (capacity & (capacity - 1)) != 0) return;
    const auto ucols = static_cast<std::size_t>(cols);
    const int top = static_cast<int>(std::min<std::int64_t>(cols, capacity / 2));
    // The column index's launch shape: grid-stride, at most 8 blocks a multiprocessor.
    using column_index_detail::blocks_for;
    using column_index_detail::kBlock;
    const int blocks_max = current_device_info().sm_count * 8;
    StreamScratch counts(ucols * sizeof(unsigned), stream),
        sorted_counts(ucols * sizeof(unsigned), stream), ids(ucols * sizeof(I), stream),
        sorted_ids(ucols * sizeof(I), stream);
    HOLA_CUDA_CHECK(cudaMemsetAsync(counts.as<void>(), 0, ucols * sizeof(unsigned), stream));
    column_counts_kernel<I>
        <<<blocks_for(nnz, blocks_max), kBlock, 0, stream>>>(col_idx, nnz, counts.as<unsigned>());
    HOLA_CUDA_CHECK_LAUNCH("column_counts_kernel");
    column_index_detail::iota_kernel<I>
        <<<blocks_for(cols, blocks_max), kBlock, 0, stream>>>(ids.as<I>(), cols);
    HOLA_CUDA_CHECK_LAUNCH("iota");
    std::size_t temp_bytes = 0;
    HOLA_CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(
        nullptr, temp_bytes, counts.as<unsigned>(), sorted_counts.as<unsigned>(), ids.as<I>(),
        sorted_ids.as<I>(), cols, 0, 32, stream));
    StreamScratch temp(std::max<std::size_t>(temp_bytes, 1), stream);
    HOLA_CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(
        temp.as<void>(), temp_bytes, counts.as<unsigned>(), sorted_counts.as<unsigned>(),
        ids.as<I>(), sorted_ids.as<I>(), cols, 0, 32, stream));
    std::vector<unsigned> top_counts(static_cast<std::size_t>(top));
    std::vector<I> top_ids(static_cast<std::size_t>(top));
    HOLA_CUDA_CHECK(cudaMemcpyAsync(top_counts.data(), sorted_counts.as<void>(),
                                    top_counts.size() * sizeof(unsigned), cudaMemcpyDeviceToHost,
                                    stream));
    HOLA_CUDA_CHECK(cudaMemcpyAsync(top_ids.data(), sorted_ids.as<void>(),
                                    top_ids.size() * sizeof(I), cudaMemcpyDeviceToHost, stream));
    HOLA_CUDA_CHECK(cudaStreamSynchronize(stream));
    int hubs = 0;
    double in_hubs = 0;
    while (hubs < top &&
           top_counts[static_cast<std::size_t>(hubs)] >= static_cast<unsigned>(kHubMinEntries)) {
      in_hubs += top_counts[static_cast<std::size_t>(hubs)];
      ++hubs;
    }
    share_ = in_hubs / static_cast<double>(nnz);
    if (hubs == 0 || share_ < kHubMinShare) return;  // no hubs: count_ stays 0
    if (fit) capacity = std::min(capacity, fitted_hub_table(hubs));
    int bits = 0;
    while ((1 << bits) < capacity) ++bits;
    std::vector<I> table(static_cast<std::size_t>(capacity), I(-1));
    for (int h = 0; h < hubs; ++h) {
      const I col = top_ids[static_cast<std::size_t>(h)];
      unsigned at = hub_hash(static_cast<std::uint64_t>(col), bits);
      while (table[at] != I(-1)) at = (at + 1) & static_cast<unsigned>(capacity - 1);
      table[at] = col;
    }
    table_.resize(table.size() * sizeof(I));
    HOLA_CUDA_CHECK(cudaMemcpyAsync(table_.get(), table.data(), table.size() * sizeof(I),
                                    cudaMemcpyHostToDevice, stream));
    HOLA_CUDA_CHECK(cudaStreamSynchronize(stream));  // `table` is freed on return
    count_ = hubs;
    capacity_ = capacity;
    bits_ = bits;
  }

  int count() const { return count_; }
  int capacity() const { return capacity_; }
  int bits() const { return bits_; }
  // The hubs' share of the nonzeros (also when under kHubMinShare and none were kept).
  double share() const { return share_; }
  const I* table() const { return table_.as<I>(); }
  std::size_t bytes() const { return table_.bytes(); }

 private:
  DeviceBuffer table_;
  int count_ = 0, capacity_ = 0, bits_ = 0;
  double share_ = 0;
};

}  // namespace hola::cuda
