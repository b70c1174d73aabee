// Op T of the vector kernels through shared-memory windows (plan and rationale:
// transpose_windows.hpp). One block a tile of plan.tile_rows consecutive rows, a vector of Width
// lanes a row: a product whose column lies in one of the tile's windows is added to the window's
// slot in shared memory, any other goes to y with a global atomic as in the plain scatter; then
// the block adds every nonzero slot to y, consecutive columns across the warp. y_out holds
// beta * y_in already (scale_transpose_output). Included by rowwise_kernels.cuh only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
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
// the first kWindowSampleEntries entries of each.
constexpr int kWindowSampleTiles = 16;
constexpr std::int64_t kWindowSampleRows = 256;
constexpr std::int64_t kWindowSampleEntries = 16384;

// The sample's tiles: where each run of rows starts.
struct SampleTiles {
  std::int64_t first[kWindowSampleTiles];
  int count;
  std::int64_t rows;  // rows a run
};

// Above every diagonal offset (col - diagonal < cols <= 2^63 - 1): the slots of the sample that
// hold no entry (a row past a run's kWindowSampleEntries).
constexpr std::int64_t kNoOffset = std::numeric_limits<std::int64_t>::max();

// One block a run of rows: the diagonal offsets of its first kWindowSampleEntries entries, the
// runs one after the other in `offsets` (each block adds up the runs before its own), rows
// wholly inside a run's entries counted as add_diagonal_offsets counts them on the host.
// head[0]: the offsets written (kNoOffset included); head[1] (zeroed before): the rows counted.
template <class I, class O>
__global__ void sample_offsets_kernel(const O* row_ptr, const I* col_idx, std::int64_t rows,
                                      std::int64_t cols, SampleTiles tiles, std::int64_t* offsets,
                                      unsigned long long* head) {
  __shared__ std::int64_t start, available;
  if (threadIdx.x == 0) {
    std::int64_t before = 0;
    for (int k = 0; k < tiles.count; ++k) {
      const std::int64_t stored = static_cast<std::int64_t>(row_ptr[tiles.first[k] + tiles.rows]) -
                                  static_cast<std::int64_t>(row_ptr[tiles.first[k]]);
      const std::int64_t taken = stored < kWindowSampleEntries ? stored : kWindowSampleEntries;
      if (k == static_cast<int>(blockIdx.x)) {
        start = before;
        available = taken;
      }
      before += taken;
    }
    if (blockIdx.x == 0) head[0] = static_cast<unsigned long long>(before);
  }
  __syncthreads();
  std::int64_t* out = offsets + start;
  for (std::int64_t i = threadIdx.x; i < available; i += blockDim.x) out[i] = kNoOffset;
  __syncthreads();
  const std::int64_t first = tiles.first[blockIdx.x];
  const std::int64_t base = static_cast<std::int64_t>(row_ptr[first]);
  unsigned long long mine = 0;
  for (std::int64_t r = threadIdx.x; r < tiles.rows; r += blockDim.x) {
    const std::int64_t begin = static_cast<std::int64_t>(row_ptr[first + r]) - base;
    const std::int64_t end = static_cast<std::int64_t>(row_ptr[first + r + 1]) - base;
    if (end > available) continue;
    const std::int64_t diagonal = diagonal_column(first + r, rows, cols);
    for (std::int64_t j = begin; j < end; ++j)
      out[j] = static_cast<std::int64_t>(col_idx[base + j]) - diagonal;
    ++mine;
  }
  if (mine > 0) atomicAdd(head + 1, mine);
}

// Where the sampled runs start: kWindowSampleTiles runs spread evenly, or one run of the whole
// matrix when it has at most kWindowSampleRows rows.
inline SampleTiles sample_tiles(std::int64_t rows) {
  SampleTiles t{};
  t.rows = std::min<std::int64_t>(kWindowSampleRows, rows);
  t.count = rows <= t.rows ? 1 : kWindowSampleTiles;
  for (int k = 0; k < t.count; ++k)
    t.first[k] = t.count == 1 ? 0 : (rows - t.rows) * k / (t.count - 1);
  return t;
}

// The sample counted on the host: its row offsets and column indices copied over.
template <class V, class I, class O>
std::vector<DiagonalCount> sample_on_host(const CsrView<V, I, O>& A, cudaStream_t stream,
                                          std::int64_t& sampled_rows) {
  const SampleTiles t = sample_tiles(A.rows);
  const auto tiles = static_cast<std::size_t>(t.count);
  std::vector<std::vector<O>> row_ptr(tiles, std::vector<O>(static_cast<std::size_t>(t.rows + 1)));
  for (std::size_t k = 0; k < tiles; ++k)
    HOLA_CUDA_CHECK(cudaMemcpyAsync(row_ptr[k].data(), A.row_ptr + t.first[k],
                                    (t.rows + 1) * sizeof(O), cudaMemcpyDeviceToHost, stream));
  HOLA_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<std::vector<I>> cols(tiles);
  for (std::size_t k = 0; k < tiles; ++k) {
    const std::int64_t begin = static_cast<std::int64_t>(row_ptr[k].front());
    const std::int64_t count = std::min<std::int64_t>(
        kWindowSampleEntries, static_cast<std::int64_t>(row_ptr[k].back()) - begin);
    if (count <= 0) continue;
    cols[k].resize(static_cast<std::size_t>(count));
    HOLA_CUDA_CHECK(cudaMemcpyAsync(cols[k].data(), A.col_idx + begin, count * sizeof(I),
                                    cudaMemcpyDeviceToHost, stream));
  }
  HOLA_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<std::int64_t> offsets;
  std::size_t entries = 0;
  for (const auto& c : cols) entries += c.size();
  offsets.reserve(entries);
  sampled_rows = 0;
  for (std::size_t k = 0; k < tiles; ++k)
    sampled_rows += add_diagonal_offsets(row_ptr[k], cols[k], t.first[k], offsets, A.rows, A.cols);
  return count_offsets(offsets);
}

// The sample's offsets computed on the GPU and copied back in one piece (scratch of up to 2 MiB
// from the stream-ordered pool), then counted on the host: on an H200 the host's own copies (two
// a run) and offsets had cost 1-2 ms of a first op T (run B of
// bench/results/2026-11-29-session22/). Sorting and counting on the GPU as well (CUB) cost 0.5
// ms a structure but about 20 ms more at the process's first op T (run C there: CUB's first sort
// or the pool's first allocation, not told apart). False when no scratch memory could be had.
template <class V, class I, class O>
bool sample_on_gpu(const CsrView<V, I, O>& A, cudaStream_t stream, std::int64_t& sampled_rows,
                   std::vector<DiagonalCount>& histogram) {
  const SampleTiles t = sample_tiles(A.rows);
  const std::size_t slots = static_cast<std::size_t>(t.count) * kWindowSampleEntries;
  std::unique_ptr<StreamScratch> scratch;
  try {
    scratch = std::make_unique<StreamScratch>((2 + slots) * sizeof(std::int64_t), stream);
  } catch (const hola::error&) {
    cudaGetLastError();  // the failed allocation
    return false;
  }
  auto* head = scratch->as<unsigned long long>();
  auto* offsets = reinterpret_cast<std::int64_t*>(head + 2);
  HOLA_CUDA_CHECK(cudaMemsetAsync(head + 1, 0, sizeof(unsigned long long), stream));
  sample_offsets_kernel<I, O><<<static_cast<unsigned>(t.count), 256, 0, stream>>>(
      A.row_ptr, A.col_idx, A.rows, A.cols, t, offsets, head);
  HOLA_CUDA_CHECK_LAUNCH("sample_offsets_kernel");
  unsigned long long counts[2] = {0, 0};
  HOLA_CUDA_CHECK(cudaMemcpyAsync(counts, head, sizeof counts, cudaMemcpyDeviceToHost, stream));
  HOLA_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<std::int64_t> sample(static_cast<std::size_t>(counts[0]));
  if (!sample.empty()) {
    HOLA_CUDA_CHECK(cudaMemcpyAsync(sample.data(), offsets, sample.size() * sizeof(std::int64_t),
                                    cudaMemcpyDeviceToHost, stream));
    HOLA_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  sample.erase(std::remove(sample.begin(), sample.end(), kNoOffset), sample.end());
  histogram = count_offsets(sample);
  sampled_rows = static_cast<std::int64_t>(counts[1]);
  return true;
}

// The sample as the plan reads it: written on the GPU, or copied to the host where no scratch
// memory is left.
template <class V, class I, class O>
std::vector<DiagonalCount> sample_diagonal_offsets(const CsrView<V, I, O>& A, cudaStream_t stream,
                                                   std::int64_t& sampled_rows) {
  std::vector<DiagonalCount> histogram;
  if (sample_on_gpu(A, stream, sampled_rows, histogram)) return histogram;
  return sample_on_host(A, stream, sampled_rows);
}

// The windows' shared memory, KiB, when the kernel chooses: each budget's plan is timed against
// the others and the plain scatter at the first op T. 48 KiB: the most a block takes without
// opting in (4 blocks of 256 threads an SM). Measured on an H200 (run A of
// bench/results/2026-11-29-session21/, op T of 32 bands of 2 M rows, sigma 100-3 000, against 48
// KiB): 24 KiB ran 0.72-1.35x, faster on bands of sigma 1 000 (more blocks an SM), slower on
// sigma 3 000 (less of the band covered); no fixed budget was best everywhere. 96 KiB (opted in)
// covers bands twice as wide with half the blocks an SM: in run E it ran 0.56-1.01x the 48 KiB
// time on every band and a trial with it never chose it, so it is no candidate; a caller may ask
// for it (KernelOptions::transpose_window_kib) where the GPU allows it.
constexpr int kWindowBudgetsKib[] = {48, 24};
// The trial's scratch (an x of ones and a y) stays below this; larger matrices keep the first
// budget's plan untimed.
constexpr std::size_t kWindowTrialMaxScratchBytes = std::size_t(1) << 31;
// A candidate replaces the first (48 KiB) plan when its best time is faster by this factor.
constexpr double kWindowTrialMargin = 1.03;
constexpr int kWindowTrialTimedRounds = 3;

template <class V>
__global__ void fill_ones_kernel(V* v, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    v[i] = V(1);
}

// The windows of one structure and op T through them. Planned at the first op T product of a
// structure outside a graph capture (the sample's offsets copied to the host: waits), not at setup,
// so that solvers which never transpose do not pay for it. With the kernel's choice (no budget
// given) the plans of kWindowBudgetsKib and the plain scatter are then timed on scratch vectors
// (one untimed and kWindowTrialTimedRounds timed products each, interleaved) and the fastest kept.
template <class V, class I, class O>
class TransposeWindows {
 public:
  // mode: KernelOptions::transpose_window (-1 the kernel's choice, 0 off, 1 any band); kib:
  // KernelOptions::transpose_window_kib (0: timed among kWindowBudgetsKib).
  void setup(int mode, int kib, int width, int threads_per_block) {
    const std::size_t optin = current_device_info().shared_per_block_optin;
    if (mode != 0 && static_cast<std::size_t>(kib) * 1024 > optin) {
      const std::string asked = std::to_string(kib), most = std::to_string(optin / 1024);
      fail(status::unsupported, "op T windows: transpose_window_kib = " + asked +
                                    " KiB is more than a block of this GPU may take (" + most +
                                    " KiB)");
    }
    mode_ = mode;
    kib_ = kib;
    width_ = width;
    threads_ = threads_per_block;
    plan_ = TransposeWindowPlan{};
    planned_ = mode == 0;
    fn_ = nullptr;
  }

  // Plans once per structure (no-op afterwards or inside a capture); true when the windows run.
  // `a`: the product's arguments (for the trial's shape and alpha; its vectors are not touched);
  // `plain(args)` launches the plain scatter.
  template <class PlainScatter>
  bool ready(const CsrView<V, I, O>& A, const RowArgs<V, I, O>& a, PlainScatter&& plain,
             cudaStream_t stream) {
    if (!planned_ && !gpu::stream_capturing(stream)) plan(A, a, plain, stream);
    return plan_.active();
  }

  const TransposeWindowPlan& plan() const { return plan_; }

  void apply(const RowArgs<V, I, O>& a, cudaStream_t stream) const { launch(plan_, a, stream); }

 private:
  void launch(const TransposeWindowPlan& plan, const RowArgs<V, I, O>& a,
              cudaStream_t stream) const {
    const std::int64_t tiles = (a.rows - 1) / plan.tile_rows + 1;
    fn_<<<static_cast<unsigned>(tiles), threads_, plan.slots * sizeof(V), stream>>>(a, plan);
    HOLA_CUDA_CHECK_LAUNCH("window_scatter_kernel");
  }

  template <class PlainScatter>
  void plan(const CsrView<V, I, O>& A, const RowArgs<V, I, O>& a, PlainScatter& plain,
            cudaStream_t stream) {
    planned_ = true;
    if (A.rows == 0 || A.nnz == 0) return;
    std::int64_t sampled_rows = 0;
    const std::vector<DiagonalCount> histogram = sample_diagonal_offsets(A, stream, sampled_rows);
    fn_ = window_scatter_fn<V, I, O>(width_);
    if (kib_ > 48)  // above the default a block must opt in
      HOLA_CUDA_CHECK(
          cudaFuncSetAttribute(fn_, cudaFuncAttributeMaxDynamicSharedMemorySize, kib_ * 1024));
    if (mode_ == 1) {  // every band that fits, in the smallest tiles: for tests
      plan_ = plan_for(A, histogram, sampled_rows, kib_ > 0 ? kib_ : kWindowBudgetsKib[0]);
      return;
    }
    if (kib_ > 0) {
      plan_ = plan_for(A, histogram, sampled_rows, kib_);
      return;
    }
    std::vector<TransposeWindowPlan> candidates;
    for (int kib : kWindowBudgetsKib) {
      const TransposeWindowPlan p = plan_for(A, histogram, sampled_rows, kib);
      const bool seen = std::any_of(candidates.begin(), candidates.end(), [&](const auto& c) {
        return c.slots == p.slots && c.tile_rows == p.tile_rows;
      });
      if (p.active() && !seen) candidates.push_back(p);
    }
    if (candidates.empty()) return;
    candidates.push_back(TransposeWindowPlan{});  // the plain scatter
    plan_ = candidates[fastest(A, a, candidates, plain, stream)];
  }

  // The kernel's plan with `kib` KiB of shared memory a block, tiles fitted to whole waves
  // (inactive when no band fits or the grid would be too large).
  TransposeWindowPlan plan_for(const CsrView<V, I, O>& A,
                               const std::vector<DiagonalCount>& histogram,
                               std::int64_t sampled_rows, int kib) const {
    TransposeWindowLimits limits;
    limits.rows = A.rows;
    limits.cols = A.cols;
    limits.max_slots = static_cast<int>(std::size_t(kib) * 1024 / sizeof(V));
    limits.min_tile_rows = std::max<std::int64_t>(kTransposeWindowMinTileRows, threads_ / width_);
    // Enough tiles for a few blocks on every SM.
    const std::int64_t wanted_tiles = std::int64_t(4) * current_device_info().sm_count;
    limits.max_tile_rows =
        std::min<std::int64_t>(kTransposeWindowMaxTileRows, A.rows / wanted_tiles);
    if (mode_ == 1) {
      limits.any_band = true;
      limits.max_tile_rows = limits.min_tile_rows;
    }
    TransposeWindowPlan plan = plan_transpose_windows(histogram, sampled_rows, limits);
    if (!plan.active()) return plan;
    // The kernel's choice fits the tiles to whole waves (a forced plan keeps its small tiles).
    // Twice: shorter tiles take less shared memory, so that more blocks may fit.
    if (mode_ != 1) {
      for (int pass = 0; pass < 2; ++pass)
        plan = balance_tiles(plan, A.rows, resident_blocks(plan.slots), threads_ / width_);
    }
    if ((A.rows - 1) / plan.tile_rows + 1 > kMaxGridBlocks) return TransposeWindowPlan{};
    return plan;
  }

  // Index of the fastest candidate (an inactive plan: the plain scatter), timed on scratch
  // vectors: x all ones and alpha 1 (a zero product would skip the windows' flush), y of the
  // matrix's columns. Candidate 0 unless another beats it by kWindowTrialMargin; candidate 0
  // untimed when the scratch is too large or cannot be had.
  template <class PlainScatter>
  std::size_t fastest(const CsrView<V, I, O>& A, const RowArgs<V, I, O>& a,
                      const std::vector<TransposeWindowPlan>& candidates, PlainScatter& plain,
                      cudaStream_t stream) const {
    const std::size_t bytes = static_cast<std::size_t>(A.rows + A.cols) * sizeof(V);
    if (bytes > kWindowTrialMaxScratchBytes) return 0;
    std::unique_ptr<StreamScratch> scratch;
    try {
      scratch = std::make_unique<StreamScratch>(bytes, stream);
    } catch (const hola::error&) {
      (void)cudaGetLastError();  // out of memory: keep candidate 0
      return 0;
    }
    RowArgs<V, I, O> t = a;
    t.alpha = V(1);  // products of zero would skip the windows' flush
    V* x = scratch->as<V>();
    t.x = x;
    t.y_out = x + A.rows;
    t.y_in = t.y_out;  // never read: the scatters add to y_out
    fill_ones_kernel<V><<<grid_size(A.rows, 256, kMaxGridBlocks), 256, 0, stream>>>(x, A.rows);
    HOLA_CUDA_CHECK_LAUNCH("fill_ones_kernel");
    HOLA_CUDA_CHECK(
        cudaMemsetAsync(t.y_out, 0, static_cast<std::size_t>(A.cols) * sizeof(V), stream));
    const std::size_t n = candidates.size();
    std::vector<cudaEvent_t> events(2 * n * kWindowTrialTimedRounds, nullptr);
    auto run = [&](std::size_t c) {
      if (candidates[c].active())
        launch(candidates[c], t, stream);
      else
        plain(t);
    };
    std::vector<double> best(n, std::numeric_limits<double>::infinity());
    try {
      for (cudaEvent_t& e : events) HOLA_CUDA_CHECK(cudaEventCreate(&e));
      for (std::size_t c = 0; c < n; ++c) run(c);  // untimed: first touch, module loading
      for (int round = 0; round < kWindowTrialTimedRounds; ++round)
        for (std::size_t c = 0; c < n; ++c) {
          const std::size_t e = 2 * (round * n + c);
          HOLA_CUDA_CHECK(cudaEventRecord(events[e], stream));
          run(c);
          HOLA_CUDA_CHECK(cudaEventRecord(events[e + 1], stream));
        }
      HOLA_CUDA_CHECK(cudaStreamSynchronize(stream));
      for (int round = 0; round < kWindowTrialTimedRounds; ++round)
        for (std::size_t c = 0; c < n; ++c) {
          const std::size_t e = 2 * (round * n + c);
          float ms = 0;
          HOLA_CUDA_CHECK(cudaEventElapsedTime(&ms, events[e], events[e + 1]));
          best[c] = std::min(best[c], static_cast<double>(ms));
        }
    } catch (...) {
      for (cudaEvent_t e : events)
        if (e) cudaEventDestroy(e);
      throw;
    }
    for (cudaEvent_t e : events) cudaEventDestroy(e);
    return window_trial_winner(best, kWindowTrialMargin);
  }

  // Blocks of the window kernel the whole GPU holds at once with `slots` values of shared memory.
  std::int64_t resident_blocks(int slots) const {
    int per_sm = 0;
    HOLA_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, fn_, threads_, static_cast<std::size_t>(slots) * sizeof(V)));
    return std::int64_t(per_sm) * current_device_info().sm_count;
  }

  int mode_ = -1;
  int kib_ = 0;
  int width_ = kWarpSize;
  int threads_ = kDefaultThreadsPerBlock;
  bool planned_ = false;
  TransposeWindowPlan plan_;
  WindowScatterFn<V, I, O> fn_ = nullptr;
};

}  // namespace hola::cuda::rowwise
