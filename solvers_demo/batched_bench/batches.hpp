// hola-batched-bench: the generated batches of the sweep (issue 18). Matrices are drawn in
// parallel (one random stream per matrix, so a batch does not depend on the thread count) and the
// layouts of hola/batched.hpp are filled in parallel: the large cases hold 10^8+ entries.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "hola/batched_generate.hpp"
#include "hola/error.hpp"

namespace hola::batched_bench {

using I = std::int32_t;

// The sparsity patterns of a case.
//   stencil1d  3-point 1D stencil, n rows
//   stencil2d  5-point 2D stencil on an nx x ny grid, nx*ny about n
//   random     0..12 entries per row at random columns (mean about 6)
//   wide       0..32 entries per row at random columns (mean about 16, capped by n)
//   mixed      a third each of stencil1d, stencil2d, random (the mix)
//   shared2d   one 5-point stencil pattern (side x side) for every matrix, values differ
inline const std::vector<std::string>& pattern_names() {
  static const std::vector<std::string> names{"stencil1d", "stencil2d", "random",
                                              "wide",      "mixed",     "shared2d"};
  return names;
}

template <class V>
batched::SmallMatrix<V> stencil_matrix(std::int64_t nx, std::int64_t ny, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  batched::SmallMatrix<V> m;
  m.rows = m.cols = nx * ny;
  for (std::int64_t j = 0; j < ny; ++j)
    for (std::int64_t i = 0; i < nx; ++i) {
      const std::int64_t k = j * nx + i;
      const std::int64_t cols[5] = {k - nx, k - 1, k, k + 1, k + nx};
      const bool present[5] = {j > 0, i > 0, true, i + 1 < nx, j + 1 < ny};
      for (int t = 0; t < 5; ++t)
        if (present[t]) {
          m.r.push_back(k);
          m.c.push_back(cols[t]);
          m.v.push_back(static_cast<V>(val(rng)));
        }
    }
  return m;
}

// One matrix of `pattern` (not shared2d) with about n rows.
template <class V>
batched::SmallMatrix<V> pattern_matrix(const std::string& pattern, std::int64_t index,
                                       std::int64_t n, std::mt19937_64& rng) {
  std::string p = pattern;
  if (p == "mixed") p = index % 3 == 0 ? "stencil1d" : index % 3 == 1 ? "stencil2d" : "random";
  if (p == "stencil1d") return stencil_matrix<V>(n, 1, rng);
  if (p == "stencil2d") {
    const std::int64_t side =
        std::max<std::int64_t>(1, static_cast<std::int64_t>(std::sqrt(static_cast<double>(n))));
    const std::int64_t nx =
        std::uniform_int_distribution<std::int64_t>(std::max<std::int64_t>(1, side / 2), side)(rng);
    return stencil_matrix<V>(nx, std::max<std::int64_t>(1, n / nx), rng);
  }
  if (p == "random") return batched::random_matrix<V>(n, n, 12, 0.0, rng);
  if (p == "wide") return batched::random_matrix<V>(n, n, 32, 0.0, rng);
  fail(status::invalid_argument, "hola-batched-bench: unknown pattern '" + pattern + "'");
}

// count matrices; sizes uniform in [min_size, max_size] (shared2d: min_size is the grid side).
template <class V>
std::vector<batched::SmallMatrix<V>> make_matrices(const std::string& pattern, std::int64_t count,
                                                   std::int64_t min_size, std::int64_t max_size,
                                                   std::uint64_t seed) {
  std::vector<batched::SmallMatrix<V>> ms(static_cast<std::size_t>(count));
  if (pattern == "shared2d") {
    std::mt19937_64 rng(seed);
    const batched::SmallMatrix<V> p = stencil_matrix<V>(min_size, min_size, rng);
#pragma omp parallel for schedule(dynamic, 256)
    for (std::int64_t i = 0; i < count; ++i) {
      std::mt19937_64 r(seed * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(i) + 1);
      std::uniform_real_distribution<double> val(-1.0, 1.0);
      ms[i] = p;
      for (auto& v : ms[i].v) v = static_cast<V>(val(r));
    }
    return ms;
  }
  bool bad = false;
#pragma omp parallel for schedule(dynamic, 256)
  for (std::int64_t i = 0; i < count; ++i) {
    std::mt19937_64 r(seed * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(i) + 1);
    const std::int64_t n = std::uniform_int_distribution<std::int64_t>(min_size, max_size)(r);
    try {
      ms[i] = pattern_matrix<V>(pattern, i, n, r);
    } catch (...) {
#pragma omp atomic write
      bad = true;
    }
  }
  if (bad) fail(status::invalid_argument, "hola-batched-bench: unknown pattern '" + pattern + "'");
  return ms;
}

// Offsets of `count` consecutive blocks of size(0), size(1), ... entries: count + 1 prefix sums
// from 0, stored as I in `off` and returned in 64 bits; fails when the total exceeds 32-bit
// indices.
template <class Size>
std::vector<std::int64_t> block_offsets(std::int64_t count, std::vector<I>& off, Size size) {
  std::vector<std::int64_t> o(static_cast<std::size_t>(count + 1), 0);
  for (std::int64_t i = 0; i < count; ++i) o[i + 1] = o[i] + size(i);
  if (o[count] > 0x7fffffffLL)
    fail(status::unsupported, "hola-batched-bench: batch exceeds 32-bit indices");
  off.assign(o.size(), 0);
  for (std::int64_t i = 0; i <= count; ++i) off[i] = static_cast<I>(o[i]);
  return o;
}

// The layout of hola::batched::make_batch, filled in parallel. csr_shared takes the pattern of
// the first matrix (the shared2d generator gives every matrix that pattern).
template <class V>
batched::BatchData<V, I> build_batch(const std::vector<batched::SmallMatrix<V>>& ms,
                                     batched::Format format) {
  using batched::Format;
  batched::BatchData<V, I> d;
  d.format = format;
  d.count = static_cast<std::int64_t>(ms.size());
  const std::int64_t count = d.count;
  if (format == Format::csr_shared) {
    if (count == 0) return batched::make_batch<V, I>(ms, format);
    const auto& p = ms.front();
    d.shared_rows = p.rows;
    d.shared_cols = p.cols;
    d.shared_nnz = p.nnz();
    d.row_ptr.assign(static_cast<std::size_t>(p.rows + 1), 0);
    for (std::int64_t k = 0; k < p.nnz(); ++k) {
      ++d.row_ptr[static_cast<std::size_t>(p.r[k] + 1)];
      d.col_idx.push_back(static_cast<I>(p.c[k]));
    }
    for (std::int64_t r = 0; r < p.rows; ++r) d.row_ptr[r + 1] += d.row_ptr[r];
    d.values.resize(static_cast<std::size_t>(count * p.nnz()));
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < count; ++i)
      std::copy(ms[i].v.begin(), ms[i].v.end(), d.values.begin() + i * p.nnz());
    d.total_rows = count * d.shared_rows;
    d.total_cols = count * d.shared_cols;
    d.total_nnz = count * d.shared_nnz;
    return d;
  }
  // Entries each matrix stores (ELL: its slab, rows x longest row).
  std::vector<std::int64_t> entries(static_cast<std::size_t>(count)), width(entries.size(), 0);
#pragma omp parallel for schedule(dynamic, 1024)
  for (std::int64_t i = 0; i < count; ++i) {
    const auto& m = ms[i];
    if (format == Format::ell) {
      std::int64_t run = 0, best = 0;
      for (std::int64_t k = 0; k < m.nnz(); ++k) {  // rows are sorted: runs of equal r
        run = (k > 0 && m.r[k] == m.r[k - 1]) ? run + 1 : 1;
        best = std::max(best, run);
      }
      width[i] = best;
      entries[i] = best * m.rows;
    } else {
      entries[i] = m.nnz();
    }
  }
  const auto ro = block_offsets(count, d.row_off, [&](std::int64_t i) { return ms[i].rows; });
  const auto co = block_offsets(count, d.col_off, [&](std::int64_t i) { return ms[i].cols; });
  const auto no = block_offsets(count, d.nnz_off, [&](std::int64_t i) { return entries[i]; });
  d.total_rows = ro[count];
  d.total_cols = co[count];
  d.total_nnz = no[count];
  d.values.assign(static_cast<std::size_t>(d.total_nnz), V(0));
  d.col_idx.assign(static_cast<std::size_t>(d.total_nnz), format == Format::ell ? I(-1) : I(0));
  if (format == Format::coo) d.row_idx.assign(static_cast<std::size_t>(d.total_nnz), 0);
  if (format == Format::csr) d.row_ptr.assign(static_cast<std::size_t>(d.total_rows + 1), 0);
#pragma omp parallel for schedule(dynamic, 1024)
  for (std::int64_t i = 0; i < count; ++i) {
    const auto& m = ms[i];
    const std::int64_t base = no[i];
    if (format == Format::ell) {
      std::int64_t slot_in_row = 0;
      for (std::int64_t k = 0; k < m.nnz(); ++k) {
        slot_in_row = (k > 0 && m.r[k] == m.r[k - 1]) ? slot_in_row + 1 : 0;
        const std::int64_t q = base + slot_in_row * m.rows + m.r[k];
        d.values[q] = m.v[k];
        d.col_idx[q] = static_cast<I>(m.c[k]);
      }
      continue;
    }
    for (std::int64_t k = 0; k < m.nnz(); ++k) {
      d.values[base + k] = m.v[k];
      d.col_idx[base + k] = static_cast<I>(m.c[k]);
      if (format == Format::coo) d.row_idx[base + k] = static_cast<I>(m.r[k]);
    }
    if (format == Format::csr) {
      // Global row pointer: row r of matrix i ends where its entries end.
      std::int64_t k = 0;
      for (std::int64_t r = 0; r < m.rows; ++r) {
        while (k < m.nnz() && m.r[k] == r) ++k;
        d.row_ptr[ro[i] + r + 1] = static_cast<I>(base + k);
      }
    }
  }
  return d;
}

// The same batch with values converted to W (structure copied).
template <class W, class V>
batched::BatchData<W, I> convert_values(const batched::BatchData<V, I>& s) {
  batched::BatchData<W, I> d;
  d.format = s.format;
  d.count = s.count;
  d.row_off = s.row_off;
  d.col_off = s.col_off;
  d.nnz_off = s.nnz_off;
  d.row_ptr = s.row_ptr;
  d.row_idx = s.row_idx;
  d.col_idx = s.col_idx;
  d.values.resize(s.values.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < static_cast<std::int64_t>(s.values.size()); ++k)
    d.values[k] = static_cast<W>(s.values[k]);
  d.shared_rows = s.shared_rows;
  d.shared_cols = s.shared_cols;
  d.shared_nnz = s.shared_nnz;
  d.total_rows = s.total_rows;
  d.total_cols = s.total_cols;
  d.total_nnz = s.total_nnz;
  return d;
}

}  // namespace hola::batched_bench
