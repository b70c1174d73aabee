// Batched SpMV kernels (seed 004; docs/batched.md). A group of G threads (G a multiple of 32,
// G <= blockDim.x) owns one matrix; a block holds blockDim.x / G matrices. With Stage, each group
// first copies its x_i into its slice of dynamic shared memory (stage_cols values), then the block
// synchronises once. Every row is summed in a fixed order: no floating-point atomics, results
// are reproducible. Included by the instantiation files batched_*.cu only.
//
// Every kernel here passes batched_gpu_test on an H100 (56996ca); csr_tiled's algorithm also runs
// on the CPU in tiled_emulate (hola/batched_tiled.hpp) under the unit tests.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "common/cuda_utils.cuh"
#include "hola/batched.hpp"
#include "hola/batched_access.hpp"
#include "hola/batched_gpu.hpp"
#include "hola/batched_tiled.hpp"

namespace hola::batched::gpu {
namespace detail {

constexpr int kWarp = 32;
constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kMaxBlock = 1024;

template <class V>
struct Scalars {
  V alpha;
  V beta;
  const V* x;
  V* y;
  std::int64_t count;
  int group_threads;
  std::int64_t stage_cols;
  const int* skip;  // null, or a flag per matrix: nonzero leaves it out
};

// Position of the calling thread: its matrix b (may be >= count), lane inside its group.
struct GroupPos {
  std::int64_t b;
  int group;
  int lane;
};

// Whether the group at p computes: its matrix exists and is not skipped. Uniform in the group.
template <class V>
__device__ inline bool group_active(const GroupPos& p, const Scalars<V>& s) {
  return p.b < s.count && !(s.skip != nullptr && s.skip[p.b] != 0);
}

__device__ inline GroupPos group_pos(int group_threads) {
  const int groups = static_cast<int>(blockDim.x) / group_threads;
  GroupPos p;
  p.group = static_cast<int>(threadIdx.x) / group_threads;
  p.lane = static_cast<int>(threadIdx.x) % group_threads;
  p.b = static_cast<std::int64_t>(blockIdx.x) * groups + p.group;
  return p;
}

// x of matrix b, staged in shared memory when Stage and it fits the group's slice. Every thread of
// the block calls this (it contains the block barrier); inactive groups copy nothing.
template <bool Stage, class V, class Access>
__device__ inline const V* x_of(const Access& a, const Scalars<V>& s, const GroupPos& p,
                                bool active) {
  extern __shared__ __align__(16) unsigned char batched_smem[];
  const V* global = active ? s.x + a.x_offset(p.b) : nullptr;
  if constexpr (!Stage) {
    return global;
  } else {
    V* slice =
        reinterpret_cast<V*>(batched_smem) + static_cast<std::size_t>(p.group) * s.stage_cols;
    const std::int64_t n = active ? a.cols(p.b) : 0;
    const bool fits = n <= s.stage_cols;
    if (active && fits)
      for (std::int64_t j = p.lane; j < n; j += s.group_threads) slice[j] = global[j];
    __syncthreads();
    return fits ? slice : global;
  }
}

// CSR / shared-pattern CSR, one thread per row.
template <bool Stage, class V, class I>
__global__ __launch_bounds__(kMaxBlock) void csr_scalar_kernel(CsrAccess<V, I> a, Scalars<V> s) {
  const GroupPos p = group_pos(s.group_threads);
  const bool active = group_active(p, s);
  const V* xb = x_of<Stage>(a, s, p, active);
  if (!active) return;
  const std::int64_t m = a.rows(p.b);
  V* yb = s.y + a.y_offset(p.b);
  const V* vals = a.values + a.value_base(p.b);
  for (std::int64_t r = p.lane; r < m; r += s.group_threads) {
    const std::int64_t k = a.row_ptr_index(p.b, r);
    const std::int64_t p0 = a.row_ptr[k], p1 = a.row_ptr[k + 1];
    V sum = V(0);
    for (std::int64_t q = p0; q < p1; ++q) sum += vals[q] * xb[a.col_idx[q]];
    yb[r] = combine<V>(s.alpha, sum, s.beta, yb + r);
  }
}

// CSR / shared-pattern CSR, one warp per row (the group's warps take rows in turn). All 32 lanes
// of a warp run the same rows, so the full-mask shuffles always see every lane.
template <bool Stage, class V, class I>
__global__ __launch_bounds__(kMaxBlock) void csr_vector_kernel(CsrAccess<V, I> a, Scalars<V> s) {
  const GroupPos p = group_pos(s.group_threads);
  const bool active = group_active(p, s);
  const V* xb = x_of<Stage>(a, s, p, active);
  if (!active) return;  // whole groups, hence whole warps, leave together
  const int warp = p.lane / kWarp, lane = p.lane % kWarp;
  const int warps = s.group_threads / kWarp;
  const std::int64_t m = a.rows(p.b);
  V* yb = s.y + a.y_offset(p.b);
  const V* vals = a.values + a.value_base(p.b);
  for (std::int64_t r = warp; r < m; r += warps) {
    const std::int64_t k = a.row_ptr_index(p.b, r);
    const std::int64_t p0 = a.row_ptr[k], p1 = a.row_ptr[k + 1];
    V sum = V(0);
    for (std::int64_t q = p0 + lane; q < p1; q += kWarp) sum += vals[q] * xb[a.col_idx[q]];
    for (int off = kWarp / 2; off > 0; off /= 2) sum += __shfl_down_sync(kFullMask, sum, off);
    if (lane == 0) yb[r] = combine<V>(s.alpha, sum, s.beta, yb + r);
  }
}

// CSR / shared-pattern CSR, seed 004's CSR-smart: each matrix gets its own vector width W, the
// smallest power of two >= its mean row length (1..32); a warp holds 32 / W vectors, one row
// each. W is uniform in the group and the row loop is uniform in the warp (its bound depends on
// the warp's first row only), so every lane reaches the segmented shuffles.
template <bool Stage, class V, class I>
__global__ __launch_bounds__(kMaxBlock) void csr_smart_kernel(CsrAccess<V, I> a, Scalars<V> s) {
  const GroupPos p = group_pos(s.group_threads);
  const bool active = group_active(p, s);
  const V* xb = x_of<Stage>(a, s, p, active);
  if (!active) return;
  const std::int64_t m = a.rows(p.b);
  if (m == 0) return;
  const std::int64_t nnz = a.nnz(p.b);
  const std::int64_t mean = (nnz + m - 1) / m;
  int width = 1;
  while (width < kWarp && width < mean) width *= 2;
  const int warp = p.lane / kWarp, lane_in_warp = p.lane % kWarp;
  const int vec = lane_in_warp / width, vl = lane_in_warp % width;
  const std::int64_t rows_per_warp = kWarp / width;
  const std::int64_t stride = static_cast<std::int64_t>(s.group_threads / kWarp) * rows_per_warp;
  V* yb = s.y + a.y_offset(p.b);
  const V* vals = a.values + a.value_base(p.b);
  for (std::int64_t first = warp * rows_per_warp; first < m; first += stride) {
    const std::int64_t r = first + vec;
    V sum = V(0);
    if (r < m) {
      const std::int64_t k = a.row_ptr_index(p.b, r);
      const std::int64_t p0 = a.row_ptr[k], p1 = a.row_ptr[k + 1];
      for (std::int64_t q = p0 + vl; q < p1; q += width) sum += vals[q] * xb[a.col_idx[q]];
    }
    for (int off = width / 2; off > 0; off /= 2)
      sum += __shfl_down_sync(kFullMask, sum, off, width);
    if (r < m && vl == 0) yb[r] = combine<V>(s.alpha, sum, s.beta, yb + r);
  }
}

// Synchronises the threads of one group: the warp's own barrier for a group of one warp, else
// the named barrier group + 1 (id 0 is __syncthreads'; check_plan keeps the ids <= 15). Every
// thread of the group must reach it; other groups of the block are not waited for.
__device__ inline void group_sync(int group, int group_threads) {
  if (group_threads == kWarp)
    __syncwarp();
  else
    asm volatile("bar.sync %0, %1;" ::"r"(group + 1), "r"(group_threads) : "memory");
}

__device__ inline int warp_max(int v) {
#if __CUDA_ARCH__ >= 800
  return __reduce_max_sync(kFullMask, v);
#else
  for (int off = kWarp / 2; off > 0; off /= 2) v = max(v, __shfl_xor_sync(kFullMask, v, off));
  return v;
#endif
}

// csr_tiled's and csr_i's shared memory after the staged x, as tiled_work_bytes and
// plan_shared_bytes count it: the products (K a thread), a partial sum a warp, the row ends (one a
// thread), two counters a warp.
template <int K, class V>
struct TiledSmem {
  V* prod;      // block_threads * K
  V* wsum;      // a warp
  int* rowend;  // block_threads
  int* wrows;   // a warp
  int* wlen;    // a warp
  __device__ TiledSmem(const Scalars<V>& s, bool staged) {
    extern __shared__ __align__(16) unsigned char batched_smem[];
    const int block = static_cast<int>(blockDim.x);
    std::size_t offset = 0;
    if (staged)
      offset = (static_cast<std::size_t>(block / s.group_threads) *
                    static_cast<std::size_t>(s.stage_cols) * sizeof(V) +
                15) /
               16 * 16;
    prod = reinterpret_cast<V*>(batched_smem + offset);
    wsum = prod + static_cast<std::size_t>(block) * K;
    rowend = reinterpret_cast<int*>(wsum + block / kWarp);
    wrows = rowend + block;
    wlen = wrows + block / kWarp;
  }
};

// One matrix's rows r0 .. r_end - 1 in tiles of whole rows (hola/batched_tiled.hpp describes the
// steps; tiled_detail::walk_rows there is the same walk on the host), by a tiling group of G
// threads: thread t of it, index `group` among the block's tiling groups (its barrier and its
// slices of shared memory). rp: the matrix's row pointer, base = rp[0]; cols / vals from its
// first entry; start: the first entry of row r0 and end: the end of row r0 + t (both from base).
// Balanced over entries and coalesced where the row-per-thread kernels are neither: a tile's
// entries are read by consecutive threads, and its rows are summed by W lanes each from shared
// memory. L is the type of indices local to a matrix (int when tiled_local32 holds). The control
// flow (r0, start, rows, len) is uniform in the tiling group, so every thread of it reaches every
// barrier.
template <int K, class L, class V, class I>
__device__ __forceinline__ void walk_tiles(const I* rp, I base, const I* cols, const V* vals,
                                           const V* xb, V* yb, V alpha, V beta, L r0, L r_end,
                                           L start, L end, int G, int group, int t,
                                           const TiledSmem<K, V>& sm) {
  const int T = tiled_tile_entries(G, K);
  const int warp = static_cast<int>(threadIdx.x) / kWarp,
            lane = static_cast<int>(threadIdx.x) % kWarp;
  const int first_warp = group * (G / kWarp), warps = G / kWarp;
  V* const prod = sm.prod + group * T;        // the tiling group's tile products
  int* const rowend = sm.rowend + group * G;  // the tile's row ends (from the tile start)

  while (r0 < r_end) {
    // The tile: rows whose end lies within T entries of its start (a prefix of the threads).
    const bool fits = tiled_fits<L>(r0, t, r_end, end, start, T);
    int rows = __popc(__ballot_sync(kFullMask, fits));
    int len = warp_max(fits ? static_cast<int>(end - start) : 0);
    if (G > kWarp && lane == 0) {
      sm.wrows[warp] = rows;
      sm.wlen[warp] = len;
    }
    // Also orders the last tile's reads of prod / rowend before this tile's writes.
    group_sync(group, G);
    if (G > kWarp) {
      rows = 0;
      len = 0;
      for (int w = first_warp; w < first_warp + warps; ++w) {
        rows += sm.wrows[w];
        len = max(len, sm.wlen[w]);
      }
    }
    // The next tile's row ends, loaded now so that their latency hides behind this tile's.
    const L r1 = r0 + (rows > 0 ? rows : 1);
    const L next = r1 + t < r_end ? static_cast<L>(__ldg(rp + r1 + t + 1) - base) : L(0);

    if (rows == 0) {
      // Row r0 is longer than a tile: the whole group, strided, then a fixed-order reduction.
      const L row_end = static_cast<L>(__ldg(rp + r0 + 1) - base);
      V sum = V(0);
#pragma unroll 4
      for (L q = start + t; q < row_end; q += G)
        sum += __ldcs(vals + q) * xb[static_cast<L>(__ldcs(cols + q))];
      for (int off = kWarp / 2; off > 0; off /= 2) sum += __shfl_down_sync(kFullMask, sum, off);
      if (G > kWarp) {
        if (lane == 0) sm.wsum[warp] = sum;
        group_sync(group, G);
        if (t == 0) {
          sum = sm.wsum[first_warp];
          for (int w = first_warp + 1; w < first_warp + warps; ++w) sum += sm.wsum[w];
        }
      }
      if (t == 0) yb[r0] = combine<V>(alpha, sum, beta, yb + r0);
      start = row_end;
    } else {
      if (t < rows) rowend[t] = static_cast<int>(end - start);
      // Consecutive entries to consecutive threads: all loads first, then the x gathers.
      const I* const tile_cols = cols + start;
      const V* const tile_vals = vals + start;
      I c[K];
      V v[K];
#pragma unroll
      for (int k = 0; k < K; ++k) {
        const int j = t + k * G;
        if (j < len) {
          c[k] = __ldcs(tile_cols + j);
          v[k] = __ldcs(tile_vals + j);
        }
      }
#pragma unroll
      for (int k = 0; k < K; ++k) {
        const int j = t + k * G;
        if (j < len) prod[j] = v[k] * xb[static_cast<L>(c[k])];
      }
      group_sync(group, G);
      // W lanes a row (W * rows <= G), each over a stride of W products, then a W-lane tree.
      const int W = tiled_row_width(rows, G);
      const int row = t >> (__ffs(W) - 1), sub = t & (W - 1);  // W is a power of two
      V sum = V(0);
      if (row < rows) {
        const int e1 = rowend[row];
        for (int q = (row > 0 ? rowend[row - 1] : 0) + sub; q < e1; q += W) sum += prod[q];
      }
      for (int off = W / 2; off > 0; off /= 2) sum += __shfl_down_sync(kFullMask, sum, off, W);
      if (row < rows && sub == 0) yb[r0 + row] = combine<V>(alpha, sum, beta, yb + r0 + row);
      start += len;
    }
    r0 = r1;
    end = next;
  }
}

// CSR / shared-pattern CSR in tiles of whole rows, the group of G threads as one tiling group
// over all of its matrix's rows (walk_tiles).
//
// At most 64 registers a thread (a block of 1024 threads still fits an SM) through __maxnreg__,
// not __launch_bounds__(1024): the same limit, but measured on an H100 the code ptxas makes this
// way was 1.1-1.2x faster on every batch tried, and 48, 40 or 32 registers (spills) or 80+
// (fewer blocks an SM) were slower (bench/results/2026-11-26-h100-batched-tiled-regs/).
template <bool Stage, class L, class V, class I>
__global__ __maxnreg__(64) void csr_tiled_kernel(CsrAccess<V, I> a, Scalars<V> s) {
  const GroupPos p = group_pos(s.group_threads);
  const bool active = group_active(p, s);
  const int t = p.lane;
  // The matrix's row pointer and the first tile's row ends before x is staged, so that their
  // latency overlaps the copy of x.
  L m = 0, end = 0;       // end: the end of row t (entries from the matrix's first)
  const I* rp = nullptr;  // rp[0 .. m]
  I base = 0;
  if (active) {
    m = static_cast<L>(a.rows(p.b));
    rp = a.row_ptr + a.row_ptr_index(p.b, 0);
    base = __ldg(rp);
    if (t < m) end = static_cast<L>(__ldg(rp + t + 1) - base);
  }
  const V* xb = x_of<Stage>(a, s, p, active);
  if (!active || m == 0) return;  // the whole group leaves
  const TiledSmem<kTiledEntriesPerThread, V> sm(s, Stage);
  walk_tiles<kTiledEntriesPerThread, L>(
      rp, base, a.col_idx + base, a.values + a.value_base(p.b) + base, xb, s.y + a.y_offset(p.b),
      s.alpha, s.beta, L(0), m, L(0), end, s.group_threads, p.group, t, sm);
}

// First row r of a matrix (rows 0 .. m - 1, row pointer rp, base = rp[0]) whose first entry
// rp[r] - base is at least `target`, m when none: a 32-ary search by the whole warp (every lane
// the same arguments and the same result), ceil(log32(m)) + 1 rounds of one load a lane.
template <class L, class I>
__device__ inline L warp_first_row_from(const I* rp, I base, L m, L target) {
  const int lane = static_cast<int>(threadIdx.x) % kWarp;
  L lo = 0, hi = m;  // the answer lies in [lo, hi]
  while (hi - lo > kWarp) {
    const L step = (hi - lo + kWarp - 1) / kWarp;
    const L probe = lo + static_cast<L>(lane) * step;
    const bool at_or_after = probe >= hi || static_cast<L>(__ldg(rp + probe) - base) >= target;
    const unsigned ballot = __ballot_sync(kFullMask, at_or_after);
    if (ballot == 0) {
      lo += (kWarp - 1) * step + 1;
    } else {
      const int f = __ffs(ballot) - 1;  // the first probe at or after the target
      if (f == 0) return lo;
      hi = min(hi, lo + static_cast<L>(f) * step);
      lo += static_cast<L>(f - 1) * step + 1;
    }
  }
  const L probe = lo + lane;
  const bool at_or_after = probe >= hi || static_cast<L>(__ldg(rp + probe) - base) >= target;
  const unsigned ballot = __ballot_sync(kFullMask, at_or_after);
  return ballot == 0 ? hi : lo + (__ffs(ballot) - 1);
}

// CSR / shared-pattern CSR, seed 004's CSR-I (hola/batched_tiled.hpp, split_emulate): each warp
// of the group takes the rows that start in its equal share of the matrix's entries and walks
// them alone in tiles of one warp (walk_tiles with G = 32: warp barriers only, no wait for the
// group's other warps), K = csr_i_entries_per_thread entries a thread a tile.
template <int K, bool Stage, class L, class V, class I>
__device__ __forceinline__ void csr_i_walk(const CsrAccess<V, I>& a, const Scalars<V>& s) {
  const GroupPos p = group_pos(s.group_threads);
  const bool active = group_active(p, s);
  const int lane = static_cast<int>(threadIdx.x) % kWarp;
  // The warp's rows and its first tile's row ends before x is staged (latency overlap).
  L r_begin = 0, r_end = 0, start = 0, end = 0;
  const I* rp = nullptr;
  I base = 0;
  if (active) {
    const L m = static_cast<L>(a.rows(p.b));
    rp = a.row_ptr + a.row_ptr_index(p.b, 0);
    base = __ldg(rp);
    const int warps = s.group_threads / kWarp, w = p.lane / kWarp;
    const L share = split_share<L>(static_cast<L>(__ldg(rp + m) - base), warps);
    r_begin = w == 0 ? L(0) : warp_first_row_from<L>(rp, base, m, static_cast<L>(w) * share);
    r_end = w == warps - 1 ? m : warp_first_row_from<L>(rp, base, m, static_cast<L>(w + 1) * share);
    if (r_begin < r_end) start = static_cast<L>(__ldg(rp + r_begin) - base);
    if (r_begin + lane < r_end) end = static_cast<L>(__ldg(rp + r_begin + lane + 1) - base);
  }
  const V* xb = x_of<Stage>(a, s, p, active);
  if (!active || r_begin >= r_end) return;  // whole warps leave
  const TiledSmem<K, V> sm(s, Stage);
  walk_tiles<K, L>(rp, base, a.col_idx + base, a.values + a.value_base(p.b) + base, xb,
                   s.y + a.y_offset(p.b), s.alpha, s.beta, r_begin, r_end, start, end, kWarp,
                   static_cast<int>(threadIdx.x) / kWarp, lane, sm);
}

// csr_i's kernels, one register cap a precision (measured on an H100,
// bench/results/2026-11-27-h100-batched-csr-i/, runs B and G): float, 4 entries a thread, at most
// 48 registers (1 280 threads an SM; 32 spilled and was slowest, 64 was 2-20 % slower); double,
// 8 entries a thread, at most 64 (with 48 registers 8 entries spilled and were slower than 4).
template <bool Stage, class L, class I>
__global__ __maxnreg__(48) void csr_i_float_kernel(CsrAccess<float, I> a, Scalars<float> s) {
  csr_i_walk<csr_i_entries_per_thread(sizeof(float)), Stage, L>(a, s);
}
template <bool Stage, class L, class I>
__global__ __maxnreg__(64) void csr_i_double_kernel(CsrAccess<double, I> a, Scalars<double> s) {
  csr_i_walk<csr_i_entries_per_thread(sizeof(double)), Stage, L>(a, s);
}

template <class Access, class V>
using KernelFn = void (*)(Access, Scalars<V>);

// The csr_i kernel of value type V.
template <bool Stage, class L, class V, class I>
KernelFn<CsrAccess<V, I>, V> csr_i_kernel() {
  if constexpr (std::is_same_v<V, float>)
    return csr_i_float_kernel<Stage, L, I>;
  else
    return csr_i_double_kernel<Stage, L, I>;
}

// COO (rows sorted inside each matrix), one thread per row: the row's first entry by binary
// search, then its run of entries in stored order.
template <bool Stage, class V, class I>
__global__ __launch_bounds__(kMaxBlock) void coo_kernel(OffsetAccess<V, I> a, Scalars<V> s) {
  const GroupPos p = group_pos(s.group_threads);
  const bool active = group_active(p, s);
  const V* xb = x_of<Stage>(a, s, p, active);
  if (!active) return;
  const std::int64_t m = a.rows(p.b);
  const std::int64_t e0 = a.entry_begin(p.b), e1 = a.entry_end(p.b);
  V* yb = s.y + a.y_offset(p.b);
  for (std::int64_t r = p.lane; r < m; r += s.group_threads) {
    std::int64_t lo = e0, hi = e1;  // first entry with row >= r
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (static_cast<std::int64_t>(a.row_idx[mid]) < r)
        lo = mid + 1;
      else
        hi = mid;
    }
    V sum = V(0);
    for (std::int64_t q = lo; q < e1 && static_cast<std::int64_t>(a.row_idx[q]) == r; ++q)
      sum += a.values[q] * xb[a.col_idx[q]];
    yb[r] = combine<V>(s.alpha, sum, s.beta, yb + r);
  }
}

// ELL (column-major slab per matrix, padding col_idx == -1), one thread per row: consecutive
// threads read consecutive slots.
template <bool Stage, class V, class I>
__global__ __launch_bounds__(kMaxBlock) void ell_kernel(OffsetAccess<V, I> a, Scalars<V> s) {
  const GroupPos p = group_pos(s.group_threads);
  const bool active = group_active(p, s);
  const V* xb = x_of<Stage>(a, s, p, active);
  if (!active) return;
  const std::int64_t m = a.rows(p.b);
  const std::int64_t w = a.ell_width(p.b), base = a.entry_begin(p.b);
  V* yb = s.y + a.y_offset(p.b);
  for (std::int64_t r = p.lane; r < m; r += s.group_threads) {
    V sum = V(0);
    for (std::int64_t k = 0; k < w; ++k) {
      const std::int64_t q = base + k * m + r;
      const I c = a.col_idx[q];
      if (c >= 0) sum += a.values[q] * xb[c];
    }
    yb[r] = combine<V>(s.alpha, sum, s.beta, yb + r);
  }
}

template <class Access, class V>
void launch(KernelFn<Access, V> fn, const Access& a, const Scalars<V>& s, const Plan& plan,
            std::size_t shared_bytes, void* stream) {
  const std::int64_t per_block = plan.block_threads / plan.group_threads;
  const std::int64_t blocks = (s.count + per_block - 1) / per_block;
  if (blocks > 0x7fffffffLL)
    fail(status::unsupported, "batched gpu: batch needs more than 2^31 - 1 blocks");
  fn<<<static_cast<unsigned>(blocks), static_cast<unsigned>(plan.block_threads), shared_bytes,
       ::hola::cuda::as_stream(stream)>>>(a, s);
  HOLA_CUDA_CHECK_LAUNCH("batched");
}

}  // namespace detail

template <class V, class I>
void apply(const BatchView<V, I>& batch, const Plan& plan, V alpha, const V* x, V beta, V* y,
           void* stream, const int* skip) {
  using namespace detail;
  if (batch.memory != Memory::device)
    fail(status::invalid_argument, "batched gpu: the batch is not in device memory");
  check_plan(plan, batch.format, sizeof(V));
  const std::size_t shared_bytes = plan_shared_bytes(plan, sizeof(V));
  if (batch.count == 0 || batch.total_rows == 0) return;

  Scalars<V> s{alpha, beta, x, y, batch.count, plan.group_threads, plan.stage_cols, skip};
  if (plan.kernel == Kernel::csr_scalar || plan.kernel == Kernel::csr_vector ||
      plan.kernel == Kernel::csr_smart || plan.kernel == Kernel::csr_tiled ||
      plan.kernel == Kernel::csr_i) {
    const CsrAccess<V, I> a(batch);
    using Fn = KernelFn<CsrAccess<V, I>, V>;
    Fn fn;
    const bool local32 = tiled_local32(batch) && !plan.local_index_64;
    if (plan.kernel == Kernel::csr_tiled) {
      if (local32)
        fn = plan.stage_x ? csr_tiled_kernel<true, int, V, I> : csr_tiled_kernel<false, int, V, I>;
      else
        fn = plan.stage_x ? csr_tiled_kernel<true, std::int64_t, V, I>
                          : csr_tiled_kernel<false, std::int64_t, V, I>;
    } else if (plan.kernel == Kernel::csr_i) {
      if (local32)
        fn = plan.stage_x ? csr_i_kernel<true, int, V, I>() : csr_i_kernel<false, int, V, I>();
      else
        fn = plan.stage_x ? csr_i_kernel<true, std::int64_t, V, I>()
                          : csr_i_kernel<false, std::int64_t, V, I>();
    } else if (plan.kernel == Kernel::csr_scalar)
      fn = plan.stage_x ? csr_scalar_kernel<true, V, I> : csr_scalar_kernel<false, V, I>;
    else if (plan.kernel == Kernel::csr_vector)
      fn = plan.stage_x ? csr_vector_kernel<true, V, I> : csr_vector_kernel<false, V, I>;
    else
      fn = plan.stage_x ? csr_smart_kernel<true, V, I> : csr_smart_kernel<false, V, I>;
    launch(fn, a, s, plan, shared_bytes, stream);
  } else {
    const OffsetAccess<V, I> a(batch);
    using Fn = KernelFn<OffsetAccess<V, I>, V>;
    Fn fn;
    if (plan.kernel == Kernel::coo)
      fn = plan.stage_x ? coo_kernel<true, V, I> : coo_kernel<false, V, I>;
    else
      fn = plan.stage_x ? ell_kernel<true, V, I> : ell_kernel<false, V, I>;
    launch(fn, a, s, plan, shared_bytes, stream);
  }
}

}  // namespace hola::batched::gpu

#define HOLA_BATCHED_GPU_INSTANTIATE(V, I)                                                  \
  template void apply<V, I>(const BatchView<V, I>&, const Plan&, V, const V*, V, V*, void*, \
                            const int*);
