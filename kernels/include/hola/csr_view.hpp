// Non-owning CSR view (host or device memory) and the owning host matrix.
#pragma once

#include <cstdint>
#include <vector>

#include "hola/types.hpp"

namespace hola {

// A CSR matrix that belongs to someone else (PETSc, Tpetra, HYPRE, a CsrMatrix).
// Sizes are 64-bit whatever I and O are; validation checks that they fit the index types.
template <class V, class I, class O>
struct CsrView {
  static_assert(is_supported_value_v<V>, "value type must be float or double");
  static_assert(is_supported_index_v<I>, "column index type must be int32 or int64");
  static_assert(is_supported_index_v<O>, "row offset type must be int32 or int64");
  using value_type = V;
  using index_type = I;
  using offset_type = O;

  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t nnz = 0;
  const O* row_ptr = nullptr;  // rows + 1 entries, row_ptr[0] == 0, row_ptr[rows] == nnz
  const I* col_idx = nullptr;  // nnz entries in [0, cols)
  const V* values = nullptr;   // nnz entries
  Memory memory = Memory::host;
};

// The view of these arrays (`memory`: where they are).
template <class V, class I, class O>
CsrView<V, I, O> csr_view(std::int64_t rows, std::int64_t cols, std::int64_t nnz, const O* row_ptr,
                          const I* col_idx, const V* values, Memory memory = Memory::host) {
  return {rows, cols, nnz, row_ptr, col_idx, values, memory};
}

// Owning host CSR matrix. Rows are kept sorted by column when built by the library.
template <class V, class I, class O>
struct CsrMatrix {
  using value_type = V;
  using index_type = I;
  using offset_type = O;

  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::vector<O> row_ptr{O(0)};
  std::vector<I> col_idx;
  std::vector<V> values;

  std::int64_t nnz() const { return static_cast<std::int64_t>(col_idx.size()); }

  CsrView<V, I, O> view() const {
    return csr_view(rows, cols, nnz(), row_ptr.data(), col_idx.data(), values.data());
  }

  // Same structure and values in other index / value types (throws if they do not fit).
  template <class V2, class I2, class O2>
  CsrMatrix<V2, I2, O2> convert() const;
};

}  // namespace hola

#include "hola/detail/csr_convert.hpp"
