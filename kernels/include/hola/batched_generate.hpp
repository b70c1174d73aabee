// Owning host batches (hola/batched.hpp layout) built from lists of small matrices, and random
// batches for tests, benchmarks and the batched CG demo. Header-only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "hola/batched.hpp"
#include "hola/error.hpp"

namespace hola::batched {

// One small matrix as row-sorted triplets (no duplicates: the builders below keep them unique).
template <class V>
struct SmallMatrix {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::vector<std::int64_t> r, c;
  std::vector<V> v;
  std::int64_t nnz() const { return static_cast<std::int64_t>(v.size()); }
};

// Owning storage of one batch in one format; view() points into it.
template <class V, class I>
struct BatchData {
  Format format = Format::csr;
  std::int64_t count = 0;
  std::vector<I> row_off, col_off, nnz_off, row_ptr, row_idx, col_idx;
  std::vector<V> values;
  std::int64_t shared_rows = 0, shared_cols = 0, shared_nnz = 0;
  std::int64_t total_rows = 0, total_cols = 0, total_nnz = 0;

  BatchView<V, I> view() const {
    BatchView<V, I> b;
    b.format = format;
    b.memory = Memory::host;
    b.count = count;
    b.shared_rows = shared_rows;
    b.shared_cols = shared_cols;
    b.shared_nnz = shared_nnz;
    point_index_arrays(b, data_or_null<I>);
    b.values = data_or_null(values);
    b.total_rows = total_rows;
    b.total_cols = total_cols;
    b.total_nnz = total_nnz;
    return b;
  }

  // Points each of b's six index arrays at place(v), v the vector of that array here: e.g.
  // data_or_null, or a copy of v in device memory.
  template <class Place>
  void point_index_arrays(BatchView<V, I>& b, Place&& place) const {
    b.row_off = place(row_off);
    b.col_off = place(col_off);
    b.nnz_off = place(nnz_off);
    b.row_ptr = place(row_ptr);
    b.row_idx = place(row_idx);
    b.col_idx = place(col_idx);
  }

  template <class T>
  static const T* data_or_null(const std::vector<T>& v) {
    return v.empty() ? nullptr : v.data();
  }
};

// Builds `format` from the matrices. csr_shared takes the pattern of the first matrix and needs
// every matrix to have it (invalid_argument otherwise).
template <class V, class I>
BatchData<V, I> make_batch(const std::vector<SmallMatrix<V>>& ms, Format format) {
  BatchData<V, I> d;
  d.format = format;
  d.count = static_cast<std::int64_t>(ms.size());
  if (format == Format::csr_shared) {
    if (!ms.empty()) {
      const SmallMatrix<V>& p = ms.front();
      d.shared_rows = p.rows;
      d.shared_cols = p.cols;
      d.shared_nnz = p.nnz();
      d.row_ptr.assign(static_cast<std::size_t>(p.rows + 1), I(0));
      for (std::int64_t k = 0; k < p.nnz(); ++k) {
        ++d.row_ptr[static_cast<std::size_t>(p.r[k] + 1)];
        d.col_idx.push_back(static_cast<I>(p.c[k]));
      }
      for (std::int64_t i = 0; i < p.rows; ++i) d.row_ptr[i + 1] += d.row_ptr[i];
    } else {
      d.row_ptr.assign(1, I(0));
    }
    for (const auto& m : ms) {
      if (m.rows != d.shared_rows || m.cols != d.shared_cols || m.r != ms.front().r ||
          m.c != ms.front().c)
        fail(status::invalid_argument, "make_batch: csr_shared needs one pattern");
      d.values.insert(d.values.end(), m.v.begin(), m.v.end());
    }
    d.total_rows = d.count * d.shared_rows;
    d.total_cols = d.count * d.shared_cols;
    d.total_nnz = d.count * d.shared_nnz;
    return d;
  }
  d.row_off.push_back(0);
  d.col_off.push_back(0);
  d.nnz_off.push_back(0);
  if (format == Format::csr) d.row_ptr.push_back(0);
  for (const auto& m : ms) {
    if (format == Format::ell) {
      std::vector<std::int64_t> len(static_cast<std::size_t>(m.rows), 0);
      for (auto r : m.r) ++len[static_cast<std::size_t>(r)];
      const std::int64_t w = m.rows > 0 ? *std::max_element(len.begin(), len.end()) : 0;
      const std::size_t base = d.values.size();
      d.values.resize(base + static_cast<std::size_t>(w * m.rows), V(0));
      d.col_idx.resize(base + static_cast<std::size_t>(w * m.rows), I(-1));
      std::vector<std::int64_t> fill(static_cast<std::size_t>(m.rows), 0);
      for (std::int64_t k = 0; k < m.nnz(); ++k) {
        const std::int64_t r = m.r[k];
        const std::size_t slot = base + static_cast<std::size_t>(fill[r]++ * m.rows + r);
        d.values[slot] = m.v[k];
        d.col_idx[slot] = static_cast<I>(m.c[k]);
      }
    } else {
      for (std::int64_t k = 0; k < m.nnz(); ++k) {
        if (format == Format::coo) d.row_idx.push_back(static_cast<I>(m.r[k]));
        d.col_idx.push_back(static_cast<I>(m.c[k]));
        d.values.push_back(m.v[k]);
      }
      if (format == Format::csr) {
        std::vector<std::int64_t> len(static_cast<std::size_t>(m.rows), 0);
        for (auto r : m.r) ++len[static_cast<std::size_t>(r)];
        for (std::int64_t i = 0; i < m.rows; ++i)
          d.row_ptr.push_back(static_cast<I>(d.row_ptr.back() + len[i]));
      }
    }
    d.row_off.push_back(static_cast<I>(d.row_off.back() + m.rows));
    d.col_off.push_back(static_cast<I>(d.col_off.back() + m.cols));
    d.nnz_off.push_back(static_cast<I>(d.values.size()));
  }
  d.total_rows = d.row_off.back();
  d.total_cols = d.col_off.back();
  d.total_nnz = static_cast<std::int64_t>(d.values.size());
  return d;
}

// Row i of m: k distinct columns out of cand (all of m's columns, reordered in place), sorted,
// values from val. Partial Fisher-Yates: the first k candidates become a random subset.
template <class V>
void append_random_row(SmallMatrix<V>& m, std::int64_t i, std::int64_t k,
                       std::vector<std::int64_t>& cand, std::uniform_real_distribution<double>& val,
                       std::mt19937_64& rng) {
  const std::int64_t cols = static_cast<std::int64_t>(cand.size());
  for (std::int64_t t = 0; t < k; ++t)
    std::swap(cand[t], cand[std::uniform_int_distribution<std::int64_t>(t, cols - 1)(rng)]);
  std::vector<std::int64_t> picked(cand.begin(), cand.begin() + k);
  std::sort(picked.begin(), picked.end());
  for (auto c : picked) {
    m.r.push_back(i);
    m.c.push_back(c);
    m.v.push_back(static_cast<V>(val(rng)));
  }
}

// Random rows x cols matrix: each row gets 0..max_row entries at distinct random columns
// (sorted), long_row_fraction of rows are dense-ish (up to all columns), values in [-1, 1].
template <class V>
SmallMatrix<V> random_matrix(std::int64_t rows, std::int64_t cols, std::int64_t max_row,
                             double long_row_fraction, std::mt19937_64& rng) {
  SmallMatrix<V> m;
  m.rows = rows;
  m.cols = cols;
  std::uniform_real_distribution<double> val(-1.0, 1.0), u(0.0, 1.0);
  std::vector<std::int64_t> cand(static_cast<std::size_t>(cols));
  for (std::int64_t j = 0; j < cols; ++j) cand[j] = j;
  for (std::int64_t i = 0; i < rows; ++i) {
    if (cols == 0) break;
    const std::int64_t cap = u(rng) < long_row_fraction ? cols : std::min(cols, max_row);
    const std::int64_t k = std::uniform_int_distribution<std::int64_t>(0, cap)(rng);
    append_random_row(m, i, k, cand, val, rng);
  }
  return m;
}

// A mixed batch: sizes uniform in [min_size, max_size] (rows and columns drawn separately,
// square when square is set), plus the corner cases when corner_cases is set: empty matrices
// (0 x 0, 0 x n, m x 0), 1 x 1, and a matrix with rows longer than a warp.
template <class V>
std::vector<SmallMatrix<V>> random_matrices(std::int64_t count, std::int64_t min_size,
                                            std::int64_t max_size, std::uint64_t seed,
                                            bool corner_cases = true, bool square = false) {
  std::mt19937_64 rng(seed);
  std::vector<SmallMatrix<V>> out;
  std::uniform_int_distribution<std::int64_t> size(min_size, max_size);
  if (corner_cases) {
    out.push_back(random_matrix<V>(0, 0, 4, 0.0, rng));
    out.push_back(random_matrix<V>(0, 5, 4, 0.0, rng));
    out.push_back(random_matrix<V>(7, 0, 4, 0.0, rng));
    out.push_back(random_matrix<V>(1, 1, 1, 1.0, rng));
    out.push_back(random_matrix<V>(40, 100, 100, 1.0, rng));
  }
  while (static_cast<std::int64_t>(out.size()) < count) {
    const std::int64_t m = size(rng), n = square ? m : size(rng);
    out.push_back(random_matrix<V>(m, n, 12, 0.05, rng));
  }
  // Spread the corner cases over the batch.
  std::shuffle(out.begin(), out.end(), rng);
  out.resize(static_cast<std::size_t>(count));
  return out;
}

// A rows x cols matrix whose row i has lengths[i] entries (at most cols) at distinct random
// columns (sorted), values in [-1, 1].
template <class V>
SmallMatrix<V> matrix_with_row_lengths(const std::vector<std::int64_t>& lengths, std::int64_t cols,
                                       std::mt19937_64& rng) {
  SmallMatrix<V> m;
  m.rows = static_cast<std::int64_t>(lengths.size());
  m.cols = cols;
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  std::vector<std::int64_t> cand(static_cast<std::size_t>(cols));
  for (std::int64_t j = 0; j < cols; ++j) cand[j] = j;
  for (std::int64_t i = 0; i < m.rows; ++i) {
    const std::int64_t k = std::min(lengths[static_cast<std::size_t>(i)], cols);
    append_random_row(m, i, k, cand, val, rng);
  }
  return m;
}

// Matrices at the edges of csr_tiled's tiles (tiles of 4 * G entries and at most G rows, G = 32
// .. 1024 threads): empty matrices, 1 x 1, every row empty (fewer and more rows than a group),
// rows of exactly a tile's length and one more or less for every group size, long rows between
// short and empty ones, more one-entry rows than any group has threads, and `wide` matrices
// (0..32 entries a row).
template <class V>
std::vector<SmallMatrix<V>> tile_edge_matrices(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<SmallMatrix<V>> out;
  out.push_back(random_matrix<V>(0, 0, 1, 0.0, rng));
  out.push_back(random_matrix<V>(0, 5, 1, 0.0, rng));
  out.push_back(random_matrix<V>(7, 0, 1, 0.0, rng));
  out.push_back(random_matrix<V>(1, 1, 1, 1.0, rng));
  out.push_back(matrix_with_row_lengths<V>(std::vector<std::int64_t>(5, 0), 5, rng));
  out.push_back(matrix_with_row_lengths<V>(std::vector<std::int64_t>(1100, 0), 10, rng));
  std::vector<std::int64_t> edges;
  for (std::int64_t tile : {128, 256, 512, 1024, 4096})
    for (std::int64_t d : {-1, 0, 1}) edges.push_back(tile + d);
  out.push_back(matrix_with_row_lengths<V>(edges, 4200, rng));
  out.push_back(
      matrix_with_row_lengths<V>({3, 0, 1500, 2, 0, 0, 600, 1, 130, 0, 0, 33, 32, 31}, 1600, rng));
  out.push_back(matrix_with_row_lengths<V>({0, 0, 0, 0, 2000}, 2000, rng));
  out.push_back(matrix_with_row_lengths<V>(std::vector<std::int64_t>(1100, 1), 3, rng));
  // Row lengths that sum past a tile a few rows at a time, and many short rows in one tile.
  out.push_back(matrix_with_row_lengths<V>(std::vector<std::int64_t>(300, 60), 64, rng));
  out.push_back(matrix_with_row_lengths<V>(std::vector<std::int64_t>(700, 2), 9, rng));
  for (std::int64_t n : {16, 40, 64, 200, 700}) out.push_back(random_matrix<V>(n, n, 32, 0.0, rng));
  std::shuffle(out.begin(), out.end(), rng);
  return out;
}

// count matrices with the pattern of one random rows x cols matrix and their own values.
template <class V>
std::vector<SmallMatrix<V>> random_shared(std::int64_t count, std::int64_t rows, std::int64_t cols,
                                          std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const SmallMatrix<V> pattern = random_matrix<V>(rows, cols, 12, 0.05, rng);
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  std::vector<SmallMatrix<V>> out(static_cast<std::size_t>(count), pattern);
  for (auto& m : out)
    for (auto& v : m.v) v = static_cast<V>(val(rng));
  return out;
}

}  // namespace hola::batched
