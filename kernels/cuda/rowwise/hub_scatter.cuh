// Op T of the vector kernels with hub columns summed per block (KernelOptions::transpose_hubs).
// On irregular matrices the atomic scatter is bound by the L2's atomic operations, not by
// memory traffic: on an H200, op T of 23 M nonzeros took 0.27 ms whether the columns were
// banded or uniformly random, and the R-MAT graph's took twice its op N, float as long as
// double, because its hub columns take many atomics on one address each
// (bench/results/2026-11-21-h200-anchors-double.txt). Here the columns holding the most entries
// (the hubs, found at the first op T product) get a slot in each block's shared memory: a block,
// resident for the whole product and grid-stride over the rows, adds its products into the slot
// with shared-memory atomics and adds each slot into y once at its end. Other columns take the
// global atomic as before. Not reproducible (atomics), so never in deterministic mode.
// Internal header of the rowwise family.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cub/device/device_radix_sort.cuh>
#include <string>
#include <vector>

#include "rowwise/row_common.cuh"

namespace hola::cuda::rowwise {

// Shared memory for the slots of one block: 4 096 double or 8 192 float hubs, small enough to
// keep 6 blocks of 256 threads resident per SM on an H100 / H200.
constexpr int kHubSharedBytes = 32 * 1024;
// A hub holds at least this many entries (fewer gain nothing over their global atomics), and
// the hubs together hold at least this share of the nonzeros, else the plain scatter runs.
constexpr std::int64_t kHubMinEntries = 64;
constexpr double kHubMinShare = 0.05;

// counts[c] = entries of column c (counts zeroed before).
template <class I>
__global__ void hub_column_counts_kernel(const I* __restrict__ col_idx, std::int64_t nnz,
                                         unsigned* __restrict__ counts) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < nnz;
       k += stride)
    atomicAdd(counts + col_idx[k], 1u);
}

template <class I>
__global__ void hub_column_ids_kernel(I* ids, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride)
    ids[i] = static_cast<I>(i);
}

// slot_of[hub_cols[s]] = s (slot_of holds -1 elsewhere).
template <class I>
__global__ void hub_slots_kernel(const I* __restrict__ hub_cols, int hubs,
                                 std::int32_t* __restrict__ slot_of) {
  for (int s = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); s < hubs;
       s += static_cast<int>(gridDim.x * blockDim.x))
    slot_of[hub_cols[s]] = s;
}

// One vector of Width lanes per row, grid-stride over the rows with a grid of resident blocks.
// y_out holds beta y_in already (scale_transpose_output).
template <int Width, class V, class I, class O>
__global__ __launch_bounds__(kMaxThreadsPerBlock) void vector_rows_hub_kernel(
    RowArgs<V, I, O> a, const std::int32_t* __restrict__ slot_of, const I* __restrict__ hub_cols,
    int hubs) {
  using U = std::make_unsigned_t<O>;
  extern __shared__ __align__(16) unsigned char hub_shared[];
  V* slot_sum = reinterpret_cast<V*>(hub_shared);
  for (int s = static_cast<int>(threadIdx.x); s < hubs; s += static_cast<int>(blockDim.x))
    slot_sum[s] = V(0);
  __syncthreads();
  const VectorGrid<Width> g;
  const unsigned mask = vector_lane_mask<Width>(static_cast<int>(threadIdx.x % kWarpSize));
  for (std::int64_t first = g.warp_first; first < a.rows; first += g.stride) {
    const std::int64_t row = first + g.vector_in_warp;
    O begin, end;
    vector_row_bounds<Width>(a.row_ptr, row, row < a.rows, g.lane, mask, begin, end);
    if (begin >= end) continue;
    const V scaled_x = a.alpha * load_ro(a.x + row);
    const U last = static_cast<U>(end);
    for (U j = static_cast<U>(begin) + static_cast<U>(g.lane); j < last; j += Width) {
      const I col = load_ro(a.col_idx + j);
      const V product = load_ro(a.values + j) * scaled_x;
      const std::int32_t slot = load_ro(slot_of + col);
      if (slot >= 0)
        atomicAdd(slot_sum + slot, product);
      else
        atomicAdd(a.y_out + col, product);
    }
  }
  __syncthreads();
  for (int s = static_cast<int>(threadIdx.x); s < hubs; s += static_cast<int>(blockDim.x)) {
    const V sum = slot_sum[s];
    if (sum != V(0)) atomicAdd(a.y_out + hub_cols[s], sum);
  }
}

template <class V, class I, class O>
using HubFn = void (*)(RowArgs<V, I, O>, const std::int32_t*, const I*, int);

template <class V, class I, class O>
HubFn<V, I, O> hub_scatter_fn(int width) {
  return with_lanes_per_row(width, "hub scatter", [](auto lanes) -> HubFn<V, I, O> {
    return vector_rows_hub_kernel<decltype(lanes)::value, V, I, O>;
  });
}

// The hubs of one structure and the launch plan. Built at the first op T product (solvers that
// never transpose pay nothing), once per structure.
template <class V, class I, class O>
class HubScatter {
 public:
  // Plans the hub scatter when `wanted`; drops the hubs of an earlier structure.
  void setup(const CsrView<V, I, O>& A, bool wanted, int width, int threads_per_block) {
    release();
    wanted_ = wanted && A.nnz > 0 && A.cols > 0;
    built_ = false;
    width_ = width;
    threads_ = threads_per_block;
  }

  // Whether op T goes through apply() (until the first product shows the matrix has no hubs).
  bool wanted() const { return wanted_; }
  std::size_t bytes() const { return slot_of_.bytes() + hub_cols_.bytes(); }
  int hubs() const { return hubs_; }
  double share() const { return share_; }

  // y_out (holding beta y_in) += alpha A^T x. Returns false, launching nothing, when the matrix
  // has no hubs worth a slot (the caller runs its plain scatter; later calls return false at
  // once). The first call of a structure finds the hubs on `stream` and waits for them once.
  bool apply(const CsrView<V, I, O>& A, const RowArgs<V, I, O>& a, cudaStream_t stream) {
    if (!wanted_) return false;
    if (!built_) {
      try {
        build(A, stream);
      } catch (...) {
        cudaStreamSynchronize(stream);
        release();
        throw;
      }
      built_ = true;
      if (hubs_ == 0) {
        wanted_ = false;
        return false;
      }
    }
    fn_<<<grid_, threads_, static_cast<std::size_t>(hubs_) * sizeof(V), stream>>>(
        a, slot_of_.as<std::int32_t>(), hub_cols_.as<I>(), hubs_);
    HOLA_CUDA_CHECK_LAUNCH("vector_rows_hub_kernel");
    return true;
  }

 private:
  void release() {
    slot_of_ = DeviceBuffer{};
    hub_cols_ = DeviceBuffer{};
    hubs_ = 0;
    share_ = 0;
  }

  // Column counts (one atomic pass), the columns sorted by count (CUB), the top slots' counts
  // to the host: the hubs are the leading columns of at least kHubMinEntries entries. Memory
  // kept: 4 bytes a column (its slot or -1) and one index a hub; scratch in stream order: 8 +
  // 2 sizeof(I) bytes a column and CUB's temporary storage.
  void build(const CsrView<V, I, O>& A, cudaStream_t stream) {
    const std::int64_t cols = A.cols, nnz = A.nnz;
    const auto ucols = static_cast<std::size_t>(cols);
    const int max_slots = kHubSharedBytes / static_cast<int>(sizeof(V));
    const int top = static_cast<int>(std::min<std::int64_t>(cols, max_slots));
    const DeviceInfo& info = current_device_info();
    const unsigned pass_grid = grid_size(std::max(nnz, cols), 256, std::int64_t(info.sm_count) * 8);
    StreamScratch counts(ucols * sizeof(unsigned), stream),
        sorted_counts(ucols * sizeof(unsigned), stream), ids(ucols * sizeof(I), stream),
        sorted_ids(ucols * sizeof(I), stream);
    HOLA_CUDA_CHECK(cudaMemsetAsync(counts.as<void>(), 0, ucols * sizeof(unsigned), stream));
    hub_column_counts_kernel<I><<<pass_grid, 256, 0, stream>>>(A.col_idx, nnz, counts.as<unsigned>());
    HOLA_CUDA_CHECK_LAUNCH("hub_column_counts_kernel");
    hub_column_ids_kernel<I><<<pass_grid, 256, 0, stream>>>(ids.as<I>(), cols);
    HOLA_CUDA_CHECK_LAUNCH("hub_column_ids_kernel");
    std::size_t temp_bytes = 0;
    HOLA_CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(
        nullptr, temp_bytes, counts.as<unsigned>(), sorted_counts.as<unsigned>(), ids.as<I>(),
        sorted_ids.as<I>(), cols, 0, 32, stream));
    StreamScratch temp(std::max<std::size_t>(temp_bytes, 1), stream);
    HOLA_CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(
        temp.as<void>(), temp_bytes, counts.as<unsigned>(), sorted_counts.as<unsigned>(), ids.as<I>(),
        sorted_ids.as<I>(), cols, 0, 32, stream));
    std::vector<unsigned> top_counts(static_cast<std::size_t>(top));
    HOLA_CUDA_CHECK(cudaMemcpyAsync(top_counts.data(), sorted_counts.as<void>(),
                                    top_counts.size() * sizeof(unsigned), cudaMemcpyDeviceToHost,
                                    stream));
    HOLA_CUDA_CHECK(cudaStreamSynchronize(stream));
    int hubs = 0;
    double in_hubs = 0;
    while (hubs < top && top_counts[static_cast<std::size_t>(hubs)] >=
                             static_cast<unsigned>(kHubMinEntries)) {
      in_hubs += top_counts[static_cast<std::size_t>(hubs)];
      ++hubs;
    }
    share_ = nnz > 0 ? in_hubs / static_cast<double>(nnz) : 0.0;
    if (hubs == 0 || share_ < kHubMinShare) return;  // hubs_ stays 0: the plain scatter
    hub_cols_.resize(static_cast<std::size_t>(hubs) * sizeof(I));
    HOLA_CUDA_CHECK(cudaMemcpyAsync(hub_cols_.get(), sorted_ids.as<void>(),
                                    static_cast<std::size_t>(hubs) * sizeof(I),
                                    cudaMemcpyDeviceToDevice, stream));
    slot_of_.resize(ucols * sizeof(std::int32_t));
    HOLA_CUDA_CHECK(cudaMemsetAsync(slot_of_.get(), 0xff, ucols * sizeof(std::int32_t), stream));
    hub_slots_kernel<I><<<grid_size(hubs, 256, 64), 256, 0, stream>>>(
        hub_cols_.as<I>(), hubs, slot_of_.as<std::int32_t>());
    HOLA_CUDA_CHECK_LAUNCH("hub_slots_kernel");
    fn_ = hub_scatter_fn<V, I, O>(width_);
    const std::size_t shared = static_cast<std::size_t>(hubs) * sizeof(V);
    int per_sm = 0;
    HOLA_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, reinterpret_cast<const void*>(fn_), threads_, shared));
    // Resident blocks only: each sums its share of the rows into its slots before adding them.
    grid_ = grid_size(A.rows, threads_ / width_,
                      std::int64_t(info.sm_count) * std::max(per_sm, 1));
    HOLA_CUDA_CHECK(cudaStreamSynchronize(stream));
    hubs_ = hubs;
  }

  DeviceBuffer slot_of_, hub_cols_;
  int hubs_ = 0;
  double share_ = 0;
  bool wanted_ = false;
  bool built_ = false;
  HubFn<V, I, O> fn_ = nullptr;
  int width_ = kWarpSize;
  int threads_ = kDefaultThreadsPerBlock;
  unsigned grid_ = 1;
};

}  // namespace hola::cuda::rowwise
