// Op T of the row-wise kernels for small matrices in one launch: y = alpha A^T x + beta y as a
// gather over A's columns, one vector of lanes per column (the whole warp for a long one), through
// a column index. The default op T needs two launches (y = beta y, then an atomic scatter); on
// matrices of about 10^4 rows the launches, not the memory traffic, set the time of a product, so
// the second launch costs about as much as the product itself. The gather sums each column in a
// fixed order (no atomics) and reads A's values in place through the index: new values need no
// rebuild. In deterministic mode it is the row kernels' op T at every size (the atomic scatter is
// not reproducible): slower than the scatter on large irregular matrices (the values are read out
// of order, 32 bytes a sector for 8), but reproducible, on the GPU and without a transposed copy
// of the values.
// Internal header of the rowwise family.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "common/column_index.cuh"
#include "rowwise/row_common.cuh"

namespace hola::cuda::rowwise {

// Up to this many nonzeros by default (KernelOptions::gather_transpose_max_nnz): the index costs
// (cols + 1 + nnz) sizeof(O) + nnz sizeof(I) bytes (at most a few MB here) and a sort, once per
// structure.
constexpr std::int64_t kGatherTransposeDefaultMaxNnz = std::int64_t(1) << 18;

// A column of at least kGatherChunkedColumn entries and kGatherChunkedMeans times the mean column
// length is cut into chunks of kGatherChunk entries, each summed by a warp of its own (arrow
// matrices, graphs with hubs: one column of 46 500 entries took 0.49 ms on one warp where
// cuSPARSE's whole transpose took 0.09 ms). The warp that completes a column's last chunk adds
// the chunks' sums in chunk order and writes y, so the result stays the same on every run.
// Shorter columns of kGatherWarpColumn entries or more go to their whole warp (below); a warp
// takes its long columns one after the other, so the chunks start low enough that no warp is
// left with many rounds (rajat01: two columns of 686 and 504 entries in one warp kept it at 0.78x
// cuSPARSE with chunks from 1 024 entries). Where every column is long (sparse-images-1024: 120
// on average, 568 at most) chunks cost more than they save (H100: 10.7 -> 14 us), hence the
// multiple of the mean.
constexpr int kGatherChunk = 128;
constexpr int kGatherChunkedColumn = 2 * kGatherChunk;
constexpr int kGatherChunkedMeans = 16;

template <class O>
struct GatherChunk {
  O begin;  // entries [begin, end) of the column index
  O end;
  int column;  // index in the long-column list
};

struct GatherLongColumn {
  std::int64_t col;
  std::int64_t first_chunk;
  int chunks;
};

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
  // Columns of at least `chunked_from` entries (max of O when none) are summed in chunks (below).
  O chunked_from;
  std::int64_t chunks;
  const GatherChunk<O>* chunk;
  const GatherLongColumn* long_column;
  V* chunk_sum;           // one per chunk
  unsigned* chunks_done;  // one per long column: 0 between products
};

// Entry k of the column index: a_ij x_i, read through the CSR slot of the entry.
template <class V, class I, class O, class U>
__device__ __forceinline__ V gather_term(const GatherArgs<V, I, O>& a, U k) {
  return load_ro(a.values + load_ro(a.position + k)) * load_ro(a.x + load_ro(a.row_idx + k));
}

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
    sum += gather_term(a, k);
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
// result is the same on every run. Without LongColumns (no column reaches kGatherWarpColumn,
// known when the index is built) the chunks, the length tests and the ballot are compiled out:
// they cost about 3 % of an op T product on matrices that never need them.
template <int Width, bool LongColumns, class V, class I, class O>
__global__ __launch_bounds__(kMaxThreadsPerBlock) void gather_columns_kernel(
    GatherArgs<V, I, O> a) {
  using U = std::make_unsigned_t<O>;
  const VectorGrid<Width> g;
  const int lane = g.lane;
  const int lane_in_warp = static_cast<int>(threadIdx.x % kWarpSize);
  // The chunks of the longest columns first, a warp each: they are the long pole.
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * (blockDim.x / kWarpSize);
  if constexpr (LongColumns)
    for (std::int64_t c =
             (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarpSize;
         c < a.chunks; c += warps) {
      const GatherChunk<O> chunk = a.chunk[c];
      const V part = warp_column_sum(a, chunk.begin, chunk.end, lane_in_warp);
      unsigned done_before = 0u;
      if (lane_in_warp == 0) {
        a.chunk_sum[c] = part;
        __threadfence();  // the sum is visible before the count that announces it
        done_before = atomicAdd(a.chunks_done + chunk.column, 1u);
      }
      done_before = __shfl_sync(kFullWarpMask, done_before, 0);
      const GatherLongColumn column = a.long_column[chunk.column];
      if (done_before + 1u == static_cast<unsigned>(column.chunks)) {
        // Last chunk of its column: every other chunk's sum is written.
        __threadfence();
        V total = V(0);
        for (int k = lane_in_warp; k < column.chunks; k += kWarpSize)
          total += __ldcg(a.chunk_sum + column.first_chunk + k);
        total = vector_reduce<kWarpSize>(total, kFullWarpMask);
        if (lane_in_warp == 0) {
          a.chunks_done[chunk.column] = 0u;  // for the next product, in stream order
          V out = a.alpha * total;
          if (a.beta != V(0)) out += a.beta * a.y_in[column.col];
          a.y_out[column.col] = out;
        }
      }
    }
  for (std::int64_t first = g.warp_first; first < a.cols; first += g.stride) {
    const std::int64_t col = first + g.vector_in_warp;
    const bool active = col < a.cols;
    O begin, end;
    vector_row_bounds<Width>(a.col_ptr, col, active, lane, kFullWarpMask, begin, end);
    const bool chunked = LongColumns && end - begin >= a.chunked_from;  // summed above
    bool to_warp = false;
    if constexpr (LongColumns && Width < kWarpSize)
      to_warp = !chunked && end - begin >= static_cast<O>(kGatherWarpColumn);
    V sum = V(0);
    const U last = to_warp || chunked ? static_cast<U>(begin) : static_cast<U>(end);
    for (U k = static_cast<U>(begin) + static_cast<U>(lane); k < last; k += Width)
      sum += gather_term(a, k);
    sum = vector_reduce<Width>(sum, kFullWarpMask);
    if constexpr (LongColumns && Width < kWarpSize) {
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
    if (active && lane == 0 && !chunked) {
      V out = a.alpha * sum;
      if (a.beta != V(0)) out += a.beta * a.y_in[col];
      a.y_out[col] = out;
    }
  }
}

// Every column of at least `min_len` entries: (col, begin, end), in any order, at most `capacity`
// of them (nnz / min_len bounds their number); count[0] says how many, count[1] how many columns
// have kGatherWarpColumn entries or more.
template <class O>
__global__ void find_long_columns_kernel(const O* col_ptr, std::int64_t cols, O min_len,
                                         int capacity, int* count, std::int64_t* found) {
  for (std::int64_t col = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
       col < cols; col += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const O begin = col_ptr[col], end = col_ptr[col + 1];
    if (end - begin >= static_cast<O>(kGatherWarpColumn)) atomicAdd(count + 1, 1);
    if (end - begin < min_len) continue;
    const int slot = atomicAdd(count, 1);
    if (slot >= capacity) continue;
    found[3 * slot] = col;
    found[3 * slot + 1] = static_cast<std::int64_t>(begin);
    found[3 * slot + 2] = static_cast<std::int64_t>(end);
  }
}

template <class V, class I, class O>
using GatherFn = void (*)(GatherArgs<V, I, O>);

template <class V, class I, class O, bool LongColumns>
GatherFn<V, I, O> gather_columns_fn(int width) {
  return with_lanes_per_row(width, "gather transpose", [](auto lanes) -> GatherFn<V, I, O> {
    return gather_columns_kernel<decltype(lanes)::value, LongColumns, V, I, O>;
  });
}

// The launch plan of one matrix structure and its column index. The index is built at the first
// op T product, not at setup, so that solvers which never transpose (CG, GMRES) do not pay for
// it (the same rule as the Operator's separate op T kernel, hola/operator.hpp).
template <class V, class I, class O>
class GatherTranspose {
 public:
  // Plans the gather when the matrix qualifies (1 to the limit of nonzeros, or any number in
  // deterministic mode; A's rows fit I); drops any index of an earlier structure.
  void setup(const CsrView<V, I, O>& A, const KernelOptions& options, int threads_per_block) {
    active_ = false;
    built_ = false;
    const std::int64_t limit = options.gather_transpose_max_nnz < 0
                                   ? kGatherTransposeDefaultMaxNnz
                                   : options.gather_transpose_max_nnz;
    const bool rows_fit =
        A.rows == 0 || A.rows - 1 <= static_cast<std::int64_t>(std::numeric_limits<I>::max());
    const bool within_limit = options.deterministic || A.nnz <= limit;
    if (A.nnz == 0 || !within_limit || A.cols == 0 || !rows_fit) {
      index_ = ColumnIndex<I, O>{};
      return;
    }
    width_ = cusp_lanes_per_row(A.cols, A.nnz);      // from the mean column length
    fn_ = gather_columns_fn<V, I, O, true>(width_);  // until the index shows no long column
    threads_ = threads_per_block;
    grid_ = grid_size(A.cols, threads_per_block / width_, kMaxGridBlocks);
    active_ = true;
  }

  bool active() const { return active_; }
  std::size_t bytes() const {
    return built_ ? index_.bytes() + chunk_.bytes() + long_column_.bytes() + chunk_sum_.bytes() +
                        chunks_done_.bytes()
                  : 0;
  }

  // y_out = alpha A^T x + beta y_in with A's current values: one launch. The first call of a
  // structure builds the index first on `stream` and waits for it once, so that later products
  // on other streams find it complete.
  void apply(const CsrView<V, I, O>& A, V alpha, const V* x, V beta, const V* y_in, V* y_out,
             cudaStream_t stream) {
    if (!built_) {
      try {
        index_.build(A.row_ptr, A.col_idx, A.rows, A.cols, A.nnz, stream);
        plan_chunks(stream);
        HOLA_CUDA_CHECK(cudaStreamSynchronize(stream));
      } catch (...) {
        // Out of memory (a large matrix in deterministic mode) or another failure: keep nothing
        // of a half-built index, so that the device memory is back and y was not touched.
        cudaStreamSynchronize(stream);
        release();
        throw;
      }
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
                                beta,
                                chunked_from_,
                                chunks_,
                                chunk_.as<GatherChunk<O>>(),
                                long_column_.as<GatherLongColumn>(),
                                chunk_sum_.as<V>(),
                                chunks_done_.as<unsigned>()};
    fn_<<<grid_, threads_, 0, stream>>>(a);
    HOLA_CUDA_CHECK_LAUNCH("gather_columns_kernel");
  }

 private:
  void release() {
    index_ = ColumnIndex<I, O>{};
    chunk_ = DeviceBuffer{};
    long_column_ = DeviceBuffer{};
    chunk_sum_ = DeviceBuffer{};
    chunks_done_ = DeviceBuffer{};
    chunks_ = 0;
    chunked_from_ = std::numeric_limits<O>::max();
  }

  // The chunks of the long columns (kGatherChunkedColumn, kGatherChunkedMeans), from the index
  // just built on `stream` (synchronises it: the first op T product waits for the index anyway).
  // Columns in column order, chunks in entry order: the same plan, so the same sums, on every run.
  // Memory: 24 bytes and a counter per long column (nnz / kGatherChunkedColumn at most), at most
  // 24 bytes and a value per chunk (nnz / kGatherChunk + 1 per long column at most).
  // Without any column of kGatherWarpColumn entries the kernel without long columns is used.
  void plan_chunks(cudaStream_t stream) {
    chunks_ = 0;
    chunked_from_ = std::numeric_limits<O>::max();  // no column is chunked
    const std::int64_t cols = index_.cols(), nnz = index_.nnz();
    const std::int64_t mean_ceil = cols > 0 ? (nnz + cols - 1) / cols : 0;
    const std::int64_t from =
        std::max<std::int64_t>(kGatherChunkedColumn, kGatherChunkedMeans * mean_ceil);
    const std::int64_t capacity = nnz / from;
    StreamScratch count(2 * sizeof(int), stream);
    StreamScratch found(
        static_cast<std::size_t>(std::max<std::int64_t>(capacity, 1)) * 3 * sizeof(std::int64_t),
        stream);
    HOLA_CUDA_CHECK(cudaMemsetAsync(count.as<int>(), 0, 2 * sizeof(int), stream));
    const std::int64_t blocks = std::min<std::int64_t>(
        (index_.cols() + kDefaultThreadsPerBlock - 1) / kDefaultThreadsPerBlock,
        std::int64_t(current_device_info().sm_count) * 8);
    find_long_columns_kernel<O>
        <<<static_cast<unsigned>(std::max<std::int64_t>(blocks, 1)), kDefaultThreadsPerBlock, 0,
           stream>>>(index_.col_ptr(), index_.cols(), static_cast<O>(from),
                     static_cast<int>(capacity), count.as<int>(), found.as<std::int64_t>());
    HOLA_CUDA_CHECK_LAUNCH("find_long_columns_kernel");
    int counts[2] = {0, 0};
    HOLA_CUDA_CHECK(
        cudaMemcpyAsync(counts, count.as<int>(), sizeof(counts), cudaMemcpyDeviceToHost, stream));
    HOLA_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (counts[1] == 0) fn_ = gather_columns_fn<V, I, O, false>(width_);
    const int n = static_cast<int>(std::min<std::int64_t>(counts[0], capacity));
    if (n == 0) return;
    std::vector<std::int64_t> cbe(static_cast<std::size_t>(3 * n));
    HOLA_CUDA_CHECK(cudaMemcpyAsync(cbe.data(), found.as<std::int64_t>(),
                                    cbe.size() * sizeof(std::int64_t), cudaMemcpyDeviceToHost,
                                    stream));
    HOLA_CUDA_CHECK(cudaStreamSynchronize(stream));
    std::vector<int> order(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) order[static_cast<std::size_t>(i)] = i;
    std::sort(order.begin(), order.end(), [&](int l, int r) { return cbe[3 * l] < cbe[3 * r]; });
    std::vector<GatherLongColumn> columns;
    std::vector<GatherChunk<O>> chunks;
    for (int i : order) {
      const std::int64_t begin = cbe[3 * i + 1], end = cbe[3 * i + 2];
      GatherLongColumn column{cbe[3 * i], static_cast<std::int64_t>(chunks.size()), 0};
      for (std::int64_t b = begin; b < end; b += kGatherChunk, ++column.chunks)
        chunks.push_back({static_cast<O>(b),
                          static_cast<O>(std::min<std::int64_t>(end, b + kGatherChunk)),
                          static_cast<int>(columns.size())});
      columns.push_back(column);
    }
    chunk_.resize(chunks.size() * sizeof(GatherChunk<O>));
    long_column_.resize(columns.size() * sizeof(GatherLongColumn));
    chunk_sum_.resize(chunks.size() * sizeof(V));
    chunks_done_.resize(columns.size() * sizeof(unsigned));
    HOLA_CUDA_CHECK(cudaMemcpyAsync(chunk_.get(), chunks.data(),
                                    chunks.size() * sizeof(GatherChunk<O>), cudaMemcpyHostToDevice,
                                    stream));
    HOLA_CUDA_CHECK(cudaMemcpyAsync(long_column_.get(), columns.data(),
                                    columns.size() * sizeof(GatherLongColumn),
                                    cudaMemcpyHostToDevice, stream));
    HOLA_CUDA_CHECK(
        cudaMemsetAsync(chunks_done_.get(), 0, columns.size() * sizeof(unsigned), stream));
    // The host arrays must outlive the copies.
    HOLA_CUDA_CHECK(cudaStreamSynchronize(stream));
    chunks_ = static_cast<std::int64_t>(chunks.size());
    chunked_from_ = static_cast<O>(from);
  }

  ColumnIndex<I, O> index_;
  DeviceBuffer chunk_, long_column_, chunk_sum_, chunks_done_;
  std::int64_t chunks_ = 0;
  O chunked_from_ = std::numeric_limits<O>::max();
  bool active_ = false;
  bool built_ = false;
  GatherFn<V, I, O> fn_ = nullptr;
  int width_ = kWarpSize;
  int threads_ = kDefaultThreadsPerBlock;
  unsigned grid_ = 1;
};

}  // namespace hola::cuda::rowwise
