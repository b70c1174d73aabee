// Sequential CPU oracle: the simplest correct loops, summed in wide_t<V> and rounded to V once
// per output, so kernels can be judged against it with a tight tolerance.
#include "hola/reference.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "hola/detail/instantiate.hpp"
#include "hola/error.hpp"

namespace hola::reference {
namespace {

template <class V, class I, class O>
void check_host(const CsrView<V, I, O>& A, const char* who) {
  if (A.memory != Memory::host)
    fail(status::invalid_argument,
         std::string(who) + ": the reference needs host memory, the matrix is in device memory");
}

}  // namespace

template <class V, class I, class O>
void spmv(Op op, V alpha, const CsrView<V, I, O>& A, const V* x, V beta, const V* y_in, V* y_out) {
  using W = wide_t<V>;
  check_host(A, "reference::spmv");
  const std::int64_t ny = op == Op::N ? A.rows : A.cols;
  // beta == 0 never reads y_in (BLAS): NaN there must not leak and y_in may be null.
  const bool use_y = beta != V(0);
  const W wa = alpha, wb = beta;
  auto finish = [&](std::int64_t i, W sum) {
    W r = wa * sum;
    if (use_y) r += wb * static_cast<W>(y_in[i]);
    y_out[i] = static_cast<V>(r);
  };
  if (alpha == V(0)) {
    // alpha == 0: neither A nor x is read (BLAS), so Inf/NaN there does not matter.
    for (std::int64_t i = 0; i < ny; ++i) y_out[i] = use_y ? static_cast<V>(wb * y_in[i]) : V(0);
    return;
  }
  if (op == Op::N) {
    // Row i reads y_in[i] before writing y_out[i]: in place is safe.
    for (std::int64_t i = 0; i < A.rows; ++i) {
      W sum = 0;
      for (std::int64_t k = A.row_ptr[i]; k < static_cast<std::int64_t>(A.row_ptr[i + 1]); ++k)
        sum += static_cast<W>(A.values[k]) * static_cast<W>(x[A.col_idx[k]]);
      finish(i, sum);
    }
  } else {
    // Column sums need the whole matrix before any output is final: wide temporary.
    std::vector<W> acc(static_cast<std::size_t>(A.cols), W(0));
    for (std::int64_t i = 0; i < A.rows; ++i) {
      const W xi = x[i];
      for (std::int64_t k = A.row_ptr[i]; k < static_cast<std::int64_t>(A.row_ptr[i + 1]); ++k)
        acc[static_cast<std::size_t>(A.col_idx[k])] += static_cast<W>(A.values[k]) * xi;
    }
    for (std::int64_t j = 0; j < A.cols; ++j) finish(j, acc[static_cast<std::size_t>(j)]);
  }
}

template <class V, class I, class O>
void spmv_abs_bound(Op op, V alpha, const CsrView<V, I, O>& A, const V* x, V beta, const V* y_in,
                    double* bound) {
  using W = wide_t<V>;
  check_host(A, "reference::spmv_abs_bound");
  const std::int64_t ny = op == Op::N ? A.rows : A.cols;
  const W wa = std::fabs(static_cast<W>(alpha));
  const bool use_y = beta != V(0);
  std::vector<W> acc(static_cast<std::size_t>(ny), W(0));
  if (alpha != V(0)) {
    for (std::int64_t i = 0; i < A.rows; ++i) {
      for (std::int64_t k = A.row_ptr[i]; k < static_cast<std::int64_t>(A.row_ptr[i + 1]); ++k) {
        const W a = std::fabs(static_cast<W>(A.values[k]));
        if (op == Op::N)
          acc[static_cast<std::size_t>(i)] += a * std::fabs(static_cast<W>(x[A.col_idx[k]]));
        else
          acc[static_cast<std::size_t>(A.col_idx[k])] += a * std::fabs(static_cast<W>(x[i]));
      }
    }
  }
  for (std::int64_t i = 0; i < ny; ++i) {
    W b = wa * acc[static_cast<std::size_t>(i)];
    if (use_y) b += std::fabs(static_cast<W>(beta) * static_cast<W>(y_in[i]));
    bound[i] = static_cast<double>(b);
  }
}

template <class V, class I, class O>
std::int64_t count_mismatches(Op op, V alpha, const CsrView<V, I, O>& A, const V* x, V beta,
                              const V* y_in, const V* ref, const V* y_out, std::string* report,
                              int max_reported) {
  const std::int64_t ny = op == Op::N ? A.rows : A.cols;
  std::vector<double> bound(static_cast<std::size_t>(ny));
  spmv_abs_bound(op, alpha, A, x, beta, y_in, bound.data());
  std::vector<std::int64_t> terms(static_cast<std::size_t>(ny), 0);
  for (std::int64_t r = 0; r < A.rows; ++r)
    for (O k = A.row_ptr[r]; k < A.row_ptr[r + 1]; ++k) ++terms[op == Op::N ? r : A.col_idx[k]];
  const double eps = std::numeric_limits<V>::epsilon();
  std::int64_t mismatches = 0;
  for (std::int64_t i = 0; i < ny; ++i) {
    const double got = static_cast<double>(y_out[i]);
    const double want = static_cast<double>(ref[i]);
    const double tol = 2.0 * static_cast<double>(terms[i] + 2) * eps * bound[i] +
                       std::numeric_limits<V>::denorm_min();
    if (std::isfinite(got) && std::abs(got - want) <= tol) continue;
    if (report && mismatches < max_reported) {
      std::ostringstream line;
      line << "\n  y[" << i << "] = " << got << ", reference " << want << ", tolerance " << tol
           << " (" << terms[i] << " terms)";
      *report += line.str();
    }
    ++mismatches;
  }
  return mismatches;
}

#define HOLA_INSTANTIATE_REFERENCE(V, I, O)                                                    \
  template void spmv<V, I, O>(Op, V, const CsrView<V, I, O>&, const V*, V, const V*, V*);      \
  template void spmv_abs_bound<V, I, O>(Op, V, const CsrView<V, I, O>&, const V*, V, const V*, \
                                        double*);                                              \
  template std::int64_t count_mismatches<V, I, O>(Op, V, const CsrView<V, I, O>&, const V*, V, \
                                                  const V*, const V*, const V*, std::string*,  \
                                                  int);

HOLA_FOR_EACH_VALUE_INDEX_OFFSET(HOLA_INSTANTIATE_REFERENCE)
#undef HOLA_INSTANTIATE_REFERENCE

}  // namespace hola::reference
