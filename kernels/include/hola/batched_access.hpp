// Per-matrix access to a batch (hola/batched.hpp), shared by the CPU kernels and the CUDA
// kernels (host and device functions under nvcc). Trusts a validated batch: no checks here.
#pragma once

#include <cstdint>

#include "hola/batched.hpp"

namespace hola::batched {

// CSR and CSR with one shared pattern. Positions p returned by row_begin / row_end index col_idx;
// the value of position p of matrix b is values[value_base(b) + p].
template <class V, class I>
struct CsrAccess {
  const I* row_off;
  const I* col_off;
  const I* row_ptr;
  const I* col_idx;
  const V* values;
  std::int64_t shared_rows;
  std::int64_t shared_cols;
  std::int64_t shared_nnz;
  bool shared;

  explicit CsrAccess(const BatchView<V, I>& b)
      : row_off(b.row_off),
        col_off(b.col_off),
        row_ptr(b.row_ptr),
        col_idx(b.col_idx),
        values(b.values),
        shared_rows(b.shared_rows),
        shared_cols(b.shared_cols),
        shared_nnz(b.shared_nnz),
        shared(b.format == Format::csr_shared) {}

  HOLA_BATCHED_HD std::int64_t rows(std::int64_t b) const {
    return shared ? shared_rows : static_cast<std::int64_t>(row_off[b + 1] - row_off[b]);
  }
  HOLA_BATCHED_HD std::int64_t cols(std::int64_t b) const {
    return shared ? shared_cols : static_cast<std::int64_t>(col_off[b + 1] - col_off[b]);
  }
  HOLA_BATCHED_HD std::int64_t y_offset(std::int64_t b) const {
    return shared ? b * shared_rows : static_cast<std::int64_t>(row_off[b]);
  }
  HOLA_BATCHED_HD std::int64_t x_offset(std::int64_t b) const {
    return shared ? b * shared_cols : static_cast<std::int64_t>(col_off[b]);
  }
  // Index of row r's first row_ptr entry.
  HOLA_BATCHED_HD std::int64_t row_ptr_index(std::int64_t b, std::int64_t r) const {
    return shared ? r : static_cast<std::int64_t>(row_off[b]) + r;
  }
  // Stored entries of matrix b.
  HOLA_BATCHED_HD std::int64_t nnz(std::int64_t b) const {
    return shared ? shared_nnz
                  : static_cast<std::int64_t>(row_ptr[row_off[b + 1]] - row_ptr[row_off[b]]);
  }
  HOLA_BATCHED_HD std::int64_t value_base(std::int64_t b) const {
    return shared ? b * shared_nnz : 0;
  }
};

// COO (rows sorted inside each matrix) and ELL share the per-matrix offsets.
template <class V, class I>
struct OffsetAccess {
  const I* row_off;
  const I* col_off;
  const I* nnz_off;
  const I* row_idx;
  const I* col_idx;
  const V* values;

  explicit OffsetAccess(const BatchView<V, I>& b)
      : row_off(b.row_off),
        col_off(b.col_off),
        nnz_off(b.nnz_off),
        row_idx(b.row_idx),
        col_idx(b.col_idx),
        values(b.values) {}

  HOLA_BATCHED_HD std::int64_t rows(std::int64_t b) const {
    return static_cast<std::int64_t>(row_off[b + 1] - row_off[b]);
  }
  HOLA_BATCHED_HD std::int64_t cols(std::int64_t b) const {
    return static_cast<std::int64_t>(col_off[b + 1] - col_off[b]);
  }
  HOLA_BATCHED_HD std::int64_t y_offset(std::int64_t b) const {
    return static_cast<std::int64_t>(row_off[b]);
  }
  HOLA_BATCHED_HD std::int64_t x_offset(std::int64_t b) const {
    return static_cast<std::int64_t>(col_off[b]);
  }
  HOLA_BATCHED_HD std::int64_t entry_begin(std::int64_t b) const {
    return static_cast<std::int64_t>(nnz_off[b]);
  }
  HOLA_BATCHED_HD std::int64_t entry_end(std::int64_t b) const {
    return static_cast<std::int64_t>(nnz_off[b + 1]);
  }
  // ELL: slots per row (0 for a matrix without rows).
  HOLA_BATCHED_HD std::int64_t ell_width(std::int64_t b) const {
    const std::int64_t m = rows(b);
    return m > 0 ? (entry_end(b) - entry_begin(b)) / m : 0;
  }
};

// y = alpha * sum + beta * y, y not read when beta == 0.
template <class Acc, class V>
HOLA_BATCHED_HD inline V combine(V alpha, Acc sum, V beta, const V* y) {
  if (beta == V(0)) return static_cast<V>(static_cast<Acc>(alpha) * sum);
  return static_cast<V>(static_cast<Acc>(alpha) * sum +
                        static_cast<Acc>(beta) * static_cast<Acc>(*y));
}

}  // namespace hola::batched
