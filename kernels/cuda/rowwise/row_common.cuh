// Building blocks shared by the row-oriented GPU kernels (rowwise/: scalar, vector, adaptive
// vector; light/: LightSpMV): a row's dot product or scatter done by a "vector" of Width lanes,
// shuffle reductions, the output pre-scaling pass of op T, and the host-side base class that
// holds the view and checks arguments. Internal header, not installed.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "common/cuda_utils.cuh"
#include "common/scale_output.cuh"
#include "hola/spmv_kernel.hpp"

namespace hola::cuda::rowwise {

// kWarpSize, kFullWarpMask: common/cuda_utils.cuh.
// Every row kernel is compiled for blocks of up to 1024 threads (at most 64 registers a thread)
// so that options.threads_per_block can pick any multiple of 32.
constexpr int kMaxThreadsPerBlock = 1024;
constexpr int kDefaultThreadsPerBlock = 256;

// Everything a row kernel reads, passed by value (one kernel signature for every variant, so
// setup can keep a plain function pointer to the chosen instantiation).
template <class V, class I, class O>
struct RowArgs {
  std::int64_t rows;
  const O* row_ptr;
  const I* col_idx;
  const V* values;
  const V* x;
  const V* y_in;  // may equal y_out; never read when beta == 0
  V* y_out;
  V alpha;
  V beta;
  unsigned long long* row_counter;  // light only: next row to hand out
  int rounds_per_take;              // light warp-level only: rounds of 32 / Width rows per take
};

template <class V, class I, class O>
using RowKernelFn = void (*)(RowArgs<V, I, O>);

// Read-only path for data that no thread writes during the kernel (matrix, x; x never aliases
// y_out by contract).
template <class T>
__device__ __forceinline__ T load_ro(const T* p) {
  return __ldg(p);
}

// A grid of vectors of Width lanes, grid-stride over items (rows, or columns): this thread's lane
// in its vector, its vector in the warp, the warp's first vector (its first item) and the grid's
// stride in vectors. Loops run per warp (the warp's first item is the same for all 32 lanes), so
// full-warp shuffles always see every lane; vectors past the last item just take part.
template <int Width>
struct VectorGrid {
  int lane;
  int vector_in_warp;
  std::int64_t warp_first;
  std::int64_t stride;

  __device__ __forceinline__ VectorGrid() {
    const int lane_in_warp = static_cast<int>(threadIdx.x % kWarpSize);
    lane = lane_in_warp % Width;
    vector_in_warp = lane_in_warp / Width;
    warp_first =
        (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + (threadIdx.x - lane_in_warp)) / Width;
    stride = static_cast<std::int64_t>(gridDim.x) * (blockDim.x / Width);
  }
};

// Lanes of the vector holding lane_in_warp (Width consecutive, aligned lanes of the warp): the
// mask of the vector's own shuffles when vectors of one warp run apart.
template <int Width>
__device__ __forceinline__ unsigned vector_lane_mask(int lane_in_warp) {
  if constexpr (Width == kWarpSize)
    return kFullWarpMask;
  else
    return ((1u << Width) - 1u) << (lane_in_warp & ~(Width - 1));
}

// One round of Unroll steps from j, each behind its own bound: the values and indices of the
// steps in range load together, then their x entries, then the additions in step order. A step
// past `last` loads nothing and adds nothing (not 0 * x: an infinite x there must not turn the
// sum into NaN).
template <int Step, int Unroll, class V, class I, class O, class U>
__device__ __forceinline__ V predicated_round(const RowArgs<V, I, O>& a, U j, U last, V sum) {
  bool in[Unroll];
  V value[Unroll];
  I col[Unroll];
#pragma unroll
  for (int k = 0; k < Unroll; ++k) {
    in[k] = j + static_cast<U>(k * Step) < last;
    value[k] = in[k] ? load_ro(a.values + j + k * Step) : V(0);
    col[k] = in[k] ? load_ro(a.col_idx + j + k * Step) : I(0);
  }
  V xv[Unroll];
#pragma unroll
  for (int k = 0; k < Unroll; ++k) xv[k] = in[k] ? load_ro(a.x + col[k]) : V(0);
#pragma unroll
  for (int k = 0; k < Unroll; ++k)
    if (in[k]) sum += value[k] * xv[k];
  return sum;
}

// sum + the products a_j x_col(j) for j = j0, j0 + Step, ... < last, added in that order. Four
// steps at a time load their values and indices first, then the x entries, then add: the loads
// are in flight together, the order of the additions (so the result) does not change.
// OverlapTail: the last (at most three) steps load together as well (one predicated_round).
// It pays where rows are mostly tail (7-point rows are 4 + 3 steps: 95 -> 98 % of the floor for
// `scalar` on Poisson 200^3, H100) and costs where they are not (`scalar` 0.7-0.9x on rows of
// 22-81 entries, `vector` 0.9x on Poisson; measured, not profiled), so only `scalar` on matrices
// of short rows uses it (kScalarShortRowMean).
template <int Step, bool OverlapTail, class V, class I, class O, class U>
__device__ __forceinline__ V strided_dot(const RowArgs<V, I, O>& a, U j, U last, V sum) {
  constexpr int kUnroll = 4;
  for (; j + static_cast<U>((kUnroll - 1) * Step) < last; j += kUnroll * Step) {
    V value[kUnroll];
    I col[kUnroll];
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) {
      value[k] = load_ro(a.values + j + k * Step);
      col[k] = load_ro(a.col_idx + j + k * Step);
    }
    V xv[kUnroll];
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) xv[k] = load_ro(a.x + col[k]);
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) sum += value[k] * xv[k];
  }
  if constexpr (OverlapTail) {
    sum = predicated_round<Step, kUnroll - 1>(a, j, last, sum);
  } else {
    // At most three steps left, one after the other.
#pragma unroll 1
    for (; j < last; j += Step)
      sum += load_ro(a.values + j) * load_ro(a.x + load_ro(a.col_idx + j));
  }
  return sum;
}

// strided_dot with every step behind its own bound: rounds of Unroll steps (predicated_round),
// each with all its loads in flight together, until the lane's share is done. The same
// additions in the same order as strided_dot (a step past the end adds nothing, not 0 * x), so
// the same bits. Where a lane holds a handful of entries, strided_dot runs most of them one
// after the other in its tail (27-point rows at 4 lanes: one unrolled round, then three single
// steps); here they take two rounds. On an H200 that took vector-adaptive's op N from 72-78 to
// 80-82 % of the floor on the 27-point stencil 128^3 and from 64-75 to 82-84 % on Poisson 200^3
// (bench/results/2026-11-29-session25/). Loads evict-first (__ldcs) there lost up to 43 %: a
// lane's sectors are shared with the next round and the neighbouring rows.
template <int Step, int Unroll, class V, class I, class O, class U>
__device__ __forceinline__ V predicated_dot(const RowArgs<V, I, O>& a, U j, U last, V sum) {
  for (; j < last; j += static_cast<U>(Unroll * Step))
    sum = predicated_round<Step, Unroll>(a, j, last, sum);
  return sum;
}

// Lane `lane` of a vector of Width lanes: its share of row [begin, end) of A times x, summed in
// a fixed order (elements lane, lane + Width, ...), by strided_dot or, Predicated, by
// predicated_dot (the same bits). Offsets are walked as unsigned so that j + Width cannot overflow
// a signed 32-bit offset near 2^31.
template <int Width, bool Predicated = false, class V, class I, class O>
__device__ __forceinline__ V vector_row_partial(const RowArgs<V, I, O>& a, O begin, O end,
                                                int lane) {
  using U = std::make_unsigned_t<O>;
  const U first = static_cast<U>(begin);
  const U last = static_cast<U>(end);
  V sum = V(0);
  U j;
  if constexpr (Width == kWarpSize) {
    // Whole warp on one row: start on a 32-element boundary so every later warp-wide load
    // touches the fewest sectors; the first step skips the lanes before the row.
    j = (first & ~static_cast<U>(Width - 1)) + static_cast<U>(lane);
    if (j >= first && j < last) sum = load_ro(a.values + j) * load_ro(a.x + load_ro(a.col_idx + j));
    j += Width;
  } else {
    j = first + static_cast<U>(lane);
  }
  if constexpr (Predicated)
    return predicated_dot<Width, 4>(a, j, last, sum);
  else
    return strided_dot<Width, false>(a, j, last, sum);
}

// Sum over the Width lanes of each vector; lane 0 of the vector gets the total. Fixed tree:
// deterministic. `mask` names the lanes taking part (the vector, or the whole warp).
template <int Width, class V>
__device__ __forceinline__ V vector_reduce(V sum, unsigned mask) {
#pragma unroll
  for (int offset = Width / 2; offset > 0; offset /= 2)
    sum += __shfl_down_sync(mask, sum, offset, Width);
  return sum;
}

// Row [begin, end) for every lane of the vector: lanes 0 and 1 load one offset each (inactive
// vectors load nothing and get an empty range).
template <int Width, class O>
__device__ __forceinline__ void vector_row_bounds(const O* row_ptr, std::int64_t row, bool active,
                                                  int lane, unsigned mask, O& begin, O& end) {
  static_assert(Width >= 2, "a vector needs two lanes to load the row bounds");
  O bound = O(0);
  if (active && lane < 2) bound = load_ro(row_ptr + row + lane);
  begin = __shfl_sync(mask, bound, 0, Width);
  end = __shfl_sync(mask, bound, 1, Width);
}

// y_out[row] = alpha * sum + beta * y_in[row]; y_in is not read when beta == 0 (BLAS).
template <class V, class I, class O>
__device__ __forceinline__ void write_row(const RowArgs<V, I, O>& a, std::int64_t row, V sum) {
  V out = a.alpha * sum;
  if (a.beta != V(0)) out += a.beta * a.y_in[row];
  a.y_out[row] = out;
}

// Op T, one row by one vector: y_out[col] += a_ij * (alpha x_row) with atomics (y_out was
// pre-scaled by beta). Not deterministic: the order of the atomic additions varies.
template <int Width, class V, class I, class O>
__device__ __forceinline__ void vector_row_scatter(const RowArgs<V, I, O>& a, std::int64_t row,
                                                   O begin, O end, int lane) {
  using U = std::make_unsigned_t<O>;
  if (begin >= end) return;
  const V scaled_x = a.alpha * load_ro(a.x + row);
  const U last = static_cast<U>(end);
  for (U j = static_cast<U>(begin) + static_cast<U>(lane); j < last; j += Width)
    atomicAdd(a.y_out + load_ro(a.col_idx + j), load_ro(a.values + j) * scaled_x);
}

// vector_row_scatter for a whole warp of 32 / Width rows, where lanes of one step that add into
// the same column first sum their products (the lowest such lane adds the sum, the others add
// nothing): one atomic per distinct column of the step instead of one per nonzero. It can pay
// only where neighbouring rows share columns, and costs a match and votes per step: on an H200 it
// was 0.78x the plain scatter over 36 cases, ahead only at 8 lanes on block rows in double
// (bench/results/2026-11-28-session13/, run A), where `inode` does better. So it runs only when
// asked for (KernelOptions::transpose_combine). Every lane of the warp must call it; the step
// loop runs until the warp's longest row is done.
template <int Width, class V, class I, class O>
__device__ __forceinline__ void vector_row_scatter_combined(const RowArgs<V, I, O>& a,
                                                            std::int64_t row, O begin, O end,
                                                            int lane) {
  using U = std::make_unsigned_t<O>;
  // 32-bit keys for 32-bit columns (a cheaper match); a lane without an entry gets a key above
  // every column index (columns are below 2^31, or 2^63), unique to the lane.
  using Key = std::conditional_t<sizeof(I) <= 4, unsigned, unsigned long long>;
  const int lane_in_warp = static_cast<int>(threadIdx.x % kWarpSize);
  const Key no_entry = ~Key(0) - static_cast<Key>(lane_in_warp);
  const V scaled_x = begin < end ? a.alpha * load_ro(a.x + row) : V(0);
  const U last = static_cast<U>(end);
  for (U j = static_cast<U>(begin) + static_cast<U>(lane); __any_sync(kFullWarpMask, j < last);
       j += Width) {
    const bool has_entry = j < last;
    I col = I(0);
    V product = V(0);
    if (has_entry) {
      col = load_ro(a.col_idx + j);
      product = load_ro(a.values + j) * scaled_x;
    }
    const unsigned peers =
        __match_any_sync(kFullWarpMask, has_entry ? static_cast<Key>(col) : no_entry);
    // The lowest lane of each group sums the others' products in lane order.
    const bool adds = (peers & ((1u << lane_in_warp) - 1u)) == 0u;
    unsigned others = adds ? peers & (peers - 1u) : 0u;
    V sum = product;
    while (__any_sync(kFullWarpMask, others != 0u)) {
      const int source = others != 0u ? __ffs(static_cast<int>(others)) - 1 : lane_in_warp;
      const V theirs = __shfl_sync(kFullWarpMask, product, source);
      if (others != 0u) {
        sum += theirs;
        others &= others - 1u;
      }
    }
    if (has_entry && adds) atomicAdd(a.y_out + col, sum);
  }
}

// One row by one vector of Width lanes, op N or T. Every lane named in `mask` must call it
// (inactive vectors pass active = false and do nothing but take part in the shuffles).
// CombineColumns (op T, mask = the whole warp): vector_row_scatter_combined. Predicated (op N):
// vector_row_partial's loop.
template <int Width, bool Transpose, bool CombineColumns = false, bool Predicated = false, class V,
          class I, class O>
__device__ __forceinline__ void vector_process_row(const RowArgs<V, I, O>& a, std::int64_t row,
                                                   bool active, int lane, unsigned mask) {
  O begin, end;
  vector_row_bounds<Width>(a.row_ptr, row, active, lane, mask, begin, end);
  if constexpr (Transpose && CombineColumns) {
    vector_row_scatter_combined<Width>(a, row, begin, end, lane);
  } else if constexpr (Transpose) {
    vector_row_scatter<Width>(a, row, begin, end, lane);
  } else {
    V sum = vector_row_partial<Width, Predicated>(a, begin, end, lane);
    sum = vector_reduce<Width>(sum, mask);
    if (active && lane == 0) write_row(a, row, sum);
  }
}

// Blocks for `items` work items of `per_block` each, at least 1, at most `cap`.
inline unsigned grid_size(std::int64_t items, std::int64_t per_block, std::int64_t cap) {
  const std::int64_t blocks = items <= 0 ? 1 : (items - 1) / per_block + 1;
  return static_cast<unsigned>(std::max<std::int64_t>(1, std::min(blocks, cap)));
}

// Grid-x limit is 2^31 - 1; every grid-stride kernel copes with any smaller grid.
constexpr std::int64_t kMaxGridBlocks = 0x7fffffff;

// Host side shared by the row kernels: options, view, argument checks, the op T pre-pass.
template <class V, class I, class O>
class RowKernelBase : public SpmvKernel<V, I, O> {
 public:
  std::string name() const override { return name_; }
  bool supports(Op op) const override {
    return op == Op::N || !options_.deterministic || deterministic_transpose_;
  }
  // Op N is always bitwise reproducible; op T is offered in deterministic mode only by a kernel
  // with an atomic-free transpose (deterministic_transpose_), so every op the kernel supports is
  // deterministic exactly when asked.
  bool deterministic() const override { return options_.deterministic; }

  void set_values(const V* values) override {
    if (!ready_) fail(status::invalid_argument, name_ + ": set_values before setup");
    if (A_.nnz > 0 && values == nullptr)
      fail(status::invalid_argument, name_ + ": set_values with a null pointer");
    A_.values = values;
  }

 protected:
  RowKernelBase(const KernelOptions& options, std::string name)
      : options_(options), name_(std::move(name)) {
    const int tpb = options.threads_per_block;
    if (tpb != 0 && (tpb < kWarpSize || tpb > kMaxThreadsPerBlock || tpb % kWarpSize != 0))
      fail(status::invalid_argument,
           name_ + ": threads_per_block must be a multiple of 32 in [32, 1024], got " +
               std::to_string(tpb));
    threads_per_block_ = tpb != 0 ? tpb : kDefaultThreadsPerBlock;
  }

  // Checks and stores the view; the derived setup then plans its launches.
  void take_view(const CsrView<V, I, O>& A) {
    ready_ = false;
    if (A.memory != Memory::device)
      fail(status::invalid_argument, name_ + ": the matrix must be in device memory");
    if (A.rows < 0 || A.cols < 0 || A.nnz < 0)
      fail(status::invalid_argument, name_ + ": negative matrix size");
    if (A.rows > 0 && A.row_ptr == nullptr)
      fail(status::invalid_argument, name_ + ": null row_ptr");
    if (A.nnz > 0 && (A.col_idx == nullptr || A.values == nullptr))
      fail(status::invalid_argument, name_ + ": null col_idx or values");
    A_ = A;
    const DeviceInfo& info = current_device_info();
    sm_count_ = info.sm_count;
  }

  // Host checks of one apply; nothing touches the device.
  void check_apply(Op op, const V* x, V beta, const V* y_in, V* y_out) const {
    if (!ready_) fail(status::invalid_argument, name_ + ": apply before setup");
    if (!supports(op))
      fail(status::unsupported, name_ + ": op T uses atomics and is not deterministic");
    const std::int64_t n_out = op == Op::N ? A_.rows : A_.cols;
    if (n_out > 0 && y_out == nullptr) fail(status::invalid_argument, name_ + ": null y_out");
    if (n_out > 0 && beta != V(0) && y_in == nullptr)
      fail(status::invalid_argument, name_ + ": null y_in with beta != 0");
    if (A_.nnz > 0 && x == nullptr) fail(status::invalid_argument, name_ + ": null x");
  }

  RowArgs<V, I, O> args(V alpha, const V* x, V beta, const V* y_in, V* y_out,
                        unsigned long long* row_counter = nullptr, int rounds_per_take = 1) const {
    RowArgs<V, I, O> a;
    a.rows = A_.rows;
    a.row_ptr = A_.row_ptr;
    a.col_idx = A_.col_idx;
    a.values = A_.values;
    a.x = x;
    a.y_in = y_in;
    a.y_out = y_out;
    a.alpha = alpha;
    a.beta = beta;
    a.row_counter = row_counter;
    a.rounds_per_take = rounds_per_take;
    return a;
  }

  // Op T first pass: y_out = beta y_in over the cols outputs (skipped when it changes nothing),
  // and light's counter reset riding along. Returns false when the pass was skipped (the
  // caller then resets its counter itself).
  bool scale_transpose_output(V beta, const V* y_in, V* y_out, unsigned long long* counter,
                              cudaStream_t stream) const {
    return scale_output(A_.cols, beta, y_in, y_out, sm_count_, stream, counter);
  }

  // Before an atomic op T scatter: refused in deterministic mode. The row kernels' deterministic
  // op T is their column gather, which takes every matrix whose row numbers fit I; this is the
  // rest.
  void refuse_scatter_if_deterministic() const {
    if (options_.deterministic && A_.nnz > 0)
      fail(status::unsupported,
           name_ +
               ": op T in deterministic mode is a column gather, whose index holds row "
               "numbers in the column index type; " +
               std::to_string(A_.rows) + " rows do not fit it");
  }

  KernelOptions options_;
  std::string name_;
  bool deterministic_transpose_ = false;  // op T without atomics in deterministic mode
  int threads_per_block_ = kDefaultThreadsPerBlock;
  CsrView<V, I, O> A_{};
  bool ready_ = false;
  int sm_count_ = 0;
};

// Mean nonzeros per row (0 for no rows).
inline double mean_row_length(std::int64_t rows, std::int64_t nnz) {
  return rows > 0 ? static_cast<double>(nnz) / static_cast<double>(rows) : 0.0;
}

// The vector widths the row kernels are compiled for.
inline bool valid_lanes_per_row(int lanes) {
  return lanes == 2 || lanes == 4 || lanes == 8 || lanes == 16 || lanes == 32;
}

// Turns a width chosen at run time into the compile-time one of the kernel that uses it: returns
// pick(std::integral_constant<int, W>{}) for W == lanes. The vector, inode and gather kernels
// take their width as a template argument so that the shuffles of a row's sum unroll.
template <class Pick>
auto with_lanes_per_row(int lanes, const char* kernel, Pick&& pick)
    -> decltype(pick(std::integral_constant<int, 2>{})) {
  switch (lanes) {
    case 2:
      return pick(std::integral_constant<int, 2>{});
    case 4:
      return pick(std::integral_constant<int, 4>{});
    case 8:
      return pick(std::integral_constant<int, 8>{});
    case 16:
      return pick(std::integral_constant<int, 16>{});
    case 32:
      return pick(std::integral_constant<int, 32>{});
    default:
      fail(status::internal, std::string(kernel) + ": unexpected width " + std::to_string(lanes));
  }
}

// CUSP's csr_vector rule: the smallest width of 2, 4, 8, 16, 32 lanes at least the (truncated)
// mean row length, so most rows take one step of the vector. The column gather's width.
inline int cusp_lanes_per_row(std::int64_t rows, std::int64_t nnz) {
  const std::int64_t mean = rows > 0 ? nnz / rows : 0;
  if (mean <= 2) return 2;
  if (mean <= 4) return 4;
  if (mean <= 8) return 8;
  if (mean <= 16) return 16;
  return 32;
}

// vector-adaptive's width: about six entries per lane, the power of two in [2, 32] nearest to
// mean / 6 on a log scale. Narrow vectors put 32 / width consecutive rows in each warp step, so
// where neighbouring rows have neighbouring columns (stencils, banded and FEM matrices) their x
// loads and, for op T, their atomics fall into fewer sectors than one row's would. Measured on
// an H200 (bench/results/2026-11-28-session12/, run A), every width forced on 24 matrices: on
// 27-point stencils (26 entries a row) 4 lanes took op N from 0.36-0.67x cuSPARSE (CUSP's rule:
// 32 lanes) to 1.06-1.29x and op T from 0.82-0.91x to 1.23-1.62x; 8-16 lanes suit 3D elasticity
// (81), 2 lanes Poisson (5-7). Where columns are scattered (random, R-MAT), wider is better, but
// there `hola` or cuSPARSE wins anyway and the selector picks them.
inline int adaptive_lanes_per_row(std::int64_t rows, std::int64_t nnz) {
  const double mean = mean_row_length(rows, nnz);
  // Bounds: 6 * 2^(k + 1/2), the geometric midpoints between 6 * 2^k and 6 * 2^(k + 1).
  if (mean < 16.97) return 2;
  if (mean < 33.94) return 4;
  if (mean < 67.88) return 8;
  if (mean < 135.76) return 16;
  return 32;
}

}  // namespace hola::cuda::rowwise
