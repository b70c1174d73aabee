// Row-length statistics of a CSR structure: the features the "auto" selector looks at
// (DESIGN.md §3). Computed once per structure at setup: on the CPU for host row offsets, on the
// GPU for device ones (gpu::device_row_length_stats).
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
  s.std_row = static_cast<double>(std::sqrt(squares / n));
  s.gini = s.nnz > 0 ? static_cast<double>(weighted / (n * static_cast<long double>(s.nnz))) : 0.0;
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
  s.std_row = static_cast<double>(std::sqrt(squares / n));
  s.gini = s.nnz > 0 ? static_cast<double>(weighted / (n * static_cast<long double>(s.nnz))) : 0.0;
  return s;
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
}  // namespace gpu
#endif

}  // namespace hola
