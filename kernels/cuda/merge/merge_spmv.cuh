// Merge-path SpMV (Merrill & Garland, SC16), written for Hola. Internal to hola_kernels: included
// by the merge_*.cu files, which instantiate make_merge for their value / index types.
//
// The merge path of the row ends (row_ptr[1..rows]) and the nonzero indices (0..nnz-1) has
// rows + nnz items. Every block (tile) owns kTileItems = THREADS * ITEMS consecutive items and
// every thread ITEMS of them, so work is balanced over rows and nonzeros together and empty rows
// cost one item each.
//
//   setup:  merge_tile_search_kernel   tile start coordinates (row, nonzero) by a diagonal binary
//                                      search over row_ptr; they depend on the structure only.
//   N:      merge_spmv_kernel          products into shared memory, per-thread merge walk, block
//                                      reduce-by-key scan (CUB BlockScan), rows finished in the
//                                      tile written coalesced, the tile's last (open) row partial
//                                      sum written to tile_carry.
//           merge_fixup_kernel         adds the carries to their rows: a warp-level segmented
//                                      reduction in a fixed order, no atomics, so y = A x is
//                                      bitwise reproducible. Up to THREADS tiles the
//                                      last tile block to finish does it instead (one launch
//                                      per product: a small product's second launch costs about
//                                      as much as its work), with the same additions in the same
//                                      order.
//   T:      scale pass (y = beta y), then merge_transpose_kernel: same tiles, each nonzero's row
//           found by the walk, atomicAdd into y (not reproducible bitwise). With
//           KernelOptions::transpose_hubs, on a matrix with hub columns (common/hub_columns.cuh)
//           the blocks stay resident and loop over the tiles, adding a hub's products into the
//           block's copy of the hubs' hash table in shared memory and each hub's sum into y once
//           at the block's end (docs/kernels.md).
#pragma once

#include <cub/block/block_scan.cuh>
#include <cub/warp/warp_reduce.cuh>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "common/cuda_utils.cuh"
#include "common/hub_columns.cuh"
#include "common/scale_output.cuh"
#include "hola/gpu_kernels.hpp"
#include "hola/spmv_kernel.hpp"

namespace hola::gpu::merge_detail {

// A point of the merge path: `row` row ends and `nz` nonzeros consumed before it.
struct PathCoord {
  std::int64_t row;
  std::int64_t nz;
};

// (row, partial sum) pair of the block reduce-by-key; `row` is local to the tile.
template <class V>
struct RowPartial {
  int row;
  V sum;
};

// Reduce-by-key operator: sums partials of the same row, restarts on a new row. Associative
// because rows never decrease along the path.
struct ReduceByRow {
  template <class V>
  __device__ __forceinline__ RowPartial<V> operator()(const RowPartial<V>& a,
                                                      const RowPartial<V>& b) const {
    return {b.row, a.row == b.row ? a.sum + b.sum : b.sum};
  }
};

// Compiled configurations, selectable through KernelOptions (select_launch_set): threads per
// block 64, 128, 256 x path items per thread 5, 7, 9, 11 (odd: spreads shared-memory banks in
// the walk). Defaults chosen for Hopper before measurement, to be tuned on the device.
template <class V>
inline constexpr int kDefaultThreads = 128;
template <class V>
inline constexpr int kDefaultItems = sizeof(V) > 4 ? 7 : 11;

// Op T with hub columns (KernelOptions::transpose_hubs = 1): a hash table of this many entries
// per block (at most half of them hubs), beside the tile's own shared memory; the option may
// name another power of two from 64 to kMaxHubSlots.
inline constexpr int kDefaultHubSlots = 2048;
inline constexpr int kMaxHubSlots = 16384;

// Minimum resident blocks per SM for the N kernel: 1536 threads per SM (at most 40 registers),
// or 1024 (64 registers) for double with 256 threads or 11 items, which spill at 40. Without a
// bound ptxas squeezes some float configurations into 32 registers and spills.
template <class V, int THREADS, int ITEMS>
inline constexpr int kSpmvMinBlocksPerSm =
    ((sizeof(V) > 4 && (THREADS > 128 || ITEMS > 9)) ? 1024 : 1536) / THREADS;

inline constexpr int kFixupThreads = 256;

// Shared-memory slots of V that hold `v_slots` values followed by `int_slots` ints.
template <class V>
constexpr int shared_slots(int v_slots, int int_slots) {
  return v_slots +
         static_cast<int>((static_cast<std::size_t>(int_slots) * sizeof(int) + sizeof(V) - 1) /
                          sizeof(V));
}

// Number of row ends among the first `diagonal` items of the merge of `row_end` (local nonzero
// offsets, `num_rows` of them) with 0..num_nnz-1. A row end equal to a nonzero index comes
// first: row i ends before nonzero j when row_end[i] <= j.
__device__ __forceinline__ int merge_path_search(int diagonal, const int* row_end, int num_rows,
                                                 int num_nnz) {
  int lo = diagonal - num_nnz > 0 ? diagonal - num_nnz : 0;
  int hi = diagonal < num_rows ? diagonal : num_rows;
  while (lo < hi) {
    const int mid = (lo + hi) >> 1;
    if (row_end[mid] <= diagonal - mid - 1) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

// Setup: start coordinate of every tile (num_tiles + 1 of them, the last one is (rows, nnz)).
// Same predicate as merge_path_search on the global row_ptr.
template <class O>
__global__ void merge_tile_search_kernel(std::int64_t rows, std::int64_t nnz,
                                         const O* __restrict__ row_ptr, std::int64_t num_tiles,
                                         std::int64_t tile_items, PathCoord* __restrict__ coords) {
  const std::int64_t tile = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (tile > num_tiles) return;
  const std::int64_t total = rows + nnz;
  const std::int64_t diagonal = tile * tile_items < total ? tile * tile_items : total;
  std::int64_t lo = diagonal - nnz > 0 ? diagonal - nnz : 0;
  std::int64_t hi = diagonal < rows ? diagonal : rows;
  while (lo < hi) {
    const std::int64_t mid = lo + ((hi - lo) >> 1);
    if (static_cast<std::int64_t>(row_ptr[mid + 1]) <= diagonal - mid - 1) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  coords[tile] = PathCoord{lo, diagonal - lo};
}

// Loads the tile's row ends as offsets from its first nonzero, clamped to tile_nnz: the open
// last row (index tile_rows, possibly past the matrix) then never ends inside the tile.
template <class O, int THREADS>
__device__ __forceinline__ void load_local_row_ends(std::int64_t rows,
                                                    const O* __restrict__ row_ptr,
                                                    const PathCoord& begin, int tile_rows,
                                                    int tile_nnz, int* s_row_end) {
  for (int k = threadIdx.x; k <= tile_rows; k += THREADS) {
    const std::int64_t row = begin.row + k;
    int local_end = tile_nnz;
    if (row < rows) {
      const std::int64_t end = static_cast<std::int64_t>(row_ptr[row + 1]) - begin.nz;
      if (end < tile_nnz) local_end = static_cast<int>(end);
    }
    s_row_end[k] = local_end;
  }
}

template <class V, bool FRESH>
__device__ __forceinline__ void fixup_chunk(std::int64_t first, std::int64_t num_tiles,
                                            const PathCoord* __restrict__ coords,
                                            const V* tile_carry, std::int64_t rows, V alpha, V* y);

// y_out[rows finished in this tile] = alpha * (row sum within the tile) + beta * y_in; the sum
// of the tile's open last row goes to tile_carry[tile], added by merge_fixup_kernel or, with
// tiles_done (a counter that is 0 between products), by the last block of this launch to finish.
template <class V, class I, class O, int THREADS, int ITEMS>
__global__ void __launch_bounds__(THREADS, (kSpmvMinBlocksPerSm<V, THREADS, ITEMS>))
    merge_spmv_kernel(std::int64_t rows, const O* __restrict__ row_ptr,
                      const I* __restrict__ col_idx, const V* __restrict__ values,
                      const V* __restrict__ x, V alpha, V beta, const V* y_in, V* y_out,
                      const PathCoord* __restrict__ coords, V* __restrict__ tile_carry,
                      unsigned* tiles_done) {
  constexpr int kTileItems = THREADS * ITEMS;
  using Partial = RowPartial<V>;
  using BlockScan = cub::BlockScan<Partial, THREADS>;
  __shared__ typename BlockScan::TempStorage scan_storage;
  // Row sums [tile_rows] | products [tile_nnz] | row ends (int) [tile_rows + 1]: the split moves
  // with the tile's mix of rows and nonzeros, tile_rows + tile_nnz <= kTileItems.
  __shared__ V s_tile[shared_slots<V>(kTileItems, kTileItems + 1)];

  const PathCoord begin = coords[blockIdx.x];
  const PathCoord end = coords[blockIdx.x + 1];
  const int tile_rows = static_cast<int>(end.row - begin.row);
  const int tile_nnz = static_cast<int>(end.nz - begin.nz);
  const int tile_items = tile_rows + tile_nnz;
  V* s_row_sum = s_tile;
  V* s_product = s_tile + tile_rows;
  int* s_row_end = reinterpret_cast<int*>(s_product + tile_nnz);

  // 1. Products of the tile's nonzeros, coalesced; column indices first so that ITEMS gathers
  //    of x are in flight at once.
  {
    I col[ITEMS];
    V val[ITEMS];
#pragma unroll
    for (int it = 0; it < ITEMS; ++it) {
      const int k = it * THREADS + threadIdx.x;
      col[it] = 0;
      val[it] = V(0);
      if (k < tile_nnz) {  // read once: evict-first, the L2 keeps x (session 11: 1-5 %)
        col[it] = __ldcs(col_idx + begin.nz + k);
        val[it] = __ldcs(values + begin.nz + k);
      }
    }
#pragma unroll
    for (int it = 0; it < ITEMS; ++it) {
      const int k = it * THREADS + threadIdx.x;
      if (k < tile_nnz) s_product[k] = val[it] * __ldg(x + col[it]);
    }
  }
  load_local_row_ends<O, THREADS>(rows, row_ptr, begin, tile_rows, tile_nnz, s_row_end);
  __syncthreads();

  // 2. Each thread walks its ITEMS path items: a row end stores the running sum of the row it
  //    closes (each row end belongs to one thread), a nonzero adds to the running sum.
  const int diagonal = min(static_cast<int>(threadIdx.x) * ITEMS, tile_items);
  const int start_row = merge_path_search(diagonal, s_row_end, tile_rows, tile_nnz);
  const int steps = min(ITEMS, tile_items - diagonal);
  int row = start_row;
  int nz = diagonal - start_row;
  V running = V(0);
#pragma unroll
  for (int it = 0; it < ITEMS; ++it) {
    if (it < steps) {
      if (s_row_end[row] <= nz) {
        s_row_sum[row] = running;  // row < tile_rows
        running = V(0);
        ++row;
      } else {
        running += s_product[nz];  // nz < s_row_end[row] <= tile_nnz
        ++nz;
      }
    }
  }

  // 3. Reduce-by-key over the threads: `carry` is the sum of this thread's first row over the
  //    threads before it, added to that row if this thread closed it; `tile_total` is the sum
  //    of the tile's open last row.
  Partial carry;
  Partial tile_total;
  BlockScan(scan_storage)
      .ExclusiveScan(Partial{row, running}, carry, Partial{-1, V(0)}, ReduceByRow{}, tile_total);
  if (row > start_row) s_row_sum[start_row] = carry.sum + s_row_sum[start_row];
  __syncthreads();

  // 4. Coalesced output of the rows finished in this tile (y_in == y_out is fine: each row is
  //    read and written by one thread). beta == 0 never reads y_in.
  for (int k = threadIdx.x; k < tile_rows; k += THREADS) {
    const std::int64_t r = begin.row + k;
    V out = alpha * s_row_sum[k];
    if (beta != V(0)) out += beta * y_in[r];
    y_out[r] = out;
  }
  if (threadIdx.x == 0) tile_carry[blockIdx.x] = tile_total.sum;
  if (!tiles_done) return;  // whole grid: merge_fixup_kernel follows

  // Fused fix-up: every block makes its rows and carry visible, then counts itself; the last one
  // adds all carries (warp by warp over the chunks of 32 tiles) and resets the counter for the
  // next product (no memset: a captured graph replays as it is).
  // The barrier orders the block's writes before thread 0's fence, which orders them before the
  // count (as cooperative groups' grid sync does); the last block's fence orders the count
  // before its reads.
  __shared__ bool s_last;
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    s_last = atomicAdd(tiles_done, 1u) == gridDim.x - 1;
    if (s_last) __threadfence();
  }
  __syncthreads();
  if (!s_last) return;
  const std::int64_t num_tiles = gridDim.x;
  for (std::int64_t first = (threadIdx.x >> 5) * 32; first < num_tiles; first += THREADS)
    fixup_chunk<V, true>(first, num_tiles, coords, tile_carry, rows, alpha, y_out);
  if (threadIdx.x == 0) *tiles_done = 0;
}

// Adds the carries of tiles first .. first + 31 to y, one warp (all 32 lanes call it with the
// same `first`). The carry of tile t belongs to row coords[t + 1].row; rows never decrease, so
// the carries of one row are consecutive. A segmented scan sums the runs inside the chunk; the
// warp holding the first tile of a run that goes on past the chunk adds the following chunks, in
// order. Each row is updated by one thread, the order of additions is fixed: bitwise
// reproducible. Written by other blocks of the same launch (FRESH: the fused fix-up), the carries
// and y are read past L1, which does not see other SMs' writes.
template <class V, bool FRESH>
__device__ __forceinline__ void fixup_chunk(std::int64_t first, std::int64_t num_tiles,
                                            const PathCoord* __restrict__ coords,
                                            const V* tile_carry, std::int64_t rows, V alpha, V* y) {
  constexpr unsigned kFullMask = 0xffffffffu;
  const auto carry_of = [&](std::int64_t t) {
    return FRESH ? __ldcg(tile_carry + t) : tile_carry[t];
  };
  const int lane = threadIdx.x & 31;
  const std::int64_t tile = first + lane;
  const bool valid = tile < num_tiles;
  const long long key = valid ? static_cast<long long>(coords[tile + 1].row) : LLONG_MAX;
  V sum = valid ? carry_of(tile) : V(0);
#pragma unroll
  for (int offset = 1; offset < 32; offset <<= 1) {
    const long long up_key = __shfl_up_sync(kFullMask, key, offset);
    const V up_sum = __shfl_up_sync(kFullMask, sum, offset);
    if (lane >= offset && up_key == key) sum += up_sum;
  }
  const long long next_key = __shfl_down_sync(kFullMask, key, 1);
  const bool run_end = lane == 31 || next_key != key;
  // Row of the carry of tile first - 1: a run with this key started in an earlier chunk.
  const long long key_before = first > 0 ? static_cast<long long>(coords[first].row) : -1;
  const long long last_key = __shfl_sync(kFullMask, key, 31);

  V tail = V(0);
  if (last_key != key_before && last_key < rows) {  // warp-uniform
    for (std::int64_t next = first + 32; next < num_tiles; next += 32) {
      const std::int64_t t = next + lane;
      const bool same = t < num_tiles && static_cast<long long>(coords[t + 1].row) == last_key;
      V part = same ? carry_of(t) : V(0);
#pragma unroll
      for (int offset = 16; offset > 0; offset >>= 1)
        part += __shfl_xor_sync(kFullMask, part, offset);
      tail += part;
      if (__ballot_sync(kFullMask, same) != kFullMask) break;
    }
  }
  if (valid && run_end && key != key_before && key < rows) {
    const V before = FRESH ? __ldcg(y + key) : y[key];
    y[key] = before + alpha * (lane == 31 ? sum + tail : sum);
  }
}

// The fix-up as a kernel of its own (beyond the fused fix-up's tiles): one warp per 32 tiles.
template <class V>
__global__ void __launch_bounds__(kFixupThreads)
    merge_fixup_kernel(std::int64_t num_tiles, const PathCoord* __restrict__ coords,
                       const V* __restrict__ tile_carry, std::int64_t rows, V alpha, V* y) {
  const std::int64_t first =
      ((static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5) * 32;
  if (first >= num_tiles) return;  // whole warp
  fixup_chunk<V, false>(first, num_tiles, coords, tile_carry, rows, alpha, y);
}

// The hub columns of a transpose (HubColumns): their open-addressing table of 2^bits entries.
template <class I>
struct TransposeHubs {
  const I* table = nullptr;
  int capacity = 0;
  int bits = 0;
};

// y[col] += alpha * x[row] * a for every nonzero of the tile (y pre-scaled by beta). Without
// Hubs a block takes tile blockIdx.x; with Hubs the grid is resident, each block loops over the
// tiles blockIdx.x, + gridDim.x, ... summing the hub columns' products in its copy of the hub
// table in dynamic shared memory, and adds each hub's sum into y at its end.
template <class V, class I, class O, int THREADS, int ITEMS, bool Hubs>
__global__ void __launch_bounds__(THREADS)
    merge_transpose_kernel(std::int64_t rows, const O* __restrict__ row_ptr,
                           const I* __restrict__ col_idx, const V* __restrict__ values,
                           const V* __restrict__ x, V alpha, const PathCoord* __restrict__ coords,
                           V* y, std::int64_t num_tiles, TransposeHubs<I> hubs) {
  constexpr int kTileItems = THREADS * ITEMS;
  // alpha x of the tile's rows [tile_rows + 1] | row ends (int) [tile_rows + 1] |
  // row of each nonzero (int) [tile_nnz].
  __shared__ V s_tile[shared_slots<V>(kTileItems + 1, kTileItems + 1)];
  // Hubs: the table's sums [capacity] | its columns [capacity].
  extern __shared__ __align__(16) unsigned char merge_hub_shared[];
  V* slot_sum = reinterpret_cast<V*>(merge_hub_shared);
  I* slot_col = reinterpret_cast<I*>(slot_sum + hubs.capacity);
  using WarpSum = cub::WarpReduce<V>;
  __shared__ typename WarpSum::TempStorage warp_sum_storage[Hubs ? THREADS / cuda::kWarpSize : 1];
  if constexpr (Hubs) {
    for (int k = threadIdx.x; k < hubs.capacity; k += THREADS) {
      slot_sum[k] = V(0);
      slot_col[k] = __ldg(hubs.table + k);
    }
    __syncthreads();
  }
  const std::int64_t tile_stride = Hubs ? static_cast<std::int64_t>(gridDim.x) : num_tiles;
  for (std::int64_t tile = blockIdx.x; tile < num_tiles; tile += tile_stride) {
    const PathCoord begin = coords[tile];
    const PathCoord end = coords[tile + 1];
    const int tile_rows = static_cast<int>(end.row - begin.row);
    const int tile_nnz = static_cast<int>(end.nz - begin.nz);
    if (tile_nnz == 0) continue;  // whole block, before any barrier of the tile
    const int tile_items = tile_rows + tile_nnz;
    V* s_scaled_x = s_tile;
    int* s_row_end = reinterpret_cast<int*>(s_tile + tile_rows + 1);
    int* s_row_of = s_row_end + tile_rows + 1;

    for (int k = threadIdx.x; k <= tile_rows; k += THREADS) {
      const std::int64_t r = begin.row + k;
      s_scaled_x[k] = r < rows ? alpha * __ldg(x + r) : V(0);
    }
    load_local_row_ends<O, THREADS>(rows, row_ptr, begin, tile_rows, tile_nnz, s_row_end);
    __syncthreads();

    const int diagonal = min(static_cast<int>(threadIdx.x) * ITEMS, tile_items);
    int row = merge_path_search(diagonal, s_row_end, tile_rows, tile_nnz);
    int nz = diagonal - row;
    const int steps = min(ITEMS, tile_items - diagonal);
#pragma unroll
    for (int it = 0; it < ITEMS; ++it) {
      if (it < steps) {
        if (s_row_end[row] <= nz) {
          ++row;
        } else {
          s_row_of[nz] = row;
          ++nz;
        }
      }
    }
    __syncthreads();

#pragma unroll
    for (int it = 0; it < ITEMS; ++it) {
      const int k = it * THREADS + threadIdx.x;
      const bool live = k < tile_nnz;  // the live lanes of a warp are its first ones
      I col = 0;
      V product = V(0);
      if (live) {
        const std::int64_t idx = begin.nz + k;
        col = __ldg(col_idx + idx);
        product = __ldg(values + idx) * s_scaled_x[s_row_of[k]];
      }
      if constexpr (Hubs) {
        // Probe the shared table until the column or an empty entry (it is at most half full).
        int slot = -1;
        if (live) {
          const unsigned mask = static_cast<unsigned>(hubs.capacity - 1);
          unsigned at = cuda::hub_hash(static_cast<std::uint64_t>(col), hubs.bits);
          I held = slot_col[at];
          while (held != col && held != I(-1)) {
            at = (at + 1) & mask;
            held = slot_col[at];
          }
          if (held == col) slot = static_cast<int>(at);
        }
        // A warp whose live lanes all hit one hub (a column holding most nonzeros: one or a
        // few columns, a tall matrix's op T) sums in registers and adds once: 32 shared
        // atomics on one address serialise.
        const int lead_slot = __shfl_sync(cuda::kFullWarpMask, slot, 0);
        if (lead_slot >= 0 && __all_sync(cuda::kFullWarpMask, !live || slot == lead_slot)) {
          const V sum = WarpSum(warp_sum_storage[threadIdx.x / cuda::kWarpSize]).Sum(product);
          if (threadIdx.x % cuda::kWarpSize == 0) atomicAdd(slot_sum + lead_slot, sum);
          continue;
        }
        if (slot >= 0) {
          atomicAdd(slot_sum + slot, product);
          continue;
        }
      }
      if (live) atomicAdd(y + col, product);
    }
    if constexpr (Hubs) __syncthreads();  // the next tile reuses s_tile
  }
  if constexpr (Hubs) {
    __syncthreads();
    for (int k = threadIdx.x; k < hubs.capacity; k += THREADS) {
      const V sum = slot_sum[k];
      if (slot_col[k] != I(-1) && sum != V(0)) atomicAdd(y + slot_col[k], sum);
    }
  }
}

template <class V, class I, class O>
using SpmvLaunchFn = void (*)(std::int64_t, const O*, const I*, const V*, const V*, V, V, const V*,
                              V*, const PathCoord*, V*, unsigned*);
template <class V, class I, class O>
using TransposeLaunchFn = void (*)(std::int64_t, const O*, const I*, const V*, const V*, V,
                                   const PathCoord*, V*, std::int64_t, TransposeHubs<I>);

// The kernels of one compiled configuration.
template <class V, class I, class O>
struct LaunchSet {
  SpmvLaunchFn<V, I, O> spmv = nullptr;
  TransposeLaunchFn<V, I, O> transpose = nullptr;
  TransposeLaunchFn<V, I, O> transpose_hubs = nullptr;
  int threads = 0;
  int items = 0;
};

template <class V, class I, class O, int THREADS, int ITEMS>
LaunchSet<V, I, O> make_launch_set() {
  LaunchSet<V, I, O> set;
  set.spmv = &merge_spmv_kernel<V, I, O, THREADS, ITEMS>;
  set.transpose = &merge_transpose_kernel<V, I, O, THREADS, ITEMS, false>;
  set.transpose_hubs = &merge_transpose_kernel<V, I, O, THREADS, ITEMS, true>;
  set.threads = THREADS;
  set.items = ITEMS;
  return set;
}

template <class V, class I, class O, int THREADS>
LaunchSet<V, I, O> select_items(int items) {
  switch (items) {
    case 5:
      return make_launch_set<V, I, O, THREADS, 5>();
    case 7:
      return make_launch_set<V, I, O, THREADS, 7>();
    case 9:
      return make_launch_set<V, I, O, THREADS, 9>();
    case 11:
      return make_launch_set<V, I, O, THREADS, 11>();
    default:
      break;
  }
  fail(status::invalid_argument,
       "merge: nnz_per_thread (merge-path items per thread) must be 0 (default), 5, 7, 9 or 11, "
       "got " +
           std::to_string(items));
}

template <class V, class I, class O>
LaunchSet<V, I, O> select_launch_set(const KernelOptions& options) {
  const int threads =
      options.threads_per_block > 0 ? options.threads_per_block : kDefaultThreads<V>;
  const int items = options.nnz_per_thread > 0 ? options.nnz_per_thread : kDefaultItems<V>;
  if (options.threads_per_block < 0 || options.nnz_per_thread < 0) {
    fail(status::invalid_argument, "merge: threads_per_block and nnz_per_thread must be >= 0");
  }
  switch (threads) {
    case 64:
      return select_items<V, I, O, 64>(items);
    case 128:
      return select_items<V, I, O, 128>(items);
    case 256:
      return select_items<V, I, O, 256>(items);
    default:
      break;
  }
  fail(status::invalid_argument,
       "merge: threads_per_block must be 0 (default), 64, 128 or 256, got " +
           std::to_string(threads));
}

template <class V, class I, class O>
class MergeKernel final : public SpmvKernel<V, I, O> {
 public:
  explicit MergeKernel(const KernelOptions& options)
      : launch_(select_launch_set<V, I, O>(options)),
        deterministic_(options.deterministic),
        fused_fixup_max_tiles_(options.fused_fixup_max_tiles < 0 ? launch_.threads
                                                                 : options.fused_fixup_max_tiles),
        hub_slots_(hub_slots_from(options)),
        hub_table_fits_(options.transpose_hubs == -1 || options.transpose_hubs == 1) {}

  std::string name() const override { return "merge"; }
  // The transpose scatters with atomics: off in deterministic mode.
  bool supports(Op op) const override { return op == Op::N || !deterministic_; }
  // True when every supported op is bitwise reproducible (N always is).
  bool deterministic() const override { return deterministic_; }

  void setup(const CsrView<V, I, O>& A, void* stream) override {
    if (A.memory != Memory::device) {
      fail(status::invalid_argument, "merge: the matrix must be in device memory");
    }
    if (A.rows < 0 || A.cols < 0 || A.nnz < 0 || (A.rows == 0 && A.nnz != 0)) {
      fail(status::invalid_argument, "merge: invalid sizes " + std::to_string(A.rows) + " x " +
                                         std::to_string(A.cols) + ", nnz " + std::to_string(A.nnz));
    }
    if ((A.rows > 0 && A.row_ptr == nullptr) ||
        (A.nnz > 0 && (A.col_idx == nullptr || A.values == nullptr))) {
      fail(status::invalid_argument, "merge: null matrix array");
    }
    const std::int64_t tile_items = static_cast<std::int64_t>(launch_.threads) * launch_.items;
    const std::int64_t path = A.rows + A.nnz;
    const std::int64_t num_tiles = A.rows == 0 ? 0 : (path + tile_items - 1) / tile_items;
    if (num_tiles > static_cast<std::int64_t>(INT_MAX)) {
      fail(status::unsupported,
           "merge: matrix too large for one grid (" + std::to_string(num_tiles) + " tiles)");
    }
    A_ = A;
    num_tiles_ = num_tiles;
    sm_count_ = cuda::current_device_info().sm_count;
    const cudaStream_t s = cuda::as_stream(stream);
    coords_.resize(static_cast<std::size_t>(num_tiles + 1) * sizeof(PathCoord));
    carry_.resize(static_cast<std::size_t>(num_tiles > 0 ? num_tiles : 1) * sizeof(V));
    tiles_done_.resize(sizeof(unsigned));
    HOLA_CUDA_CHECK(cudaMemsetAsync(tiles_done_.as<unsigned>(), 0, sizeof(unsigned), s));
    if (num_tiles > 0) {
      const unsigned blocks = cuda::div_up(static_cast<std::size_t>(num_tiles + 1), 256);
      merge_tile_search_kernel<O><<<blocks, 256, 0, s>>>(A.rows, A.nnz, A.row_ptr, num_tiles,
                                                         tile_items, coords_.as<PathCoord>());
      HOLA_CUDA_CHECK_LAUNCH("merge_tile_search_kernel");
    }
    hubs_ = cuda::HubColumns<I>{};
    hubs_built_ = false;
    // The coordinates must be ready whatever stream apply() later runs on.
    HOLA_CUDA_CHECK(cudaStreamSynchronize(s));
  }

  std::string tuning(Op op) const override {
    if (op != Op::T || hubs_.count() == 0) return {};
    char text[80];
    std::snprintf(text, sizeof text, "%d hub columns (%.1f %% of the nonzeros)", hubs_.count(),
                  100.0 * hubs_.share());
    return text;
  }

  void set_values(const V* values) override { A_.values = values; }

  std::size_t workspace_bytes() const override {
    return coords_.bytes() + carry_.bytes() + tiles_done_.bytes() + hubs_.bytes();
  }

  void apply(Op op, V alpha, const V* x, V beta, const V* y_in, V* y_out, void* stream) override {
    if (!supports(op)) {
      fail(status::unsupported,
           "merge: the transpose uses atomics, not available in "
           "deterministic mode");
    }
    const cudaStream_t s = cuda::as_stream(stream);
    const std::int64_t ny = op == Op::N ? A_.rows : A_.cols;
    // alpha == 0: BLAS semantics, A and x are not read.
    if (op == Op::T || alpha == V(0)) {
      scale(ny, beta, y_in, y_out, s);
      if (op == Op::N || alpha == V(0) || A_.nnz == 0) return;
      // Not while a graph is being captured (the search synchronises): the plain kernel then.
      if (hub_slots_ > 0 && !hubs_built_ && !stream_capturing(s)) find_hubs(s);
      if (hubs_.count() > 0) {
        const TransposeHubs<I> hubs{hubs_.table(), hubs_.capacity(), hubs_.bits()};
        launch_.transpose_hubs<<<hub_grid_, launch_.threads, hub_shared_bytes(), s>>>(
            A_.rows, A_.row_ptr, A_.col_idx, A_.values, x, alpha, coords_.as<PathCoord>(), y_out,
            num_tiles_, hubs);
        HOLA_CUDA_CHECK_LAUNCH("merge_transpose_kernel<hubs>");
        return;
      }
      launch_.transpose<<<static_cast<unsigned>(num_tiles_), launch_.threads, 0, s>>>(
          A_.rows, A_.row_ptr, A_.col_idx, A_.values, x, alpha, coords_.as<PathCoord>(), y_out,
          num_tiles_, TransposeHubs<I>{});
      HOLA_CUDA_CHECK_LAUNCH("merge_transpose_kernel");
      return;
    }
    if (num_tiles_ == 0) return;  // 0 rows
    // A single tile has no carry into a real row. Up to fused_fixup_max_tiles_ tiles (by default
    // THREADS: one 32-tile chunk per warp of the last block) that block adds the carries: on an
    // H100 (run D of bench/results/2026-11-27-h100-session5/) this saved about 10 % of a product of
    // up to 128 tiles launched alone and cost 0-4 % replayed in a CUDA graph, where launches are
    // cheap; at 200-500 tiles its serial tail lost up to 17 % alone and 42 % in a graph.
    // A product being captured into a CUDA graph takes the two kernels (fused: 1.02x the time in
    // a graph): run A of bench/results/2026-11-28-h100-session8/ measured the same for hola.
    const bool fused =
        num_tiles_ > 1 && num_tiles_ <= fused_fixup_max_tiles_ && !stream_capturing(s);
    launch_.spmv<<<static_cast<unsigned>(num_tiles_), launch_.threads, 0, s>>>(
        A_.rows, A_.row_ptr, A_.col_idx, A_.values, x, alpha, beta, y_in, y_out,
        coords_.as<PathCoord>(), carry_.as<V>(), fused ? tiles_done_.as<unsigned>() : nullptr);
    HOLA_CUDA_CHECK_LAUNCH("merge_spmv_kernel");
    if (num_tiles_ > 1 && !fused) {
      const unsigned blocks = cuda::div_up(static_cast<std::size_t>(num_tiles_),
                                           static_cast<std::size_t>(kFixupThreads));
      merge_fixup_kernel<V><<<blocks, kFixupThreads, 0, s>>>(num_tiles_, coords_.as<PathCoord>(),
                                                             carry_.as<V>(), A_.rows, alpha, y_out);
      HOLA_CUDA_CHECK_LAUNCH("merge_fixup_kernel");
    }
  }

 private:
  // KernelOptions::transpose_hubs: the entries of a block's hub table, 0 for none. -1 and 1 are
  // at most kDefaultHubSlots, fitted to the hubs found; a power of two from 64 to kMaxHubSlots
  // is that many.
  static int hub_slots_from(const KernelOptions& options) {
    const int h = options.transpose_hubs;
    if (h < -1 || (h > 1 && (h < 64 || h > kMaxHubSlots || (h & (h - 1)) != 0)))
      fail(status::invalid_argument,
           "merge: transpose_hubs must be -1, 0, 1 or a power of two from 64 to " +
               std::to_string(kMaxHubSlots) + ", got " + std::to_string(h));
    if (h == 0 || options.deterministic) return 0;  // atomics: never in deterministic mode
    return h <= 1 ? kDefaultHubSlots : h;           // -1: on (run E of 2026-11-29-session17)
  }

  // Once per structure, at its first op T product (solvers that never transpose pay nothing):
  // the hubs (HubColumns, synchronises `s`), the shared memory their kernel may take, and a grid
  // of resident blocks. Without hubs, or without room for a block, the plain kernel stays.
  void find_hubs(cudaStream_t s) {
    hubs_built_ = true;
    try {
      hubs_.build(A_.col_idx, A_.cols, A_.nnz, hub_slots_, hub_table_fits_, s);
      if (hubs_.count() == 0) return;
      const auto fn = reinterpret_cast<const void*>(launch_.transpose_hubs);
      const int shared = static_cast<int>(hub_shared_bytes());
      HOLA_CUDA_CHECK(
          cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
      int per_sm = 0;
      HOLA_CUDA_CHECK(
          cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, launch_.threads, shared));
      if (per_sm == 0) {
        hubs_ = cuda::HubColumns<I>{};
        return;
      }
      hub_grid_ = static_cast<unsigned>(
          std::min<std::int64_t>(num_tiles_, std::int64_t(per_sm) * sm_count_));
    } catch (const error& e) {
      hubs_ = cuda::HubColumns<I>{};
      // The hubs only save time: without device memory for their search (8 + 2 sizeof(I) bytes
      // a column) the plain kernel runs. Other failures are real.
      if (e.code() != status::out_of_memory) throw;
    } catch (...) {
      hubs_ = cuda::HubColumns<I>{};
      throw;
    }
  }

  std::size_t hub_shared_bytes() const {
    return static_cast<std::size_t>(hubs_.capacity()) * (sizeof(V) + sizeof(I));
  }

  // y_out = beta * y_in over n entries (op T's first pass; the product when alpha is 0).
  void scale(std::int64_t n, V beta, const V* y_in, V* y_out, cudaStream_t s) const {
    cuda::scale_output(n, beta, y_in, y_out, sm_count_, s);
  }

  LaunchSet<V, I, O> launch_;
  bool deterministic_ = false;
  std::int64_t fused_fixup_max_tiles_ = 0;
  CsrView<V, I, O> A_{};
  std::int64_t num_tiles_ = 0;
  int sm_count_ = 0;
  cuda::DeviceBuffer coords_;      // num_tiles + 1 PathCoord
  cuda::DeviceBuffer carry_;       // num_tiles V
  cuda::DeviceBuffer tiles_done_;  // one unsigned: tiles finished in the running product (fused)
  int hub_slots_ = 0;              // transpose_hubs: slots per block, 0 = off
  bool hub_table_fits_ = false;    // the default table shrinks to the hubs found
  cuda::HubColumns<I> hubs_;       // found at the first op T product of a structure
  bool hubs_built_ = false;
  unsigned hub_grid_ = 1;  // resident blocks of the hub kernel
};

}  // namespace hola::gpu::merge_detail

namespace hola::gpu {

template <class V, class I, class O>
SpmvKernelPtr<V, I, O> make_merge(const KernelOptions& options) {
  return std::make_unique<merge_detail::MergeKernel<V, I, O>>(options);
}

}  // namespace hola::gpu

// Explicit instantiation of make_merge for one value / column index type and both offset types.
#define HOLA_INSTANTIATE_MERGE(V, I)                                                            \
  template ::hola::SpmvKernelPtr<V, I, std::int32_t> hola::gpu::make_merge<V, I, std::int32_t>( \
      const ::hola::KernelOptions&);                                                            \
  template ::hola::SpmvKernelPtr<V, I, std::int64_t> hola::gpu::make_merge<V, I, std::int64_t>( \
      const ::hola::KernelOptions&);
