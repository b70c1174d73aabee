// inode: consecutive rows with identical column lists taken together, as PETSc's AIJ "inodes"
// (the unknowns of one mesh node in FEM matrices with several unknowns per node: 3D elasticity,
// Stokes, multi-component transport). Setup finds the runs of such rows on the GPU once per
// structure and cuts them into groups of at most kMaxGroupRows rows. A vector of Width lanes
// takes a group: each column index and x value is read once for the group's rows (op N), and
// op T adds one atomic per column for the whole group instead of one per row. Rows in a group
// are consecutive in the CSR arrays and of one length, so row g's entry k is at
// row_ptr[first] + g * length + k: the arrays are read in place, nothing is copied.
// Op N sums each row in a fixed order (bitwise reproducible); op T uses atomics (not
// reproducible: refused in deterministic mode). Matrices without such runs get groups of one
// row: right, but no faster than vector-adaptive.
// Included by the instantiation files inode_*.cu only.
#pragma once

#include <thrust/iterator/counting_iterator.h>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "hola/gpu_kernels.hpp"
#include "inode/inode_width.hpp"
#include "rowwise/row_common.cuh"

namespace hola::cuda::inode {

using rowwise::kMaxThreadsPerBlock;
using rowwise::load_ro;
using rowwise::RowArgs;

// Rows per group: at most this many rows share one vector's column loop (registers: one sum or
// one x value per row). Longer runs are cut; a run of 3 (3D elasticity) is one group.
constexpr int kMaxGroupRows = 4;

template <class V, class I, class O>
struct GroupArgs {
  RowArgs<V, I, O> a;
  const std::int64_t* group_first;  // groups + 1 entries: first row of each group, then rows
  std::int64_t groups;
};

// Setup, one warp per row: run_head[r] = r where row r starts a run (row 0, or its column list
// differs from row r - 1's), else 0, so that a max-scan gives every row its run's first row.
template <class I, class O>
__global__ void run_head_kernel(const O* __restrict__ row_ptr, const I* __restrict__ col_idx,
                                std::int64_t rows, std::int64_t* __restrict__ run_head) {
  const int lane = static_cast<int>(threadIdx.x % kWarpSize);
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * (blockDim.x / kWarpSize);
  for (std::int64_t r =
           (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarpSize;
       r < rows; r += warps) {
    // r is the same in every lane of the warp: each lane compares its share of the two rows.
    bool lengths_equal = false, mine_equal = true;
    if (r > 0) {
      const std::int64_t begin = row_ptr[r], prev = row_ptr[r - 1];
      const std::int64_t length = static_cast<std::int64_t>(row_ptr[r + 1]) - begin;
      lengths_equal = length == begin - prev;
      for (std::int64_t k = lane; lengths_equal && mine_equal && k < length; k += kWarpSize)
        mine_equal = col_idx[begin + k] == col_idx[prev + k];
    }
    const bool same = __all_sync(kFullWarpMask, mine_equal) && lengths_equal;
    if (lane == 0) run_head[r] = same ? 0 : r;
  }
}

// group_start[r] = 1 where row r starts a group: every GroupRows-th row of its run.
template <int GroupRows>
__global__ void group_start_kernel(const std::int64_t* __restrict__ run_first, std::int64_t rows,
                                   std::uint8_t* __restrict__ group_start) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t r = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; r < rows;
       r += stride)
    group_start[r] = (r - run_first[r]) % GroupRows == 0 ? 1 : 0;
}

// The list's last entry, after the groups' first rows: the row count.
template <class Index>
__global__ void close_groups_kernel(Index* group_first, const Index* groups, Index rows) {
  group_first[*groups] = rows;
}

struct MaxOf {
  __host__ __device__ std::int64_t operator()(std::int64_t a, std::int64_t b) const {
    return a < b ? b : a;
  }
};

// The group's rows and shared row: first row, row count (1 to kMaxGroupRows), the first row's
// offset and the common length.
template <class O>
struct Group {
  std::int64_t first;
  int count;
  std::make_unsigned_t<O> begin;
  std::make_unsigned_t<O> length;
};

template <class V, class I, class O>
__device__ __forceinline__ Group<O> load_group(const GroupArgs<V, I, O>& g, std::int64_t index) {
  using U = std::make_unsigned_t<O>;
  Group<O> group;
  group.first = load_ro(g.group_first + index);
  group.count = static_cast<int>(load_ro(g.group_first + index + 1) - group.first);
  group.begin = static_cast<U>(load_ro(g.a.row_ptr + group.first));
  group.length = static_cast<U>(load_ro(g.a.row_ptr + group.first + 1)) - group.begin;
  return group;
}

// One vector of Width lanes per group, grid-stride over the groups. Vectors of one warp run
// apart (each shuffles within its own lanes only).
template <int Width, bool Transpose, class V, class I, class O>
__global__ __launch_bounds__(kMaxThreadsPerBlock) void inode_kernel(GroupArgs<V, I, O> g) {
  using U = std::make_unsigned_t<O>;
  const RowArgs<V, I, O>& a = g.a;
  const rowwise::VectorGrid<Width> grid;
  const unsigned mask = rowwise::vector_lane_mask<Width>(static_cast<int>(threadIdx.x % kWarpSize));
  for (std::int64_t first = grid.warp_first; first < g.groups; first += grid.stride) {
    const std::int64_t index = first + grid.vector_in_warp;
    if (index >= g.groups) continue;  // the whole vector
    const Group<O> group = load_group(g, index);
    const U lane = static_cast<U>(grid.lane);
    if constexpr (Transpose) {
      V scaled_x[kMaxGroupRows];
#pragma unroll
      for (int r = 0; r < kMaxGroupRows; ++r)
        scaled_x[r] = r < group.count ? a.alpha * load_ro(a.x + group.first + r) : V(0);
      for (U k = lane; k < group.length; k += Width) {
        const U at = group.begin + k;
        const I col = load_ro(a.col_idx + at);
        V sum = V(0);
#pragma unroll
        for (int r = 0; r < kMaxGroupRows; ++r)
          if (r < group.count)
            sum += load_ro(a.values + at + static_cast<U>(r) * group.length) * scaled_x[r];
        atomicAdd(a.y_out + col, sum);
      }
    } else {
      V sum[kMaxGroupRows];
#pragma unroll
      for (int r = 0; r < kMaxGroupRows; ++r) sum[r] = V(0);
      for (U k = lane; k < group.length; k += Width) {
        const U at = group.begin + k;
        V value[kMaxGroupRows];
#pragma unroll
        for (int r = 0; r < kMaxGroupRows; ++r)
          value[r] =
              r < group.count ? load_ro(a.values + at + static_cast<U>(r) * group.length) : V(0);
        const V xv = load_ro(a.x + load_ro(a.col_idx + at));
#pragma unroll
        for (int r = 0; r < kMaxGroupRows; ++r) sum[r] += value[r] * xv;
      }
#pragma unroll
      for (int r = 0; r < kMaxGroupRows; ++r) {
        sum[r] = rowwise::vector_reduce<Width>(sum[r], mask);
        if (grid.lane == 0 && r < group.count) rowwise::write_row(a, group.first + r, sum[r]);
      }
    }
  }
}

template <class V, class I, class O>
using InodeFn = void (*)(GroupArgs<V, I, O>);

template <bool Transpose, class V, class I, class O>
InodeFn<V, I, O> inode_fn(int width) {
  return rowwise::with_lanes_per_row(width, "inode kernel", [](auto lanes) -> InodeFn<V, I, O> {
    return inode_kernel<decltype(lanes)::value, Transpose, V, I, O>;
  });
}

template <class V, class I, class O>
class InodeKernel final : public rowwise::RowKernelBase<V, I, O> {
  using Base = rowwise::RowKernelBase<V, I, O>;

 public:
  explicit InodeKernel(const KernelOptions& options) : Base(options, "inode") {
    if (options.lanes_per_row != 0 && !rowwise::valid_lanes_per_row(options.lanes_per_row))
      fail(status::invalid_argument, "inode: lanes per group must be 0, 2, 4, 8, 16 or 32, got " +
                                         std::to_string(options.lanes_per_row));
  }

  // Finds the groups on `stream` and waits for their count (setup only).
  void setup(const CsrView<V, I, O>& A, void* stream) override {
    this->take_view(A);
    const cudaStream_t s = as_stream(stream);
    groups_ = 0;
    group_first_ = DeviceBuffer{};
    if (A.rows > 0) find_groups(s);
    const double group_rows = groups_ > 0 ? static_cast<double>(A.rows) / groups_ : 1.0;
    width_ = this->options_.lanes_per_row != 0
                 ? this->options_.lanes_per_row
                 : inode_lanes_per_row(rowwise::mean_row_length(A.rows, A.nnz), group_rows);
    n_fn_ = inode_fn<false, V, I, O>(width_);
    t_fn_ = inode_fn<true, V, I, O>(width_);
    grid_ = rowwise::grid_size(groups_, this->threads_per_block_ / width_, rowwise::kMaxGridBlocks);
    this->ready_ = true;
  }

  std::size_t workspace_bytes() const override { return group_first_.bytes(); }

  std::string tuning(Op /*op*/) const override {
    if (!this->ready_) return {};
    const double mean = groups_ > 0 ? static_cast<double>(this->A_.rows) / groups_ : 0.0;
    char text[96];
    std::snprintf(text, sizeof text, "%lld groups of %.2f rows, %d lanes",
                  static_cast<long long>(groups_), mean, width_);
    return text;
  }

  void apply(Op op, V alpha, const V* x, V beta, const V* y_in, V* y_out, void* stream) override {
    this->check_apply(op, x, beta, y_in, y_out);
    const cudaStream_t s = as_stream(stream);
    const auto& A = this->A_;
    const GroupArgs<V, I, O> g{this->args(alpha, x, beta, y_in, y_out),
                               group_first_.as<std::int64_t>(), groups_};
    if (op == Op::N) {
      if (A.rows == 0) return;
      n_fn_<<<grid_, this->threads_per_block_, 0, s>>>(g);
      HOLA_CUDA_CHECK_LAUNCH("inode_kernel<N>");
    } else {
      if (A.cols == 0) return;
      this->scale_transpose_output(beta, y_in, y_out, nullptr, s);
      if (A.rows == 0 || A.nnz == 0) return;
      t_fn_<<<grid_, this->threads_per_block_, 0, s>>>(g);
      HOLA_CUDA_CHECK_LAUNCH("inode_kernel<T>");
    }
  }

 private:
  // Runs of rows with one column list (run_head_kernel, a max-scan), cut every kMaxGroupRows
  // rows, selected into group_first_ (groups + 1 entries of 8 bytes, kept). Scratch: 17 bytes
  // per row and CUB's temporary storage, in stream order.
  void find_groups(cudaStream_t s) {
    const std::int64_t rows = this->A_.rows;
    const auto n = static_cast<std::size_t>(rows);
    StreamScratch run(n * sizeof(std::int64_t), s), run_first(n * sizeof(std::int64_t), s),
        starts(n, s), selected((n + 1) * sizeof(std::int64_t), s), count(sizeof(std::int64_t), s);
    const unsigned warps_grid = rowwise::grid_size(rows, 256 / kWarpSize, rowwise::kMaxGridBlocks);
    run_head_kernel<I, O><<<warps_grid, 256, 0, s>>>(this->A_.row_ptr, this->A_.col_idx, rows,
                                                     run.as<std::int64_t>());
    HOLA_CUDA_CHECK_LAUNCH("run_head_kernel");
    std::size_t scan_bytes = 0, select_bytes = 0;
    const thrust::counting_iterator<std::int64_t> row_numbers(0);
    HOLA_CUDA_CHECK(cub::DeviceScan::InclusiveScan(nullptr, scan_bytes, run.as<std::int64_t>(),
                                                   run_first.as<std::int64_t>(), MaxOf{}, rows, s));
    HOLA_CUDA_CHECK(
        cub::DeviceSelect::Flagged(nullptr, select_bytes, row_numbers, starts.as<std::uint8_t>(),
                                   selected.as<std::int64_t>(), count.as<std::int64_t>(), rows, s));
    StreamScratch temp(std::max(scan_bytes, select_bytes), s);
    HOLA_CUDA_CHECK(cub::DeviceScan::InclusiveScan(temp.as<void>(), scan_bytes,
                                                   run.as<std::int64_t>(),
                                                   run_first.as<std::int64_t>(), MaxOf{}, rows, s));
    group_start_kernel<kMaxGroupRows>
        <<<rowwise::grid_size(rows, 256, rowwise::kMaxGridBlocks), 256, 0, s>>>(
            run_first.as<std::int64_t>(), rows, starts.as<std::uint8_t>());
    HOLA_CUDA_CHECK_LAUNCH("group_start_kernel");
    HOLA_CUDA_CHECK(cub::DeviceSelect::Flagged(
        temp.as<void>(), select_bytes, row_numbers, starts.as<std::uint8_t>(),
        selected.as<std::int64_t>(), count.as<std::int64_t>(), rows, s));
    close_groups_kernel<std::int64_t>
        <<<1, 1, 0, s>>>(selected.as<std::int64_t>(), count.as<std::int64_t>(), rows);
    HOLA_CUDA_CHECK_LAUNCH("close_groups_kernel");
    std::int64_t groups = 0;
    HOLA_CUDA_CHECK(cudaMemcpyAsync(&groups, count.as<std::int64_t>(), sizeof groups,
                                    cudaMemcpyDeviceToHost, s));
    HOLA_CUDA_CHECK(cudaStreamSynchronize(s));
    const std::size_t bytes = static_cast<std::size_t>(groups + 1) * sizeof(std::int64_t);
    DeviceBuffer kept(bytes);
    HOLA_CUDA_CHECK(cudaMemcpyAsync(kept.get(), selected.as<std::int64_t>(), bytes,
                                    cudaMemcpyDeviceToDevice, s));
    HOLA_CUDA_CHECK(cudaStreamSynchronize(s));
    group_first_ = std::move(kept);
    groups_ = groups;
  }

  int width_ = kWarpSize;
  std::int64_t groups_ = 0;
  DeviceBuffer group_first_;
  InodeFn<V, I, O> n_fn_ = nullptr;
  InodeFn<V, I, O> t_fn_ = nullptr;
  unsigned grid_ = 1;
};

}  // namespace hola::cuda::inode

namespace hola::gpu {

template <class V, class I, class O>
SpmvKernelPtr<V, I, O> make_inode(const KernelOptions& options) {
  return std::make_unique<cuda::inode::InodeKernel<V, I, O>>(options);
}

}  // namespace hola::gpu

#define HOLA_INODE_INSTANTIATE(V, I, O) \
  template SpmvKernelPtr<V, I, O> make_inode<V, I, O>(const KernelOptions&);
