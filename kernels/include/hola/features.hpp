// Row-length statistics of a CSR structure: the features the "auto" selector looks at
// (docs/kernels.md, "auto"). Computed once per structure at setup: on the CPU for host row offsets,
// on the GPU for device ones (gpu::device_row_length_stats).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace hola {

struct RowLengthStats {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t nnz = 0;
  std::int64_t min_row = 0;
  std::int64_t max_row = 0;
  std::int64_t empty_rows = 0;
  double std_row = 0.0;  // population standard deviation of the row lengths
  // Gini coefficient of the row lengths: 0 when every row has the same length, towards 1 when
  // a few rows hold every nonzero. Exact (from the sorted lengths) up to double rounding.
  double gini = 0.0;
  double mean_row() const { return rows > 0 ? static_cast<double>(nnz) / rows : 0.0; }
  double empty_fraction() const { return rows > 0 ? static_cast<double>(empty_rows) / rows : 0.0; }
};

namespace detail {

// std_row and gini from the sums over the lengths in increasing order: `squares` of (x - mean)^2
// and `weighted` of (2i - n + 1) x_i, over n = s.rows lengths.
inline void set_std_and_gini(long double squares, long double weighted, RowLengthStats& s) {
  const long double n = static_cast<long double>(s.rows);
  s.std_row = static_cast<double>(std::sqrt(squares / n));
  s.gini = s.nnz > 0 ? static_cast<double>(weighted / (n * static_cast<long double>(s.nnz))) : 0.0;
}

// Gini coefficient and variance from a histogram of row lengths (count[v] rows of length v),
// visiting lengths in increasing order. With the lengths sorted ascending, x_0 <= ... <= x_{n-1},
// Gini = sum_i (2i - n + 1) x_i / (n sum_i x_i); the rows of length v occupy ranks
// [first, first + c), whose weights sum to c (2 first + c - n).
inline void gini_and_std_from_histogram(const std::vector<std::int64_t>& count, RowLengthStats& s) {
  const long double n = static_cast<long double>(s.rows);
  const long double mean = static_cast<long double>(s.nnz) / n;
  long double weighted = 0, squares = 0;
  std::int64_t first = 0;
  for (std::size_t v = 0; v < count.size(); ++v) {
    const std::int64_t c = count[v];
    if (c == 0) continue;
    const long double x = static_cast<long double>(v);
    weighted += x * static_cast<long double>(c) * (2.0L * first + c - n);
    squares += static_cast<long double>(c) * (x - mean) * (x - mean);
    first += c;
  }
  set_std_and_gini(squares, weighted, s);
}

}  // namespace detail

// From host row offsets (rows + 1 entries). `cols` is only recorded.
template <class O>
RowLengthStats row_length_stats(const O* row_ptr, std::int64_t rows, std::int64_t cols = 0) {
  RowLengthStats s;
  s.rows = rows;
  s.cols = cols;
  if (rows <= 0) return s;
  s.nnz = static_cast<std::int64_t>(row_ptr[rows] - row_ptr[0]);
  s.min_row = static_cast<std::int64_t>(row_ptr[1] - row_ptr[0]);
  for (std::int64_t r = 0; r < rows; ++r) {
    const auto len = static_cast<std::int64_t>(row_ptr[r + 1] - row_ptr[r]);
    s.min_row = std::min(s.min_row, len);
    s.max_row = std::max(s.max_row, len);
    s.empty_rows += len == 0;
  }
  // A histogram orders the lengths in O(rows + max_row); a matrix with one enormous row would
  // make it large, so sort the lengths then (equal lengths again form runs).
  std::vector<std::int64_t> count;
  if (s.max_row <= 4 * rows + 1024) {
    count.assign(static_cast<std::size_t>(s.max_row + 1), 0);
    for (std::int64_t r = 0; r < rows; ++r)
      ++count[static_cast<std::size_t>(row_ptr[r + 1] - row_ptr[r])];
    detail::gini_and_std_from_histogram(count, s);
    return s;
  }
  std::vector<std::int64_t> lengths(static_cast<std::size_t>(rows));
  for (std::int64_t r = 0; r < rows; ++r)
    lengths[r] = static_cast<std::int64_t>(row_ptr[r + 1] - row_ptr[r]);
  std::sort(lengths.begin(), lengths.end());
  // Same sums as the histogram's, one rank at a time.
  const long double n = static_cast<long double>(rows);
  const long double mean = static_cast<long double>(s.nnz) / n;
  long double weighted = 0, squares = 0;
  for (std::int64_t i = 0; i < rows; ++i) {
    const long double x = static_cast<long double>(lengths[i]);
    weighted += x * (2.0L * i - n + 1);
    squares += (x - mean) * (x - mean);
  }
  detail::set_std_and_gini(squares, weighted, s);
  return s;
}

// How the column indices fall, and how evenly groups of neighbouring rows fill a warp: what
// row lengths alone cannot tell apart (a 5-point stencil and a random matrix with 5 nonzeros
// per row gather x very differently). Integer counts, so the CPU and the GPU agree exactly.
struct StructureStats {
  std::int64_t nnz = 0;
  // Sum over the groups of kStructureGroupRows consecutive rows of (rows in the group) x (its
  // longest row): the lane steps of a thread-per-row kernel.
  std::int64_t group_slots = 0;
  // Nonzeros after the first of their row whose column is within kNearColumns of the previous
  // nonzero's: x read in runs along a row.
  std::int64_t row_near = 0;
  // Nonzeros at position k of a row r > 0 whose column is within kNearColumns (resp.
  // kMidColumns) of the column at position k of row r - 1 (when row r - 1 has one): x that
  // the neighbouring row has just read (the same cache line; the same few kilobytes).
  std::int64_t neighbor_near = 0, neighbor_mid = 0;
  // Nonzeros at position k of a row r > 0 as long as row r - 1 whose column equals the column at
  // position k of row r - 1: rows repeating the column list of the row above (the unknowns of
  // one mesh node in block-row FEM matrices; the `inode` kernel's groups).
  std::int64_t neighbor_same = 0;

  static constexpr std::int64_t kStructureGroupRows = 32;  // one warp of threads
  static constexpr std::int64_t kNearColumns = 32;         // 128 bytes of float x
  static constexpr std::int64_t kMidColumns = 1024;        // 4 to 8 kB of x

  double fraction(std::int64_t count) const {
    return nnz > 0 ? static_cast<double>(count) / static_cast<double>(nnz) : 0.0;
  }
  // nnz / group_slots: 1 when every group of rows has rows of one length.
  double group_efficiency() const {
    return group_slots > 0 ? static_cast<double>(nnz) / static_cast<double>(group_slots) : 0.0;
  }
};

namespace detail {
// constexpr: the GPU version (structure_stats.cu) calls it too (--expt-relaxed-constexpr).
constexpr bool columns_within(std::int64_t a, std::int64_t b, std::int64_t distance) {
  return a - b <= distance && b - a <= distance;
}
}  // namespace detail

// From host CSR arrays (row_ptr[0] == 0).
template <class I, class O>
StructureStats structure_stats(const O* row_ptr, const I* col_idx, std::int64_t rows) {
  StructureStats s;
  if (rows <= 0) return s;
  s.nnz = static_cast<std::int64_t>(row_ptr[rows]);
  for (std::int64_t first = 0; first < rows; first += StructureStats::kStructureGroupRows) {
    const std::int64_t last = std::min(rows, first + StructureStats::kStructureGroupRows);
    std::int64_t longest = 0;
    for (std::int64_t r = first; r < last; ++r)
      longest = std::max(longest, static_cast<std::int64_t>(row_ptr[r + 1] - row_ptr[r]));
    s.group_slots += (last - first) * longest;
  }
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int64_t begin = static_cast<std::int64_t>(row_ptr[r]);
    const std::int64_t end = static_cast<std::int64_t>(row_ptr[r + 1]);
    const std::int64_t above = r > 0 ? static_cast<std::int64_t>(row_ptr[r - 1]) : 0;
    const std::int64_t above_len = r > 0 ? begin - above : 0;
    for (std::int64_t j = begin; j < end; ++j) {
      const auto c = static_cast<std::int64_t>(col_idx[j]);
      if (j > begin)
        s.row_near += detail::columns_within(c, static_cast<std::int64_t>(col_idx[j - 1]),
                                             StructureStats::kNearColumns);
      if (j - begin < above_len) {
        const auto a = static_cast<std::int64_t>(col_idx[above + (j - begin)]);
        s.neighbor_near += detail::columns_within(c, a, StructureStats::kNearColumns);
        s.neighbor_mid += detail::columns_within(c, a, StructureStats::kMidColumns);
        s.neighbor_same += end - begin == above_len && c == a;
      }
    }
  }
  return s;
}

// Everything "auto" looks at, computed once per structure.
struct MatrixFeatures {
  RowLengthStats lengths;
  StructureStats structure;
};

template <class I, class O>
MatrixFeatures matrix_features(const O* row_ptr, const I* col_idx, std::int64_t rows,
                               std::int64_t cols) {
  return {row_length_stats(row_ptr, rows, cols), structure_stats(row_ptr, col_idx, rows)};
}

#if defined(HOLA_ENABLE_CUDA)
namespace gpu {
// The same statistics from row offsets in device memory, computed on `stream` (a cudaStream_t):
// one pass over row_ptr writes the row lengths, CUB radix-sorts them (the Gini needs their
// order) and one CUB transform-reduce over the sorted lengths gives every sum; the small result
// comes back to the host in one copy. `nnz` (the view's) bounds the row lengths, which sets the
// sort's key width; the statistics' own nnz is summed from the lengths. Setup time only:
// allocates about 8 bytes per row of scratch (freed before returning) and synchronizes
// `stream`. The std_row comes from the sum of squares (exact integers summed in double).
template <class O>
RowLengthStats device_row_length_stats(const O* row_ptr, std::int64_t rows, std::int64_t cols,
                                       std::int64_t nnz, void* stream);

// structure_stats from device CSR arrays, on `stream`: two CUB transform-reduces, one over the
// groups of rows and one over the nonzeros (each finds its row by binary search in row_ptr, so
// one long row costs no more than many short ones). Setup time only: allocates the reduction's
// scratch and synchronizes `stream`.
template <class I, class O>
StructureStats device_structure_stats(const O* row_ptr, const I* col_idx, std::int64_t rows,
                                      std::int64_t nnz, void* stream);

// Both, as "auto" uses them.
template <class I, class O>
MatrixFeatures device_matrix_features(const O* row_ptr, const I* col_idx, std::int64_t rows,
                                      std::int64_t cols, std::int64_t nnz, void* stream) {
  return {device_row_length_stats(row_ptr, rows, cols, nnz, stream),
          device_structure_stats(row_ptr, col_idx, rows, nnz, stream)};
}
}  // namespace gpu
#endif

}  // namespace hola
