// CSR validation and aliasing checks.
//
// Status policy of validate_csr (tests rely on it):
//  - status::invalid_argument: problems of the view itself rather than of the matrix it
//    describes: negative rows / cols / nnz, sizes that do not fit the index types, null
//    pointers where entries exist, and device memory (the arrays cannot be read from here).
//  - status::invalid_csr: the arrays break the CSR contract: row_ptr[0] != 0, row_ptr not
//    monotone, row_ptr[rows] != nnz, a column outside [0, cols), unsorted columns or
//    duplicates when the options forbid them.
// Null pointers: row_ptr may be null only for an empty view (rows == 0 and nnz == 0, e.g. the
// data() of an empty std::vector); col_idx and values may be null only when nnz == 0.
#include "hola/validate.hpp"

#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "hola/detail/instantiate.hpp"
#include "hola/error.hpp"

namespace hola {
namespace {

struct Problem {
  status code = status::success;
  std::string message;
};

std::string str(std::int64_t v) { return std::to_string(v); }

template <class V, class I, class O>
Problem shape_problem(const CsrView<V, I, O>& A) {
  if (A.rows < 0)
    return {status::invalid_argument, "negative number of rows: rows = " + str(A.rows)};
  if (A.cols < 0)
    return {status::invalid_argument, "negative number of columns: cols = " + str(A.cols)};
  if (A.nnz < 0)
    return {status::invalid_argument, "negative number of nonzeros: nnz = " + str(A.nnz)};
  const auto imax = static_cast<std::int64_t>(std::numeric_limits<I>::max());
  const auto omax = static_cast<std::int64_t>(std::numeric_limits<O>::max());
  // Row indices travel as I too (transpose outputs, COO-like paths), so both must fit.
  if (A.rows > imax)
    return {status::invalid_argument, "rows = " + str(A.rows) + " does not fit " +
                                          index_type_name<I>() + " indices (max " + str(imax) +
                                          ")"};
  if (A.cols > imax)
    return {status::invalid_argument, "cols = " + str(A.cols) + " does not fit " +
                                          index_type_name<I>() + " column indices (max " +
                                          str(imax) + ")"};
  if (A.nnz > omax)
    return {status::invalid_argument, "nnz = " + str(A.nnz) + " does not fit " +
                                          index_type_name<O>() + " row offsets (max " + str(omax) +
                                          ")"};
  if (A.row_ptr == nullptr && (A.rows > 0 || A.nnz > 0))
    return {status::invalid_argument,
            "row_ptr is null but rows = " + str(A.rows) + " and nnz = " + str(A.nnz)};
  if (A.col_idx == nullptr && A.nnz > 0)
    return {status::invalid_argument, "col_idx is null but nnz = " + str(A.nnz)};
  if (A.values == nullptr && A.nnz > 0)
    return {status::invalid_argument, "values is null but nnz = " + str(A.nnz)};
  return {};
}

template <class V, class I, class O>
Problem csr_problem(const CsrView<V, I, O>& A, const ValidationOptions& options) {
  Problem p = shape_problem(A);
  if (p.code != status::success) return p;
  if (A.memory != Memory::host)
    return {status::invalid_argument,
            "CSR validation needs host memory, but the view is in device memory"};
  if (A.row_ptr == nullptr) return {};  // empty view (rows == 0, nnz == 0), allowed above

  const O* rp = A.row_ptr;
  if (rp[0] != 0) return {status::invalid_csr, "row_ptr[0] = " + str(rp[0]) + ", expected 0"};
  // Monotonicity first over all rows: together with row_ptr[rows] == nnz it guarantees every
  // column scan below stays inside col_idx.
  for (std::int64_t i = 0; i < A.rows; ++i) {
    if (rp[i] > rp[i + 1])
      return {status::invalid_csr, "row_ptr is not monotone: row_ptr[" + str(i) +
                                       "] = " + str(rp[i]) + " > row_ptr[" + str(i + 1) +
                                       "] = " + str(rp[i + 1]) + " (row " + str(i) + ")"};
  }
  if (static_cast<std::int64_t>(rp[A.rows]) != A.nnz)
    return {status::invalid_csr, "row_ptr[rows] = row_ptr[" + str(A.rows) +
                                     "] = " + str(rp[A.rows]) + " but nnz = " + str(A.nnz)};

  const bool check_dups = !options.require_sorted && !options.allow_duplicates;
  // Position of the last occurrence of each column; an occurrence at or after the current row's
  // start is a duplicate within that row (positions only grow, so no reset between rows).
  std::vector<std::int64_t> last_pos;
  if (check_dups) last_pos.assign(static_cast<std::size_t>(A.cols), -1);

  const I* ci = A.col_idx;
  for (std::int64_t i = 0; i < A.rows; ++i) {
    const std::int64_t begin = rp[i], end = rp[i + 1];
    for (std::int64_t k = begin; k < end; ++k) {
      const std::int64_t c = ci[k];
      if (c < 0 || c >= A.cols)
        return {status::invalid_csr, "column index out of range in row " + str(i) + ": col_idx[" +
                                         str(k) + "] = " + str(c) +
                                         ", expected 0 <= column < cols = " + str(A.cols)};
      if (options.require_sorted && k > begin) {
        const std::int64_t prev = ci[k - 1];
        if (prev == c)
          return {status::invalid_csr, "duplicate column " + str(c) + " in row " + str(i) +
                                           ": col_idx[" + str(k - 1) + "] = col_idx[" + str(k) +
                                           "] = " + str(c)};
        if (prev > c)
          return {status::invalid_csr, "columns not sorted in row " + str(i) + ": col_idx[" +
                                           str(k - 1) + "] = " + str(prev) + " > col_idx[" +
                                           str(k) + "] = " + str(c)};
      }
      if (check_dups) {
        std::int64_t& last = last_pos[static_cast<std::size_t>(c)];
        if (last >= begin)
          return {status::invalid_csr, "duplicate column " + str(c) + " in row " + str(i) +
                                           ": col_idx[" + str(last) + "] = col_idx[" + str(k) +
                                           "] = " + str(c)};
        last = k;
      }
    }
  }
  return {};
}

std::string address(const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", p);
  return buf;
}

}  // namespace

template <class V, class I, class O>
std::string check_csr_shape(const CsrView<V, I, O>& A) {
  return shape_problem(A).message;
}

template <class V, class I, class O>
std::string check_csr(const CsrView<V, I, O>& A, const ValidationOptions& options) {
  return csr_problem(A, options).message;
}

template <class V, class I, class O>
void validate_csr(const CsrView<V, I, O>& A, const ValidationOptions& options) {
  Problem p = csr_problem(A, options);
  if (p.code != status::success) fail(p.code, p.message);
}

template <class V>
void check_no_alias(const V* x, std::int64_t nx, const V* y, std::int64_t ny, const char* what) {
  const std::string name = what ? what : "vectors";
  if (nx < 0 || ny < 0)
    fail(status::invalid_argument,
         name + ": negative vector length (" + str(nx) + ", " + str(ny) + ")");
  // Empty ranges never overlap; null pointers are someone else's error to report.
  if (nx == 0 || ny == 0 || x == nullptr || y == nullptr) return;
  // Compare addresses as integers: relational operators on pointers into different objects
  // are unspecified.
  const auto xb = reinterpret_cast<std::uintptr_t>(x);
  const auto yb = reinterpret_cast<std::uintptr_t>(y);
  const auto xe = xb + static_cast<std::uintptr_t>(nx) * sizeof(V);
  const auto ye = yb + static_cast<std::uintptr_t>(ny) * sizeof(V);
  if (xb < ye && yb < xe)
    fail(status::aliasing, name + " overlap in memory: [" + address(x) + ", +" + str(nx) +
                               " elements) and [" + address(y) + ", +" + str(ny) +
                               " elements); the input vector must not alias the output");
}

#define HOLA_INSTANTIATE_VALIDATE(V, I, O)                                                    \
  template std::string check_csr<V, I, O>(const CsrView<V, I, O>&, const ValidationOptions&); \
  template void validate_csr<V, I, O>(const CsrView<V, I, O>&, const ValidationOptions&);     \
  template std::string check_csr_shape<V, I, O>(const CsrView<V, I, O>&);

HOLA_FOR_EACH_VALUE_INDEX_OFFSET(HOLA_INSTANTIATE_VALIDATE)
#undef HOLA_INSTANTIATE_VALIDATE

template void check_no_alias<float>(const float*, std::int64_t, const float*, std::int64_t,
                                    const char*);
template void check_no_alias<double>(const double*, std::int64_t, const double*, std::int64_t,
                                     const char*);

}  // namespace hola
