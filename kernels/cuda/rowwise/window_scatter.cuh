// Op T of the vector kernels through shared-memory windows (plan and rationale:
// transpose_windows.hpp). One block a tile of plan.tile_rows consecutive rows, a vector of Width
// lanes a row: a product whose column lies in one of the tile's windows is added to the window's
// slot in shared memory, any other goes to y with a global atomic as in the plain scatter; then
// the block adds every nonzero slot to y, consecutive columns across the warp. y_out holds
// beta * y_in already (scale_transpose_output). Included by rowwise_kernels.cuh only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "hola/gpu_kernels.hpp"

#include "rowwise/row_common.cuh"
#include "rowwise/transpose_windows.hpp"

namespace hola::cuda::rowwise {

template <int Width, class V, class I, class O>
__global__ __launch_bounds__(kMaxThreadsPerBlock) void window_scatter_kernel(
    RowArgs<V, I, O> a, TransposeWindowPlan plan) {
  using U = std::make_unsigned_t<O>;
  extern __shared__ __align__(16) unsigned char window_memory[];
  V* sums = reinterpret_cast<V*>(window_memory);
  for (int i = static_cast<int>(threadIdx.x); i < plan.slots; i += blockDim.x) sums[i] = V(0);
  __syncthreads();

  const std::int64_t first_row = static_cast<std::int64_t>(blockIdx.x) * plan.tile_rows;
  const std::int64_t diagonal = diagonal_column(first_row, plan.rows, plan.cols);
  const std::int64_t end_row =
      first_row + plan.tile_rows < a.rows ? first_row + plan.tile_rows : a.rows;
  const int lane = static_cast<int>(threadIdx.x) % Width;
  const int vectors = static_cast<int>(blockDim.x) / Width;
  for (std::int64_t row = first_row + static_cast<int>(threadIdx.x) / Width; row < end_row;
       row += vectors) {
    const U begin = static_cast<U>(load_ro(a.row_ptr + row));
    const U end = static_cast<U>(load_ro(a.row_ptr + row + 1));
    if (begin >= end) continue;
    const V scaled_x = a.alpha * load_ro(a.x + row);
    for (U j = begin + static_cast<U>(lane); j < end; j += Width) {
      const std::int64_t col = static_cast<std::int64_t>(load_ro(a.col_idx + j));
      const V product = load_ro(a.values + j) * scaled_x;
      int slot = -1;
#pragma unroll
      for (int k = 0; k < kMaxTransposeWindows; ++k) {
        if (k < plan.count) {
          // Unsigned compare: below the window wraps to a large number.
          const std::uint64_t rel = static_cast<std::uint64_t>(col - (diagonal + plan.low[k]));
          if (rel < static_cast<std::uint64_t>(plan.length[k]))
            slot = plan.slot[k] + static_cast<int>(rel);
        }
      }
      if (slot >= 0)
        atomicAdd(sums + slot, product);
      else
        atomicAdd(a.y_out + col, product);
    }
  }
  __syncthreads();

  // A slot left at zero adds nothing (and a window's columns outside [0, cols) are never hit).
  for (int k = 0; k < plan.count; ++k) {
    const std::int64_t first_col = diagonal + plan.low[k];
    for (int i = static_cast<int>(threadIdx.x); i < plan.length[k]; i += blockDim.x) {
      const V sum = sums[plan.slot[k] + i];
      if (sum != V(0)) atomicAdd(a.y_out + (first_col + i), sum);
    }
  }
}

template <class V, class I, class O>
using WindowScatterFn = void (*)(RowArgs<V, I, O>, TransposeWindowPlan);

template <class V, class I, class O>
WindowScatterFn<V, I, O> window_scatter_fn(int width) {
  return with_lanes_per_row(width, "window scatter", [](auto lanes) -> WindowScatterFn<V, I, O> {
    return window_scatter_kernel<decltype(lanes)::value, V, I, O>;
  });
}

// Sampled rows: kWindowSampleTiles runs of kWindowSampleRows rows spread over the matrix, at most
// kWindowSampleEntries entries of each copied to the host.
constexpr int kWindowSampleTiles = 16;
constexpr std::int64_t kWindowSampleRows = 256;
constexpr std::int64_t kWindowSampleEntries = 16384;

// The windows of one structure and op T through them. Planned at the first op T product of a
// structure outside a graph capture (a copy of the sample to the host and a wait), not at setup,
// so that solvers which never transpose do not pay for it.
template <class V, class I, class O>
class TransposeWindows {
 public:
  // mode: KernelOptions::transpose_window (-1 the kernel's choice, 0 off, 1 any band); kib:
  // KernelOptions::transpose_window_kib (0: kWindowSharedBytes).
  void setup(int mode, int kib, int width, int threads_per_block) {
    mode_ = mode;
    shared_bytes_ = kib > 0 ? static_cast<std::size_t>(kib) * 1024 : kWindowSharedBytes;
    width_ = width;
    threads_ = threads_per_block;
    plan_ = TransposeWindowPlan{};
    planned_ = mode == 0;
    fn_ = nullptr;
  }

  // Plans once per structure (no-op afterwards or inside a capture); true when the windows run.
  bool ready(const CsrView<V, I, O>& A, cudaStream_t stream) {
    if (!planned_ && !gpu::stream_capturing(stream)) plan(A, stream);
    return plan_.active();
  }

  const TransposeWindowPlan& plan() const { return plan_; }

  void apply(const RowArgs<V, I, O>& a, cudaStream_t stream) const {
    const std::int64_t tiles = (a.rows - 1) / plan_.tile_rows + 1;
    fn_<<<static_cast<unsigned>(tiles), threads_, plan_.slots * sizeof(V), stream>>>(a, plan_);
    HOLA_CUDA_CHECK_LAUNCH("window_scatter_kernel");
  }

 private:
  void plan(const CsrView<V, I, O>& A, cudaStream_t stream) {
    planned_ = true;
    if (A.rows == 0 || A.nnz == 0) return;
    std::int64_t sampled_rows = 0;
    const std::vector<DiagonalCount> histogram = sample(A, stream, sampled_rows);
    TransposeWindowLimits limits;
    limits.rows = A.rows;
    limits.cols = A.cols;
    limits.max_slots = static_cast<int>(shared_bytes_ / sizeof(V));
    limits.min_tile_rows = std::max<std::int64_t>(kTransposeWindowMinTileRows, threads_ / width_);
    // Enough tiles for a few blocks on every SM.
    const std::int64_t wanted_tiles = std::int64_t(4) * current_device_info().sm_count;
    limits.max_tile_rows =
        std::min<std::int64_t>(kTransposeWindowMaxTileRows, A.rows / wanted_tiles);
    if (mode_ == 1) {  // every band that fits, in the smallest tiles: for tests
      limits.any_band = true;
      limits.max_tile_rows = limits.min_tile_rows;
    }
    TransposeWindowPlan plan = plan_transpose_windows(histogram, sampled_rows, limits);
    if (!plan.active()) return;
    const WindowScatterFn<V, I, O> fn = window_scatter_fn<V, I, O>(width_);
    // The kernel's choice fits the tiles to whole waves (a forced plan keeps its small tiles).
    // Twice: shorter tiles take less shared memory, so that more blocks may fit.
    if (mode_ != 1) {
      for (int pass = 0; pass < 2; ++pass)
        plan = balance_tiles(plan, A.rows, resident_blocks(fn, plan.slots), threads_ / width_);
    }
    if ((A.rows - 1) / plan.tile_rows + 1 > kMaxGridBlocks) return;
    plan_ = plan;
    fn_ = fn;
  }

  // Blocks of the window kernel the whole GPU holds at once with `slots` values of shared memory.
  std::int64_t resident_blocks(WindowScatterFn<V, I, O> fn, int slots) const {
    int per_sm = 0;
    HOLA_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, fn, threads_, static_cast<std::size_t>(slots) * sizeof(V)));
    return std::int64_t(per_sm) * current_device_info().sm_count;
  }

  static std::vector<DiagonalCount> sample(const CsrView<V, I, O>& A, cudaStream_t stream,
                                           std::int64_t& sampled_rows) {
    const std::int64_t n = std::min<std::int64_t>(kWindowSampleRows, A.rows);
    const int tiles = A.rows <= n ? 1 : kWindowSampleTiles;
    std::vector<std::int64_t> first(static_cast<std::size_t>(tiles));
    std::vector<std::vector<O>> row_ptr(static_cast<std::size_t>(tiles),
                                        std::vector<O>(static_cast<std::size_t>(n + 1)));
    for (int t = 0; t < tiles; ++t) {
      first[t] = tiles == 1 ? 0 : (A.rows - n) * t / (tiles - 1);
      HOLA_CUDA_CHECK(cudaMemcpyAsync(row_ptr[t].data(), A.row_ptr + first[t], (n + 1) * sizeof(O),
                                      cudaMemcpyDeviceToHost, stream));
    }
    HOLA_CUDA_CHECK(cudaStreamSynchronize(stream));
    std::vector<std::vector<I>> cols(static_cast<std::size_t>(tiles));
    for (int t = 0; t < tiles; ++t) {
      const std::int64_t begin = static_cast<std::int64_t>(row_ptr[t].front());
      const std::int64_t count = std::min<std::int64_t>(
          kWindowSampleEntries, static_cast<std::int64_t>(row_ptr[t].back()) - begin);
      if (count <= 0) continue;
      cols[t].resize(static_cast<std::size_t>(count));
      HOLA_CUDA_CHECK(cudaMemcpyAsync(cols[t].data(), A.col_idx + begin, count * sizeof(I),
                                      cudaMemcpyDeviceToHost, stream));
    }
    HOLA_CUDA_CHECK(cudaStreamSynchronize(stream));
    std::vector<std::int64_t> offsets;
    sampled_rows = 0;
    for (int t = 0; t < tiles; ++t)
      sampled_rows += add_diagonal_offsets(row_ptr[t], cols[t], first[t], offsets, A.rows, A.cols);
    return count_offsets(std::move(offsets));
  }

  // Shared memory a block may take without opting in (and 4 blocks of 256 threads an SM).
  static constexpr std::size_t kWindowSharedBytes = 48 * 1024;

  int mode_ = -1;
  std::size_t shared_bytes_ = kWindowSharedBytes;
  int width_ = kWarpSize;
  int threads_ = kDefaultThreadsPerBlock;
  bool planned_ = false;
  TransposeWindowPlan plan_;
  WindowScatterFn<V, I, O> fn_ = nullptr;
};

}  // namespace hola::cuda::rowwise
