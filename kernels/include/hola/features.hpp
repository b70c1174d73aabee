// Row-length statistics of a CSR structure: what the "auto" rule looks at.
#pragma once

#include <algorithm>
#include <cstdint>

namespace hola {

struct RowLengthStats {
  std::int64_t rows = 0;
  std::int64_t nnz = 0;
  std::int64_t min_row = 0;
  std::int64_t max_row = 0;
  std::int64_t empty_rows = 0;
  double mean_row() const { return rows > 0 ? static_cast<double>(nnz) / rows : 0.0; }
};

// From host row offsets (rows + 1 entries).
template <class O>
RowLengthStats row_length_stats(const O* row_ptr, std::int64_t rows) {
  RowLengthStats s;
  s.rows = rows;
  if (rows <= 0) return s;
  s.nnz = static_cast<std::int64_t>(row_ptr[rows] - row_ptr[0]);
  s.min_row = static_cast<std::int64_t>(row_ptr[1] - row_ptr[0]);
  for (std::int64_t r = 0; r < rows; ++r) {
    const auto len = static_cast<std::int64_t>(row_ptr[r + 1] - row_ptr[r]);
    s.min_row = std::min(s.min_row, len);
    s.max_row = std::max(s.max_row, len);
    s.empty_rows += len == 0;
  }
  return s;
}

}  // namespace hola
