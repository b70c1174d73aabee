// The nonempty rows of a CSR matrix as a matrix of their own, and the two vector steps that go
// with it. A matrix most of whose rows are empty (the off-diagonal "ghost" block of a
// distributed matrix: only rows next to another rank's part have entries) costs a kernel a pass
// over every row — read the offsets, read and write y — even where there is nothing to add. The
// kept rows share A's column indices and values (a row's entries are contiguous, so only the
// offsets change); a product runs the kernel on them into a work vector and scatters the result
// into y, touching only the kept rows when y is updated in place (y += A x).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "hola/csr_view.hpp"

namespace hola {

template <class V, class I, class O>
class CompressedRows {
 public:
  // How many rows of A have at least one entry. Host A: a loop; device A: one pass on `stream`,
  // read back (synchronises the stream). A must be valid CSR.
  static std::int64_t count_nonempty(const CsrView<V, I, O>& A, void* stream = nullptr);

  // The row list and offsets of A's `kept` nonempty rows (kept = count_nonempty(A)) and a work
  // vector of `kept` entries, in A's memory, made on `stream`. Allocates; throws hola::error
  // (status::out_of_memory, status::invalid_argument when a row number does not fit I).
  CompressedRows(const CsrView<V, I, O>& A, std::int64_t kept, void* stream = nullptr);
  ~CompressedRows();
  CompressedRows(CompressedRows&&) noexcept;
  CompressedRows& operator=(CompressedRows&&) noexcept;

  // The kept rows with these values: kept x A.cols, A's column indices.
  CsrView<V, I, O> matrix(const V* values) const;
  std::int64_t kept() const;
  std::size_t bytes() const;  // memory held (row list, offsets, work vector)
  V* work() const;            // kept entries, for the product's intermediate vector

  // y_out = alpha w + beta y_in, where w (kept entries) lands on the kept rows and the other
  // rows get beta y_in alone. beta == 0 never reads y_in. With beta == 1 and y_in == y_out only
  // the kept rows are touched. On `stream` for device vectors; allocates nothing.
  void scatter(V alpha, const V* w, V beta, const V* y_in, V* y_out, void* stream = nullptr) const;
  // xc[k] = x[kept row k] (the kept rows' entries of a vector indexed by A's rows).
  void gather(const V* x, V* xc, void* stream = nullptr) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

namespace gpu {
// The device halves of CompressedRows (builds without CUDA throw status::no_device).
template <class O>
std::int64_t count_nonempty_rows(const O* row_ptr, std::int64_t rows, void* stream);
// row_ids[k]: the k-th nonempty row; offsets[k] = row_ptr[row_ids[k]], offsets[kept] = nnz.
template <class I, class O>
void compress_rows(const O* row_ptr, std::int64_t rows, std::int64_t kept, I* row_ids, O* offsets,
                   void* stream);
template <class V, class I>
void scatter_rows(std::int64_t rows, std::int64_t kept, const I* row_ids, V alpha, const V* w,
                  V beta, const V* y_in, V* y_out, void* stream);
template <class V, class I>
void gather_rows(std::int64_t kept, const I* row_ids, const V* x, V* xc, void* stream);
void* device_allocate(std::size_t bytes);
void device_free(void* p) noexcept;
}  // namespace gpu

}  // namespace hola
