// LightSpMV (seed 002, Liu & Schmidt 2015): CSR SpMV with rows handed out dynamically.
//
// A persistent grid (as many blocks as can be resident at once) takes rows from one global
// atomic row counter until none are left, so long rows do not stall a statically assigned
// block. A warp is split into vectors of Width = 2, 4, 8 or 32 lanes; a vector computes one row
// at a time (coalesced loads, shuffle reduction). Two ways of taking rows:
//  - vector-level: lane 0 of each vector takes one row per atomicAdd;
//  - warp-level: lane 0 of each warp takes 32 / Width consecutive rows per atomicAdd, one per
//    vector, and broadcasts the first with a shuffle. Beyond the paper, a take may cover
//    `rounds` such groups (rounds x 32 / Width rows, done one group after the other): on an
//    H200 the one counter serves about one atomic per nanosecond, which bounds the paper's
//    variant (rounds = 1) on matrices of millions of short rows (2 M rows of 7: 0.16 ms with
//    rounds = 1, 0.084 ms with 16).
// The counter is reset on the caller's stream before every apply (a memset for op N; the op T
// pre-scaling pass resets it on the way).
//
// Choices made at setup (all can be forced through make_light_forced):
//  - Width from the mean row length m = nnz / rows: m <= 8: 2 lanes, m <= 16: 4, m <= 64: 8,
//    otherwise 32. A first cut from a few H200 runs (m = 2, 7, 22, 200 were fastest at 2, 2, 8
//    and 32 lanes); the paper's K40 rule was 2 / 4 / 8 / 32 for m <= 2 / 4 / 64 / more.
//    Narrow vectors keep more rows in flight per warp, which wins until rows take many steps.
//  - Distribution: warp-level (one atomic per take instead of one per row per vector).
//  - Rounds per take: about 768 nonzeros per take (H200: 2 M rows of 7, 4 M of 2, 1 M of 22,
//    100 k of 200 all near their best there), at most 16, and at least two takes per resident
//    warp so the distribution still balances (light_rounds_per_take).
//
// Op N: each row summed by one vector in a fixed order, so bitwise reproducible whatever order
// the rows are taken in. Op T: the same row distribution; each lane adds alpha a_ij x_i into
// y_out[j] with atomicAdd after a pass y_out = beta y_in. Not reproducible, hence not offered
// when options.deterministic is set.
//
// Like every row-per-vector kernel, a row is done by one vector: a few rows of 10^5 nonzeros
// or more (circuit-like, power law) leave the last vectors working long after the rest.
//
// One kernel object holds one counter: it must not run two applies concurrently (on two
// streams), like every kernel that holds a workspace.
// Included by the instantiation files light_*.cu only.
#pragma once

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "hola/gpu_kernels.hpp"
#include "rowwise/row_common.cuh"

namespace hola::cuda::light {

using rowwise::kMaxThreadsPerBlock;
using rowwise::RowArgs;
using rowwise::RowKernelFn;

// Vector-level: every vector runs its own loop; its shuffles name only its own lanes, so the
// vectors of one warp may take different numbers of rows.
template <int Width, bool Transpose, class V, class I, class O>
__global__ __launch_bounds__(kMaxThreadsPerBlock) void light_vector_kernel(RowArgs<V, I, O> a) {
  const int lane_in_warp = static_cast<int>(threadIdx.x % kWarpSize);
  const int lane = lane_in_warp % Width;
  const unsigned mask = rowwise::vector_lane_mask<Width>(lane_in_warp);
  const unsigned long long rows = static_cast<unsigned long long>(a.rows);
  unsigned long long taken = 0;
  if (lane == 0) taken = atomicAdd(a.row_counter, 1ull);
  unsigned long long row = __shfl_sync(mask, taken, 0, Width);
  while (row < rows) {
    rowwise::vector_process_row<Width, Transpose>(a, static_cast<std::int64_t>(row), true, lane,
                                                  mask);
    if (lane == 0) taken = atomicAdd(a.row_counter, 1ull);
    row = __shfl_sync(mask, taken, 0, Width);
  }
}

// Warp-level: the loop runs per warp on `first` (the same in all lanes), so every full-warp
// shuffle sees all 32 lanes; vectors whose row is past the end only take part.
template <int Width, bool Transpose, class V, class I, class O>
__global__ __launch_bounds__(kMaxThreadsPerBlock) void light_warp_kernel(RowArgs<V, I, O> a) {
  constexpr unsigned long long kRowsPerRound = kWarpSize / Width;
  const int rounds = a.rounds_per_take;
  const unsigned long long rows_per_take = kRowsPerRound * static_cast<unsigned>(rounds);
  const int lane_in_warp = static_cast<int>(threadIdx.x % kWarpSize);
  const int lane = lane_in_warp % Width;
  const unsigned long long vector_in_warp = static_cast<unsigned>(lane_in_warp / Width);
  const unsigned long long rows = static_cast<unsigned long long>(a.rows);
  unsigned long long taken = 0;
  if (lane_in_warp == 0) taken = atomicAdd(a.row_counter, rows_per_take);
  unsigned long long first = __shfl_sync(kFullWarpMask, taken, 0);
  while (first < rows) {
    for (int round = 0; round < rounds; ++round) {
      const unsigned long long round_first = first + round * kRowsPerRound;
      if (round_first >= rows) break;  // same in every lane
      const unsigned long long row = round_first + vector_in_warp;
      rowwise::vector_process_row<Width, Transpose>(a, static_cast<std::int64_t>(row), row < rows,
                                                    lane, kFullWarpMask);
    }
    if (lane_in_warp == 0) taken = atomicAdd(a.row_counter, rows_per_take);
    first = __shfl_sync(kFullWarpMask, taken, 0);
  }
}

template <bool Transpose, class V, class I, class O>
RowKernelFn<V, I, O> light_kernel_fn(gpu::LightDistribution distribution, int width) {
  const bool warp = distribution == gpu::LightDistribution::warp;
  switch (width) {
    case 2:
      return warp ? light_warp_kernel<2, Transpose, V, I, O>
                  : light_vector_kernel<2, Transpose, V, I, O>;
    case 4:
      return warp ? light_warp_kernel<4, Transpose, V, I, O>
                  : light_vector_kernel<4, Transpose, V, I, O>;
    case 8:
      return warp ? light_warp_kernel<8, Transpose, V, I, O>
                  : light_vector_kernel<8, Transpose, V, I, O>;
    case 32:
      return warp ? light_warp_kernel<32, Transpose, V, I, O>
                  : light_vector_kernel<32, Transpose, V, I, O>;
    default:
      fail(status::internal, "light: unexpected vector width " + std::to_string(width));
  }
}

// Lanes per row from the mean row length (see the top of this file).
inline int light_vector_width(std::int64_t rows, std::int64_t nnz) {
  const double mean = rowwise::mean_row_length(rows, nnz);
  if (mean <= 8) return 2;
  if (mean <= 16) return 4;
  if (mean <= 64) return 8;
  return 32;
}

constexpr int kMaxRoundsPerTake = 16;

// Rounds of 32 / width rows per take of the warp-level variant (see the top of this file).
inline int light_rounds_per_take(std::int64_t rows, std::int64_t nnz, int width,
                                 std::int64_t resident_warps) {
  constexpr double kNonzerosPerTake = 768;
  const double rows_per_round = kWarpSize / width;
  const double nonzeros_per_round =
      std::max(1.0, rowwise::mean_row_length(rows, nnz) * rows_per_round);
  const double by_nonzeros = kNonzerosPerTake / nonzeros_per_round;
  const double by_balance = static_cast<double>(rows) / rows_per_round /
                            (2.0 * std::max<std::int64_t>(1, resident_warps));
  const double rounds = std::floor(std::min(by_nonzeros, by_balance));
  return static_cast<int>(std::clamp(rounds, 1.0, double(kMaxRoundsPerTake)));
}

template <class V, class I, class O>
class LightKernel final : public rowwise::RowKernelBase<V, I, O> {
  using Base = rowwise::RowKernelBase<V, I, O>;

 public:
  LightKernel(const KernelOptions& options, std::string name,
              gpu::LightDistribution forced_distribution, int forced_width, int forced_rounds)
      : Base(options, std::move(name)),
        forced_distribution_(forced_distribution),
        forced_width_(forced_width),
        forced_rounds_(forced_rounds) {}

  void setup(const CsrView<V, I, O>& A, void* /*stream*/) override {
    this->take_view(A);
    width_ = forced_width_ != 0 ? forced_width_ : light_vector_width(A.rows, A.nnz);
    distribution_ = forced_distribution_ != gpu::LightDistribution::automatic
                        ? forced_distribution_
                        : gpu::LightDistribution::warp;
    n_fn_ = light_kernel_fn<false, V, I, O>(distribution_, width_);
    t_fn_ = light_kernel_fn<true, V, I, O>(distribution_, width_);
    const std::int64_t n_resident = resident_blocks(n_fn_);
    const std::int64_t t_resident = resident_blocks(t_fn_);
    rounds_ = 1;
    if (distribution_ == gpu::LightDistribution::warp) {
      const std::int64_t resident_warps = n_resident * (this->threads_per_block_ / kWarpSize);
      rounds_ = forced_rounds_ != 0 ? forced_rounds_
                                    : light_rounds_per_take(A.rows, A.nnz, width_, resident_warps);
    }
    // No more blocks than the rows can keep busy (a vector takes rounds_ rows at a time).
    const std::int64_t rows_per_block = std::int64_t(this->threads_per_block_ / width_) * rounds_;
    n_grid_ = rowwise::grid_size(A.rows, rows_per_block, n_resident);
    t_grid_ = rowwise::grid_size(A.rows, rows_per_block, t_resident);
    row_counter_.resize(sizeof(unsigned long long));
    this->ready_ = true;
  }

  std::size_t workspace_bytes() const override { return row_counter_.bytes(); }

  void apply(Op op, V alpha, const V* x, V beta, const V* y_in, V* y_out, void* stream) override {
    this->check_apply(op, x, beta, y_in, y_out);
    const cudaStream_t s = as_stream(stream);
    const auto& A = this->A_;
    auto* counter = row_counter_.as<unsigned long long>();
    const RowArgs<V, I, O> a = this->args(alpha, x, beta, y_in, y_out, counter, rounds_);
    const int threads = this->threads_per_block_;
    if (op == Op::N) {
      if (A.rows == 0) return;
      HOLA_CUDA_CHECK(cudaMemsetAsync(counter, 0, sizeof(unsigned long long), s));
      n_fn_<<<n_grid_, threads, 0, s>>>(a);
      HOLA_CUDA_CHECK_LAUNCH("light<N>");
    } else {
      if (A.cols == 0) return;
      const bool counter_reset = this->scale_transpose_output(beta, y_in, y_out, counter, s);
      if (A.rows == 0 || A.nnz == 0) return;
      if (!counter_reset)
        HOLA_CUDA_CHECK(cudaMemsetAsync(counter, 0, sizeof(unsigned long long), s));
      t_fn_<<<t_grid_, threads, 0, s>>>(a);
      HOLA_CUDA_CHECK_LAUNCH("light<T>");
    }
  }

 private:
  // Blocks of this kernel resident at once on the whole device.
  std::int64_t resident_blocks(RowKernelFn<V, I, O> fn) const {
    const int threads = this->threads_per_block_;
    int blocks_per_sm = 0;
    HOLA_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, fn, threads, 0));
    if (blocks_per_sm < 1)
      fail(status::invalid_argument,
           this->name_ + ": no block of " + std::to_string(threads) + " threads fits on an SM");
    return std::int64_t(blocks_per_sm) * std::max(1, this->sm_count_);
  }

  gpu::LightDistribution forced_distribution_;
  int forced_width_;
  int forced_rounds_;
  int rounds_ = 1;
  gpu::LightDistribution distribution_ = gpu::LightDistribution::warp;
  int width_ = 8;
  RowKernelFn<V, I, O> n_fn_ = nullptr;
  RowKernelFn<V, I, O> t_fn_ = nullptr;
  unsigned n_grid_ = 1;
  unsigned t_grid_ = 1;
  DeviceBuffer row_counter_;
};

}  // namespace hola::cuda::light

namespace hola::gpu {

template <class V, class I, class O>
SpmvKernelPtr<V, I, O> make_light(const KernelOptions& options) {
  return std::make_unique<cuda::light::LightKernel<V, I, O>>(options, "light",
                                                             LightDistribution::automatic, 0, 0);
}

template <class V, class I, class O>
SpmvKernelPtr<V, I, O> make_light_forced(const KernelOptions& options,
                                         LightDistribution distribution, int vector_width,
                                         int rounds_per_take) {
  if (vector_width != 0 && vector_width != 2 && vector_width != 4 && vector_width != 8 &&
      vector_width != 32)
    fail(status::invalid_argument,
         "light: vector width must be 0, 2, 4, 8 or 32, got " + std::to_string(vector_width));
  if (rounds_per_take < 0 || rounds_per_take > cuda::light::kMaxRoundsPerTake)
    fail(status::invalid_argument, "light: rounds per take must be in [0, " +
                                       std::to_string(cuda::light::kMaxRoundsPerTake) + "], got " +
                                       std::to_string(rounds_per_take));
  if (rounds_per_take > 1 && distribution == LightDistribution::vector)
    fail(status::invalid_argument, "light: rounds per take apply to the warp-level variant only");
  std::string name = "light";
  if (distribution == LightDistribution::vector) name += "_vector";
  if (distribution == LightDistribution::warp) name += "_warp";
  if (vector_width != 0) name += "_" + std::to_string(vector_width);
  if (rounds_per_take != 0) name += "_r" + std::to_string(rounds_per_take);
  return std::make_unique<cuda::light::LightKernel<V, I, O>>(options, std::move(name), distribution,
                                                             vector_width, rounds_per_take);
}

}  // namespace hola::gpu

// Explicit instantiation of the light factories for one type combination (inside hola::gpu).
#define HOLA_LIGHT_INSTANTIATE(V, I, O)                                            \
  template SpmvKernelPtr<V, I, O> make_light<V, I, O>(const KernelOptions&);       \
  template SpmvKernelPtr<V, I, O> make_light_forced<V, I, O>(const KernelOptions&, \
                                                             LightDistribution, int, int);
