// Op T of the row-wise kernels for small matrices in one launch: y = alpha A^T x + beta y as a
// gather over A's columns, one vector of lanes per column (the whole warp for a long one), through
// a column index. The default op T needs two launches (y = beta y, then an atomic scatter); on
// matrices of about 10^4 rows the launches, not the memory traffic, set the time of a product, so
// the second launch costs about as much as the product itself. The gather sums each column in a
// fixed order (no atomics) and reads A's values in place through the index: new values need no
// rebuild.
// Internal header of the rowwise family.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "common/column_index.cuh"
#include "rowwise/row_common.cuh"

namespace hola::cuda::rowwise {

// Up to this many nonzeros by default (KernelOptions::gather_transpose_max_nnz): the index costs
// (cols + 1 + nnz) sizeof(O) + nnz sizeof(I) bytes (at most a few MB here) and a sort, once per
// structure.
constexpr std::int64_t kGatherTransposeDefaultMaxNnz = std::int64_t(1) << 18;

template <class V, class I, class O>
struct GatherArgs {
  std::int64_t cols;
  const O* col_ptr;
  const I* row_idx;
  const O* position;  // CSR slot of each column-major entry
  const V* values;    // A's values, in CSR order
  const V* x;
  const V* y_in;  // may equal y_out; never read when beta == 0
  V* y_out;
  V alpha;
  V beta;
};

// Column [begin, end) summed by the whole warp (a lane each of 32 in turn); every lane gets the
// total. Four steps per round so that their dependent loads (slot, then value) are in flight
// together.
template <class V, class I, class O>
__device__ __forceinline__ V warp_column_sum(const GatherArgs<V, I, O>& a, O begin, O end,
                                             int lane_in_warp) {
  using U = std::make_unsigned_t<O>;
  const U last = static_cast<U>(end);
  V sum = V(0);
#pragma unroll 4
  for (U k = static_cast<U>(begin) + static_cast<U>(lane_in_warp); k < last; k += kWarpSize)
    sum += load_ro(a.values + load_ro(a.position + k)) * load_ro(a.x + load_ro(a.row_idx + k));
  sum = vector_reduce<kWarpSize>(sum, kFullWarpMask);
  return __shfl_sync(kFullWarpMask, sum, 0);
}

// A column at least this long is summed by its whole warp, not by its vector: the lanes come from
// the mean column length, and one hub column among short ones (rajat01: 1 442 entries where the
// mean is 6.3) would otherwise keep a few lanes busy long after the rest of the grid is done.
constexpr int kGatherWarpColumn = 2 * kWarpSize;

// One vector of Width lanes per column, grid-stride over the columns (VectorGrid). Columns of at
// least kGatherWarpColumn entries are taken by the whole warp, one after the other, after the
// vectors' own columns. The warp then spends at most as many rounds on them as their longest
// would have cost its vector alone. The order of the additions is fixed by the structure: the
// result is the same on every run.
template <int Width, class V, class I, class O>
__global__ __launch_bounds__(kMaxThreadsPerBlock) void gather_columns_kernel(
    GatherArgs<V, I, O> a) {
  using U = std::make_unsigned_t<O>;
  const VectorGrid<Width> g;
  const int lane = g.lane;
  const int lane_in_warp = static_cast<int>(threadIdx.x % kWarpSize);
  for (std::int64_t first = g.warp_first; first < a.cols; first += g.stride) {
    const std::int64_t col = first + g.vector_in_warp;
    const bool active = col < a.cols;
    O begin, end;
    vector_row_bounds<Width>(a.col_ptr, col, active, lane, kFullWarpMask, begin, end);
    bool to_warp = false;
    if constexpr (Width < kWarpSize) to_warp = end - begin >= static_cast<O>(kGatherWarpColumn);
    V sum = V(0);
    const U last = to_warp ? static_cast<U>(begin) : static_cast<U>(end);
    for (U k = static_cast<U>(begin) + static_cast<U>(lane); k < last; k += Width)
      sum += load_ro(a.values + load_ro(a.position + k)) * load_ro(a.x + load_ro(a.row_idx + k));
    sum = vector_reduce<Width>(sum, kFullWarpMask);
    if constexpr (Width < kWarpSize) {
      // Lane 0 of each vector whose column goes to the warp.
      unsigned long_columns = __ballot_sync(kFullWarpMask, to_warp && lane == 0);
      while (long_columns != 0u) {
        const int owner = __ffs(long_columns) - 1;
        long_columns &= long_columns - 1u;
        const O b = __shfl_sync(kFullWarpMask, begin, owner);
        const O e = __shfl_sync(kFullWarpMask, end, owner);
        const V total = warp_column_sum(a, b, e, lane_in_warp);
        if (lane_in_warp == owner) sum = total;
      }
    }
    if (active && lane == 0) {
      V out = a.alpha * sum;
      if (a.beta != V(0)) out += a.beta * a.y_in[col];
      a.y_out[col] = out;
    }
  }
}

template <class V, class I, class O>
using GatherFn = void (*)(GatherArgs<V, I, O>);

template <class V, class I, class O>
GatherFn<V, I, O> gather_columns_fn(int width) {
  switch (width) {
    case 2:
      return gather_columns_kernel<2, V, I, O>;
    case 4:
      return gather_columns_kernel<4, V, I, O>;
    case 8:
      return gather_columns_kernel<8, V, I, O>;
    case 16:
      return gather_columns_kernel<16, V, I, O>;
    case 32:
      return gather_columns_kernel<32, V, I, O>;
    default:
      fail(status::internal, "gather transpose: unexpected width " + std::to_string(width));
  }
}

// The launch plan of one matrix structure and its column index. The index is built at the first
// op T product, not at setup, so that solvers which never transpose (CG, GMRES) do not pay for
// it (the same rule as the Operator's separate op T kernel, hola/operator.hpp).
template <class V, class I, class O>
class GatherTranspose {
 public:
  // Plans the gather when the matrix qualifies (op T allowed, 1 to the limit of nonzeros, A's
  // rows fit I); drops any index of an earlier structure.
  void setup(const CsrView<V, I, O>& A, const KernelOptions& options, int threads_per_block) {
    active_ = false;
    built_ = false;
    const std::int64_t limit = options.gather_transpose_max_nnz < 0
                                   ? kGatherTransposeDefaultMaxNnz
                                   : options.gather_transpose_max_nnz;
    const bool rows_fit =
        A.rows == 0 || A.rows - 1 <= static_cast<std::int64_t>(std::numeric_limits<I>::max());
    if (options.deterministic || A.nnz == 0 || A.nnz > limit || A.cols == 0 || !rows_fit) {
      index_ = ColumnIndex<I, O>{};
      return;
    }
    const int width = adaptive_lanes_per_row(A.cols, A.nnz);  // from the mean column length
    fn_ = gather_columns_fn<V, I, O>(width);
    threads_ = threads_per_block;
    grid_ = grid_size(A.cols, threads_per_block / width, kMaxGridBlocks);
    active_ = true;
  }

  bool active() const { return active_; }
  std::size_t bytes() const { return built_ ? index_.bytes() : 0; }

  // y_out = alpha A^T x + beta y_in with A's current values: one launch. The first call of a
  // structure builds the index first on `stream` and waits for it once, so that later products
  // on other streams find it complete.
  void apply(const CsrView<V, I, O>& A, V alpha, const V* x, V beta, const V* y_in, V* y_out,
             cudaStream_t stream) {
    if (!built_) {
      index_.build(A.row_ptr, A.col_idx, A.rows, A.cols, A.nnz, stream);
      HOLA_CUDA_CHECK(cudaStreamSynchronize(stream));
      built_ = true;
    }
    const GatherArgs<V, I, O> a{index_.cols(),
                                index_.col_ptr(),
                                index_.row_idx(),
                                index_.position(),
                                A.values,
                                x,
                                y_in,
                                y_out,
                                alpha,
                                beta};
    fn_<<<grid_, threads_, 0, stream>>>(a);
    HOLA_CUDA_CHECK_LAUNCH("gather_columns_kernel");
  }

 private:
  ColumnIndex<I, O> index_;
  bool active_ = false;
  bool built_ = false;
  GatherFn<V, I, O> fn_ = nullptr;
  int threads_ = kDefaultThreadsPerBlock;
  unsigned grid_ = 1;
};

}  // namespace hola::cuda::rowwise
