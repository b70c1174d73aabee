// Row-wise CSR kernels with a static row assignment (seed 001 and CUSP's csr_vector):
//  - scalar: one thread per row. Good for very short rows; loads are not coalesced.
//  - vector: one warp (32 lanes) per row, coalesced loads, shuffle reduction. Good for long rows.
//  - vector_adaptive: Width = 2, 4, 8, 16 or 32 lanes per row, picked at setup from the mean
//    row length, about six entries a lane (see adaptive_lanes_per_row).
// Op N sums each row in a fixed order: bitwise reproducible. Op T scatters with atomicAdd into y
// pre-scaled by beta: not reproducible. On small matrices, and at every size in deterministic
// mode, op T is one gather launch over a column index instead (gather_transpose.cuh).
// Included by the instantiation files rowwise_*.cu only.
#pragma once

#include <memory>
#include <string>

#include "hola/gpu_kernels.hpp"
#include "rowwise/gather_transpose.cuh"
#include "rowwise/row_common.cuh"
#include "rowwise/window_scatter.cuh"

namespace hola::cuda::rowwise {

// One thread per row, grid-stride over the rows. OverlapTail (op N only): see strided_dot.
template <bool Transpose, bool OverlapTail, class V, class I, class O>
__global__ __launch_bounds__(kMaxThreadsPerBlock) void scalar_rows_kernel(RowArgs<V, I, O> a) {
  using U = std::make_unsigned_t<O>;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       row < a.rows; row += stride) {
    const U begin = static_cast<U>(load_ro(a.row_ptr + row));
    const U end = static_cast<U>(load_ro(a.row_ptr + row + 1));
    if constexpr (Transpose) {
      if (begin < end) {
        const V scaled_x = a.alpha * load_ro(a.x + row);
        for (U j = begin; j < end; ++j)
          atomicAdd(a.y_out + load_ro(a.col_idx + j), load_ro(a.values + j) * scaled_x);
      }
    } else {
      write_row(a, row, strided_dot<1, OverlapTail>(a, begin, end, V(0)));
    }
  }
}

// One vector of Width lanes per row, grid-stride over the rows (VectorGrid). CombineColumns: op
// T's products combined per column across the warp before the atomics (vector_process_row).
template <int Width, bool Transpose, bool CombineColumns, bool Predicated, class V, class I,
          class O>
__global__ __launch_bounds__(kMaxThreadsPerBlock) void vector_rows_kernel(RowArgs<V, I, O> a) {
  const VectorGrid<Width> g;
  for (std::int64_t first = g.warp_first; first < a.rows; first += g.stride) {
    const std::int64_t row = first + g.vector_in_warp;
    vector_process_row<Width, Transpose, CombineColumns, Predicated>(a, row, row < a.rows, g.lane,
                                                                     kFullWarpMask);
  }
}

template <bool Transpose, bool CombineColumns, class V, class I, class O>
RowKernelFn<V, I, O> vector_rows_fn(int width, bool predicated = false) {
  return with_lanes_per_row(
      width, "vector kernel", [predicated](auto lanes) -> RowKernelFn<V, I, O> {
        constexpr int kWidth = decltype(lanes)::value;
        // At 32 lanes a warp step holds one row, whose columns are distinct (or repeated within the
        // row): there is nothing to combine across rows.
        constexpr bool kCombine = CombineColumns && kWidth != kWarpSize;
        if constexpr (!Transpose)
          if (predicated) return vector_rows_kernel<kWidth, false, false, true, V, I, O>;
        return vector_rows_kernel<kWidth, Transpose, kCombine, false, V, I, O>;
      });
}

// Whether op N at this width runs predicated_dot (KernelOptions::predicated_row_steps; -1: below
// 32 lanes where the rows hold at least one entry a lane on average). Measured on an H200 over
// 105 matrices (bench/results/2026-11-29-session25/, runs A and B): 1.07x vector-adaptive's op N
// by geometric mean; at 32 lanes (`vector`) 0.88x in double, and on rows of one entry at two
// lanes 0.86x (half the lanes idle through four predicated steps).
inline bool predicated_row_steps(int option, int width, std::int64_t rows, std::int64_t nnz) {
  if (option >= 0) return option == 1;
  return width < kWarpSize && mean_row_length(rows, nnz) >= width;
}

// Matrices whose rows hold at most this many entries on average take `scalar`'s op N with the
// overlapped tail (strided_dot); measured on an H100 (bench/results/2026-11-27-h100-scalar-tail-*).
constexpr std::int64_t kScalarShortRowMean = 8;

template <class V, class I, class O>
class ScalarKernel final : public RowKernelBase<V, I, O> {
  using Base = RowKernelBase<V, I, O>;

 public:
  explicit ScalarKernel(const KernelOptions& options) : Base(options, "scalar") {
    this->deterministic_transpose_ = true;  // the column gather
  }

  void setup(const CsrView<V, I, O>& A, void* /*stream*/) override {
    this->take_view(A);
    grid_ = grid_size(A.rows, this->threads_per_block_, kMaxGridBlocks);
    short_rows_ = A.nnz <= kScalarShortRowMean * A.rows;
    gather_.setup(A, this->options_, this->threads_per_block_);
    this->ready_ = true;
  }

  std::size_t workspace_bytes() const override { return gather_.bytes(); }

  void apply(Op op, V alpha, const V* x, V beta, const V* y_in, V* y_out, void* stream) override {
    this->check_apply(op, x, beta, y_in, y_out);
    const cudaStream_t s = as_stream(stream);
    const auto& A = this->A_;
    const RowArgs<V, I, O> a = this->args(alpha, x, beta, y_in, y_out);
    if (op == Op::N) {
      if (A.rows == 0) return;
      if (short_rows_)
        scalar_rows_kernel<false, true, V, I, O><<<grid_, this->threads_per_block_, 0, s>>>(a);
      else
        scalar_rows_kernel<false, false, V, I, O><<<grid_, this->threads_per_block_, 0, s>>>(a);
      HOLA_CUDA_CHECK_LAUNCH("scalar_rows_kernel<N>");
    } else {
      if (A.cols == 0) return;
      if (gather_.active()) return gather_.apply(A, alpha, x, beta, y_in, y_out, s);
      this->refuse_scatter_if_deterministic();
      this->scale_transpose_output(beta, y_in, y_out, nullptr, s);
      if (A.rows == 0 || A.nnz == 0) return;
      scalar_rows_kernel<true, false, V, I, O><<<grid_, this->threads_per_block_, 0, s>>>(a);
      HOLA_CUDA_CHECK_LAUNCH("scalar_rows_kernel<T>");
    }
  }

 private:
  unsigned grid_ = 1;
  bool short_rows_ = false;  // op N with the overlapped tail (kScalarShortRowMean)
  GatherTranspose<V, I, O> gather_;
};

// lanes_per_row: 32 for "vector", 0 to pick it at setup (adaptive_lanes_per_row), or forced.
template <class V, class I, class O>
class VectorKernel final : public RowKernelBase<V, I, O> {
  using Base = RowKernelBase<V, I, O>;

 public:
  VectorKernel(const KernelOptions& options, std::string name, int lanes_per_row)
      : Base(options, std::move(name)), forced_width_(lanes_per_row) {
    this->deterministic_transpose_ = true;  // the column gather
    if (forced_width_ == 0) forced_width_ = options.lanes_per_row;
    if (forced_width_ != 0 && !valid_lanes_per_row(forced_width_))
      fail(status::invalid_argument, this->name_ +
                                         ": lanes per row must be 0, 2, 4, 8, 16 or 32, got " +
                                         std::to_string(forced_width_));
    if (options.transpose_combine < -1 || options.transpose_combine > 1)
      fail(status::invalid_argument, this->name_ + ": transpose_combine must be -1, 0 or 1, got " +
                                         std::to_string(options.transpose_combine));
    if (options.predicated_row_steps < -1 || options.predicated_row_steps > 1)
      fail(status::invalid_argument, this->name_ +
                                         ": predicated_row_steps must be -1, 0 or 1, got " +
                                         std::to_string(options.predicated_row_steps));
    if (options.transpose_window < -1 || options.transpose_window > 1)
      fail(status::invalid_argument, this->name_ + ": transpose_window must be -1, 0 or 1, got " +
                                         std::to_string(options.transpose_window));
    if (options.transpose_window_kib < 0 || options.transpose_window_kib > 96)
      fail(status::invalid_argument, this->name_ +
                                         ": transpose_window_kib must be 0 (timed) to 96, got " +
                                         std::to_string(options.transpose_window_kib));
  }

  void setup(const CsrView<V, I, O>& A, void* /*stream*/) override {
    this->take_view(A);
    width_ = forced_width_ != 0 ? forced_width_ : adaptive_lanes_per_row(A.rows, A.nnz);
    combine_ = width_ < kWarpSize && this->options_.transpose_combine == 1;
    n_fn_ = vector_rows_fn<false, false, V, I, O>(
        width_, predicated_row_steps(this->options_.predicated_row_steps, width_, A.rows, A.nnz));
    t_fn_ = combine_ ? vector_rows_fn<true, true, V, I, O>(width_)
                     : vector_rows_fn<true, false, V, I, O>(width_);
    grid_ = grid_size(A.rows, this->threads_per_block_ / width_, kMaxGridBlocks);
    gather_.setup(A, this->options_, this->threads_per_block_);
    // The combined scatter, when asked for, is what runs outside the gather.
    windows_.setup(combine_ ? 0 : this->options_.transpose_window,
                   this->options_.transpose_window_kib, width_, this->threads_per_block_);
    this->ready_ = true;
  }

  std::size_t workspace_bytes() const override { return gather_.bytes(); }

  std::string tuning(Op op) const override {
    if (!this->ready_) return {};
    if (op == Op::T && gather_.active()) return "column gather";
    std::string windows;
    if (op == Op::T && windows_.plan().active()) {
      const TransposeWindowPlan& w = windows_.plan();
      windows = ", " + std::to_string(w.count) + (w.count == 1 ? " window, " : " windows, ") +
                std::to_string(w.slots) + " columns a tile of " + std::to_string(w.tile_rows) +
                " rows";
    }
    return std::to_string(width_) + " lanes per row" +
           (op == Op::T && combine_ ? ", columns combined" : "") + windows;
  }

  void apply(Op op, V alpha, const V* x, V beta, const V* y_in, V* y_out, void* stream) override {
    this->check_apply(op, x, beta, y_in, y_out);
    const cudaStream_t s = as_stream(stream);
    const auto& A = this->A_;
    const RowArgs<V, I, O> a = this->args(alpha, x, beta, y_in, y_out);
    if (op == Op::N) {
      if (A.rows == 0) return;
      n_fn_<<<grid_, this->threads_per_block_, 0, s>>>(a);
      HOLA_CUDA_CHECK_LAUNCH("vector_rows_kernel<N>");
    } else {
      if (A.cols == 0) return;
      if (gather_.active()) return gather_.apply(A, alpha, x, beta, y_in, y_out, s);
      this->refuse_scatter_if_deterministic();
      auto plain_scatter = [&](const RowArgs<V, I, O>& args) {
        t_fn_<<<grid_, this->threads_per_block_, 0, s>>>(args);
        HOLA_CUDA_CHECK_LAUNCH("vector_rows_kernel<T>");
      };
      const bool windows = A.rows > 0 && A.nnz > 0 && windows_.ready(A, a, plain_scatter, s);
      this->scale_transpose_output(beta, y_in, y_out, nullptr, s);
      if (A.rows == 0 || A.nnz == 0) return;
      if (windows) return windows_.apply(a, s);
      plain_scatter(a);
    }
  }

 private:
  TransposeWindows<V, I, O> windows_;  // op T through shared-memory windows (banded structure)
  int forced_width_ = 0;
  int width_ = kWarpSize;
  bool combine_ = false;  // op T scatter with the products combined per column (CombineColumns)
  RowKernelFn<V, I, O> n_fn_ = nullptr;
  RowKernelFn<V, I, O> t_fn_ = nullptr;
  unsigned grid_ = 1;
  GatherTranspose<V, I, O> gather_;
};

}  // namespace hola::cuda::rowwise

namespace hola::gpu {

template <class V, class I, class O>
SpmvKernelPtr<V, I, O> make_scalar(const KernelOptions& options) {
  return std::make_unique<cuda::rowwise::ScalarKernel<V, I, O>>(options);
}

template <class V, class I, class O>
SpmvKernelPtr<V, I, O> make_vector(const KernelOptions& options) {
  return std::make_unique<cuda::rowwise::VectorKernel<V, I, O>>(options, "vector", cuda::kWarpSize);
}

template <class V, class I, class O>
SpmvKernelPtr<V, I, O> make_vector_adaptive(const KernelOptions& options) {
  return std::make_unique<cuda::rowwise::VectorKernel<V, I, O>>(options, "vector-adaptive", 0);
}

template <class V, class I, class O>
SpmvKernelPtr<V, I, O> make_vector_adaptive_forced(const KernelOptions& options,
                                                   int lanes_per_row) {
  if (lanes_per_row == 0) return make_vector_adaptive<V, I, O>(options);
  // The constructor checks the width.
  return std::make_unique<cuda::rowwise::VectorKernel<V, I, O>>(
      options, "vector_adaptive_" + std::to_string(lanes_per_row), lanes_per_row);
}

template <class V, class I, class O>
std::vector<std::pair<std::int64_t, std::int64_t>> window_plan_sample(const CsrView<V, I, O>& A,
                                                                      bool on_gpu,
                                                                      std::int64_t& sampled_rows,
                                                                      void* stream) {
  // Exactly the path asked for (the kernels' own fallback, sample_diagonal_offsets, would hide a
  // GPU sample that could not be taken from a test comparing the two).
  const cudaStream_t s = cuda::as_stream(stream);
  std::vector<cuda::rowwise::DiagonalCount> h;
  sampled_rows = 0;
  if (A.rows > 0 && !on_gpu) h = cuda::rowwise::sample_on_host(A, s, sampled_rows);
  if (A.rows > 0 && on_gpu && !cuda::rowwise::sample_on_gpu(A, s, sampled_rows, h))
    fail(status::out_of_memory, "window_plan_sample: no scratch memory for the GPU sample");
  std::vector<std::pair<std::int64_t, std::int64_t>> counts;
  for (const auto& d : h) counts.emplace_back(d.offset, d.count);
  return counts;
}

}  // namespace hola::gpu

// Explicit instantiation of the four factories and the window plan's sample for one type
// combination (inside hola::gpu).
#define HOLA_ROWWISE_INSTANTIATE(V, I, O)                                                          \
  template SpmvKernelPtr<V, I, O> make_scalar<V, I, O>(const KernelOptions&);                      \
  template SpmvKernelPtr<V, I, O> make_vector<V, I, O>(const KernelOptions&);                      \
  template SpmvKernelPtr<V, I, O> make_vector_adaptive<V, I, O>(const KernelOptions&);             \
  template SpmvKernelPtr<V, I, O> make_vector_adaptive_forced<V, I, O>(const KernelOptions&, int); \
  template std::vector<std::pair<std::int64_t, std::int64_t>> window_plan_sample<V, I, O>(         \
      const CsrView<V, I, O>&, bool, std::int64_t&, void*);
