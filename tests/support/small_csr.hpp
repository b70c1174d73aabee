// Hand-written test matrices: a CsrMatrix from its sizes and arrays.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "hola/csr_view.hpp"

namespace hola::test {

// The arrays are taken as given (no validation), so tests can build invalid matrices too.
template <class V, class I, class O>
CsrMatrix<V, I, O> make_csr(std::int64_t rows, std::int64_t cols, std::vector<O> row_ptr,
                            std::vector<I> col_idx, std::vector<V> values) {
  CsrMatrix<V, I, O> m;
  m.rows = rows;
  m.cols = cols;
  m.row_ptr = std::move(row_ptr);
  m.col_idx = std::move(col_idx);
  m.values = std::move(values);
  return m;
}

}  // namespace hola::test
