#pragma once

#include <limits>
#include <string>

#include "hola/error.hpp"

namespace hola {

template <class V, class I, class O>
template <class V2, class I2, class O2>
CsrMatrix<V2, I2, O2> CsrMatrix<V, I, O>::convert() const {
  if (cols > static_cast<std::int64_t>(std::numeric_limits<I2>::max()) ||
      rows > static_cast<std::int64_t>(std::numeric_limits<I2>::max()))
    fail(status::unsupported, "matrix of " + std::to_string(rows) + " x " + std::to_string(cols) +
                                  " does not fit " + index_type_name<I2>() + " indices");
  if (nnz() > static_cast<std::int64_t>(std::numeric_limits<O2>::max()))
    fail(status::unsupported, "matrix with " + std::to_string(nnz()) + " nonzeros does not fit " +
                                  index_type_name<O2>() + " row offsets");
  CsrMatrix<V2, I2, O2> out;
  out.rows = rows;
  out.cols = cols;
  out.row_ptr.assign(row_ptr.begin(), row_ptr.end());
  out.col_idx.assign(col_idx.begin(), col_idx.end());
  out.values.assign(values.begin(), values.end());
  return out;
}

}  // namespace hola
