// csr_tiled and csr_i (docs/batched.md): the per-tile decisions shared by the CUDA kernels
// (kernels/cuda/batched/batched_kernels.cuh) and host emulations of those kernels, thread by
// thread, which the unit tests run on the CPU machine (no GPU there) to check the tile boundaries,
// the long-row fallback, the lane mapping and the summation order.
//
// How a group of G threads walks its matrix: a tile is a run of whole rows r0 .. r0 + rows - 1
// with at most G rows and at most T = kTiledEntriesPerThread * G entries. Thread t holds the end
// of row r0 + t; the rows whose end lies within T entries of the tile's start are counted (a
// prefix of the threads, as row ends never decrease), the tile's length is the largest such end.
// All threads then load the tile's values and columns (consecutive entries: coalesced), multiply
// by x and store the products in shared memory; then each row of the tile is summed by W lanes
// (W the largest power of two with W * rows <= G, at most 32), W-lane shuffle tree last. A row
// with more than T entries (rows == 0) is summed by the whole group, each thread over a stride of
// G entries, then a shuffle tree per warp and the warps' sums in order. While the tile is
// loaded, each thread also loads the end of its row of the next tile. The order of every sum is
// fixed by the matrix and G: results are the same bit for bit on every run.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "hola/batched.hpp"
#include "hola/batched_access.hpp"

namespace hola::batched {

// Entries of a tile for a tiling group of G threads (K entries a thread: kTiledEntriesPerThread
// for csr_tiled, csr_i_entries_per_thread for csr_i's one-warp tiles).
HOLA_BATCHED_HD constexpr int tiled_tile_entries(int group_threads,
                                                 int entries_per_thread = kTiledEntriesPerThread) {
  return entries_per_thread * group_threads;
}

// Lanes that sum one row of a tile of `rows` rows (1 <= rows <= G): the largest power of two W
// with W * rows <= G, at most 32 (a W-lane shuffle tree stays inside a warp).
HOLA_BATCHED_HD inline int tiled_row_width(int rows, int group_threads) {
  int w = 1;
  while (w < 32 && 2 * w * rows <= group_threads) w *= 2;
  return w;
}

// Whether row r0 + t (its end `end`; entries local to the matrix) joins the tile that starts at
// row r0, entry `start`. True for a prefix of t: row ends never decrease. Differences only, so
// that 32-bit local indices cannot overflow.
template <class L>
HOLA_BATCHED_HD inline bool tiled_fits(L r0, int t, L m, L end, L start, int tile_entries) {
  return r0 + t < m && end - start <= tile_entries;
}

// 32-bit local indices (rows, columns, entries of one matrix) are safe when every matrix's sizes
// stay this far below 2^31: loop indices run up to a group (1024) or a tile past them.
inline constexpr std::int64_t kTiledLocal32Limit = 0x7fffffffLL - 8 * 1024;

template <class V, class I>
bool tiled_local32(const BatchView<V, I>& b) {
  const bool shared = b.format == Format::csr_shared;
  const std::int64_t rows = shared ? b.shared_rows : b.total_rows;
  const std::int64_t cols = shared ? b.shared_cols : b.total_cols;
  const std::int64_t nnz = shared ? b.shared_nnz : b.total_nnz;
  return rows <= kTiledLocal32Limit && cols <= kTiledLocal32Limit && nnz <= kTiledLocal32Limit;
}

// What the emulation saw (for tests of the tile boundaries).
struct TiledStats {
  std::int64_t tiles = 0;      // tiles of whole rows
  std::int64_t long_rows = 0;  // rows longer than a tile (summed by the whole group)
  std::int64_t max_tile_rows = 0;
  std::int64_t max_tile_entries = 0;
  std::int64_t rows_written = 0;  // every row of every matrix exactly once
};

namespace tiled_detail {

// __shfl_down_sync(mask, v, off, width) on every lane of `lanes` at once (sum += shuffled).
template <class V>
void shuffle_down_add(std::vector<V>& lanes, int width) {
  for (int off = width / 2; off > 0; off /= 2) {
    const std::vector<V> old = lanes;
    for (std::size_t l = 0; l < lanes.size(); ++l) {
      const int in_segment = static_cast<int>(l % static_cast<std::size_t>(width));
      // Out of the segment the shuffle returns the lane's own value (only discarded lanes).
      lanes[l] = old[l] + (in_segment + off < width ? old[l + off] : old[l]);
    }
  }
}

}  // namespace tiled_detail

namespace tiled_detail {

// The tile walk of a group of G threads over rows r_begin .. r_end - 1 of one matrix (rp: its
// row pointer, base = rp[0]; cols / vals from its first entry; xb / yb its x and y): the device
// kernel's steps thread by thread, same tiles, same lanes, same order of every sum.
template <class V, class I>
void walk_rows(const I* rp, const I* cols, const V* vals, const V* xb, V* yb, std::int64_t r_begin,
               std::int64_t r_end, int G, int K, V alpha, V beta, TiledStats& st) {
  using L = std::int64_t;
  const I base = rp[0];
  const int T = tiled_tile_entries(G, K);
  std::vector<L> end(static_cast<std::size_t>(G)), next(end);
  std::vector<V> prod(static_cast<std::size_t>(T)), lanes(static_cast<std::size_t>(G));
  std::vector<int> rowend(static_cast<std::size_t>(G));
  for (int t = 0; t < G; ++t)
    end[t] = r_begin + t < r_end ? static_cast<L>(rp[r_begin + t + 1] - base) : 0;
  L r0 = r_begin, start = r_begin < r_end ? static_cast<L>(rp[r_begin] - base) : 0;
  while (r0 < r_end) {
    int rows = 0, len = 0;
    for (int t = 0; t < G; ++t)
      if (tiled_fits<L>(r0, t, r_end, end[t], start, T)) {
        ++rows;
        len = std::max(len, static_cast<int>(end[t] - start));
      }
    const L r1 = r0 + (rows > 0 ? rows : 1);
    for (int t = 0; t < G; ++t)
      next[t] = r1 + t < r_end ? static_cast<L>(rp[r1 + t + 1] - base) : 0;
    if (rows == 0) {
      const L row_end = static_cast<L>(rp[r0 + 1] - base);
      for (int t = 0; t < G; ++t) {
        V sum = V(0);
        for (L q = start + t; q < row_end; q += G) sum += vals[q] * xb[cols[q]];
        lanes[t] = sum;
      }
      shuffle_down_add(lanes, 32);
      V total = lanes[0];
      for (int w = 1; w < G / 32; ++w) total += lanes[static_cast<std::size_t>(w) * 32];
      yb[r0] = combine<V>(alpha, total, beta, yb + r0);
      ++st.long_rows;
      ++st.rows_written;
      start = row_end;
    } else {
      for (int t = 0; t < rows; ++t) rowend[t] = static_cast<int>(end[t] - start);
      for (int j = 0; j < len; ++j) prod[j] = vals[start + j] * xb[cols[start + j]];
      const int W = tiled_row_width(rows, G);
      for (int t = 0; t < G; ++t) {
        const int row = t / W, sub = t % W;
        V sum = V(0);
        if (row < rows)
          for (int q = (row > 0 ? rowend[row - 1] : 0) + sub; q < rowend[row]; q += W)
            sum += prod[q];
        lanes[t] = sum;
      }
      shuffle_down_add(lanes, W);
      for (int row = 0; row < rows; ++row) {
        yb[r0 + row] =
            combine<V>(alpha, lanes[static_cast<std::size_t>(row) * W], beta, yb + r0 + row);
        ++st.rows_written;
      }
      ++st.tiles;
      st.max_tile_rows = std::max<std::int64_t>(st.max_tile_rows, rows);
      st.max_tile_entries = std::max<std::int64_t>(st.max_tile_entries, len);
      start += len;
    }
    r0 = r1;
    std::swap(end, next);
  }
}

// Calls f(rp, cols, vals, xb, yb, rows) for every matrix of B with rows (CSR or csr_shared).
template <class V, class I, class F>
void for_each_csr_matrix(const BatchView<V, I>& B, const V* x, V* y, F&& f) {
  const CsrAccess<V, I> a(B);
  for (std::int64_t b = 0; b < B.count; ++b) {
    const std::int64_t m = a.rows(b);
    if (m == 0) continue;
    const I* rp = a.row_ptr + a.row_ptr_index(b, 0);
    const I base = rp[0];
    f(rp, a.col_idx + base, a.values + a.value_base(b) + base, x + a.x_offset(b), y + a.y_offset(b),
      m);
  }
}

}  // namespace tiled_detail

// Host emulation of csr_tiled with groups of G threads (a multiple of 32, 32..1024), CSR or
// csr_shared: the device kernel's steps thread by thread, same tiles, same lanes, same order of
// every sum (the device may fuse a multiply and an add where this does not).
template <class V, class I>
void tiled_emulate(const BatchView<V, I>& B, int G, V alpha, const V* x, V beta, V* y,
                   TiledStats* stats = nullptr) {
  TiledStats st;
  tiled_detail::for_each_csr_matrix(
      B, x, y, [&](const I* rp, const I* cols, const V* vals, const V* xb, V* yb, std::int64_t m) {
        tiled_detail::walk_rows(rp, cols, vals, xb, yb, 0, m, G, kTiledEntriesPerThread, alpha,
                                beta, st);
      });
  if (stats) *stats = st;
}

// ---- csr_i (seed 004's CSR-I, docs/batched.md) ----
//
// The G / 32 warps of a group split their matrix's entries into equal shares: share
// S = ceil(nnz / warps), warp w owns the rows whose first entry lies in [w S, (w + 1) S) (the
// last warp also the trailing empty rows), and walks them alone as a csr_tiled group of one warp
// (tiles of at most 32 rows and 32 * csr_i_entries_per_thread entries). A row belongs to one warp,
// so no row is split between warps: no atomics, the same bits on every run; a warp's share exceeds
// S by at most the part of its last row past the share's end. The seed stores each warp's first row
// at setup; here each warp finds it per call (a 32-ary search by the warp over the row pointer, two
// steps for a matrix of up to 1 024 rows), so no setup and no memory.

// Entries of one warp's share of a matrix of `entries` entries split among `warps` warps.
template <class L>
HOLA_BATCHED_HD inline L split_share(L entries, int warps) {
  return (entries + warps - 1) / warps;
}

// Host emulation of csr_i with groups of G threads (a multiple of 32, 32..1024), CSR or
// csr_shared: the device kernel's shares, tiles, lanes and order of every sum.
template <class V, class I>
void split_emulate(const BatchView<V, I>& B, int G, V alpha, const V* x, V beta, V* y,
                   TiledStats* stats = nullptr) {
  TiledStats st;
  const int warps = G / 32;
  tiled_detail::for_each_csr_matrix(
      B, x, y, [&](const I* rp, const I* cols, const V* vals, const V* xb, V* yb, std::int64_t m) {
        const I base = rp[0];
        const std::int64_t nnz = static_cast<std::int64_t>(rp[m] - base);
        const std::int64_t share = split_share<std::int64_t>(nnz, warps);
        // First row whose first entry is at or after `target` (m when none).
        auto first_row = [&](std::int64_t target) {
          return static_cast<std::int64_t>(std::lower_bound(rp, rp + m, target,
                                                            [&](I start, std::int64_t t) {
                                                              return static_cast<std::int64_t>(
                                                                         start - base) < t;
                                                            }) -
                                           rp);
        };
        for (int w = 0; w < warps; ++w) {
          const std::int64_t r_begin = w == 0 ? 0 : first_row(w * share);
          const std::int64_t r_end = w == warps - 1 ? m : first_row((w + 1) * share);
          tiled_detail::walk_rows(rp, cols, vals, xb, yb, r_begin, r_end, 32,
                                  csr_i_entries_per_thread(sizeof(V)), alpha, beta, st);
        }
      });
  if (stats) *stats = st;
}

}  // namespace hola::batched
