// The hub columns of a CSR structure: the columns holding the most entries (power-law graphs,
// circuits' dense columns), each given a slot, for op T kernels that sum a hub's products in
// shared memory before one global atomic. Why: op T's atomic scatter is bound by the L2's atomic
// operations, not by memory traffic (H200: 23 M nonzeros took 0.27 ms whether the columns were
// banded or uniformly random; an R-MAT graph's op T took twice its op N, float as long as double,
// bench/results/2026-11-21-h200-anchors-double.txt), and a hub takes many of them on one address.
// Built on the device once per structure: column counts (one atomic pass), the columns sorted by
// count (CUB), the leading counts read back. Internal header.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cub/device/device_radix_sort.cuh>
#include <vector>

#include "common/cuda_utils.cuh"

namespace hola::cuda {

// A hub holds at least this many entries (fewer gain nothing over their global atomics), and the
// hubs together hold at least this share of the nonzeros, else a kernel keeps its plain scatter.
constexpr std::int64_t kHubMinEntries = 64;
constexpr double kHubMinShare = 0.05;

namespace hub_detail {

constexpr int kThreads = 256;

template <class I>
__global__ void column_counts_kernel(const I* __restrict__ col_idx, std::int64_t nnz,
                                     unsigned* __restrict__ counts) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < nnz;
       k += stride)
    atomicAdd(counts + col_idx[k], 1u);
}

template <class I>
__global__ void column_ids_kernel(I* ids, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride)
    ids[i] = static_cast<I>(i);
}

// slot_of[hub_cols[s]] = s (slot_of holds -1 elsewhere).
template <class I>
__global__ void slots_kernel(const I* __restrict__ hub_cols, int hubs,
                             std::int32_t* __restrict__ slot_of) {
  for (int s = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); s < hubs;
       s += static_cast<int>(gridDim.x * blockDim.x))
    slot_of[hub_cols[s]] = s;
}

}  // namespace hub_detail

// Memory kept: 4 bytes a column (its slot, or -1) and one column index a hub. The build borrows
// 8 + 2 sizeof(I) bytes a column and CUB's scratch, in stream order, and synchronises `stream`.
template <class I>
class HubColumns {
 public:
  // The columns of at least kHubMinEntries entries, the longest first, at most max_slots of them;
  // none when they hold under kHubMinShare of the nonzeros. A column holds under 2^32 entries.
  void build(const I* col_idx, std::int64_t cols, std::int64_t nnz, int max_slots,
             cudaStream_t stream) {
    using namespace hub_detail;
    *this = HubColumns{};
    if (cols <= 0 || nnz <= 0 || max_slots <= 0) return;
    const auto ucols = static_cast<std::size_t>(cols);
    const int top = static_cast<int>(std::min<std::int64_t>(cols, max_slots));
    const std::int64_t cap = std::int64_t(current_device_info().sm_count) * 8;
    const auto grid = [cap](std::int64_t n) {
      return static_cast<unsigned>(
          std::max<std::int64_t>(1, std::min(cap, (n + kThreads - 1) / kThreads)));
    };
    StreamScratch counts(ucols * sizeof(unsigned), stream),
        sorted_counts(ucols * sizeof(unsigned), stream), ids(ucols * sizeof(I), stream),
        sorted_ids(ucols * sizeof(I), stream);
    HOLA_CUDA_CHECK(cudaMemsetAsync(counts.as<void>(), 0, ucols * sizeof(unsigned), stream));
    column_counts_kernel<I>
        <<<grid(nnz), kThreads, 0, stream>>>(col_idx, nnz, counts.as<unsigned>());
    HOLA_CUDA_CHECK_LAUNCH("column_counts_kernel");
    column_ids_kernel<I><<<grid(cols), kThreads, 0, stream>>>(ids.as<I>(), cols);
    HOLA_CUDA_CHECK_LAUNCH("column_ids_kernel");
    std::size_t temp_bytes = 0;
    HOLA_CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(
        nullptr, temp_bytes, counts.as<unsigned>(), sorted_counts.as<unsigned>(), ids.as<I>(),
        sorted_ids.as<I>(), cols, 0, 32, stream));
    StreamScratch temp(std::max<std::size_t>(temp_bytes, 1), stream);
    HOLA_CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(
        temp.as<void>(), temp_bytes, counts.as<unsigned>(), sorted_counts.as<unsigned>(),
        ids.as<I>(), sorted_ids.as<I>(), cols, 0, 32, stream));
    std::vector<unsigned> top_counts(static_cast<std::size_t>(top));
    HOLA_CUDA_CHECK(cudaMemcpyAsync(top_counts.data(), sorted_counts.as<void>(),
                                    top_counts.size() * sizeof(unsigned), cudaMemcpyDeviceToHost,
                                    stream));
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
    hub_cols_.resize(static_cast<std::size_t>(hubs) * sizeof(I));
    HOLA_CUDA_CHECK(cudaMemcpyAsync(hub_cols_.get(), sorted_ids.as<void>(),
                                    static_cast<std::size_t>(hubs) * sizeof(I),
                                    cudaMemcpyDeviceToDevice, stream));
    slot_of_.resize(ucols * sizeof(std::int32_t));
    HOLA_CUDA_CHECK(cudaMemsetAsync(slot_of_.get(), 0xff, ucols * sizeof(std::int32_t), stream));
    slots_kernel<I>
        <<<grid(hubs), kThreads, 0, stream>>>(hub_cols_.as<I>(), hubs, slot_of_.as<std::int32_t>());
    HOLA_CUDA_CHECK_LAUNCH("slots_kernel");
    HOLA_CUDA_CHECK(cudaStreamSynchronize(stream));
    count_ = hubs;
  }

  int count() const { return count_; }
  // The hubs' share of the nonzeros (also when under kHubMinShare and none were kept).
  double share() const { return share_; }
  const std::int32_t* slot_of() const { return slot_of_.as<std::int32_t>(); }
  const I* hub_cols() const { return hub_cols_.as<I>(); }
  std::size_t bytes() const { return slot_of_.bytes() + hub_cols_.bytes(); }

 private:
  DeviceBuffer slot_of_, hub_cols_;
  int count_ = 0;
  double share_ = 0;
};

}  // namespace hola::cuda
