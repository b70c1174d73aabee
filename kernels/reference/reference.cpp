// Sequential CPU oracle: the simplest correct loops, summed in wide_t<V> and rounded to V once
// per output, so kernels can be judged against it with a tight tolerance.
#include "hola/reference.hpp"

#include <cmath>
#include <cstdint>
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

#define HOLA_INSTANTIATE_REFERENCE(V, I, O)                                                    \
  template void spmv<V, I, O>(Op, V, const CsrView<V, I, O>&, const V*, V, const V*, V*);      \
  template void spmv_abs_bound<V, I, O>(Op, V, const CsrView<V, I, O>&, const V*, V, const V*, \
                                        double*);

HOLA_FOR_EACH_VALUE_INDEX_OFFSET(HOLA_INSTANTIATE_REFERENCE)
#undef HOLA_INSTANTIATE_REFERENCE

}  // namespace hola::reference
