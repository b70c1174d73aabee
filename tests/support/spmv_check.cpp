#include "spmv_check.hpp"

#include <sstream>

#include "hola/detail/instantiate.hpp"

namespace hola::test {

template <class V, class I, class O>
::testing::AssertionResult matches_reference(Op op, V alpha, const CsrView<V, I, O>& A,
                                             const std::vector<V>& x, V beta,
                                             const std::vector<V>& y_in,
                                             const std::vector<V>& y_out) {
  const std::int64_t ny = op == Op::N ? A.rows : A.cols;
  if (static_cast<std::int64_t>(y_out.size()) != ny)
    return ::testing::AssertionFailure()
           << "output has " << y_out.size() << " entries, expected " << ny;
  std::vector<V> ref(static_cast<std::size_t>(ny));
  reference::spmv(op, alpha, A, x.data(), beta, y_in.data(), ref.data());
  std::vector<double> bound(static_cast<std::size_t>(ny));
  reference::spmv_abs_bound(op, alpha, A, x.data(), beta, y_in.data(), bound.data());
  // Terms summed per output: row lengths (N) or column counts (T).
  std::vector<std::int64_t> terms(static_cast<std::size_t>(ny), 0);
  for (std::int64_t r = 0; r < A.rows; ++r) {
    if (op == Op::N)
      terms[r] = static_cast<std::int64_t>(A.row_ptr[r + 1] - A.row_ptr[r]);
    else
      for (O k = A.row_ptr[r]; k < A.row_ptr[r + 1]; ++k) ++terms[A.col_idx[k]];
  }
  const double eps = std::numeric_limits<V>::epsilon();
  std::ostringstream bad;
  std::int64_t mismatches = 0;
  for (std::int64_t i = 0; i < ny; ++i) {
    const double got = static_cast<double>(y_out[i]);
    const double want = static_cast<double>(ref[i]);
    const double tol = 2.0 * static_cast<double>(terms[i] + 2) * eps * bound[i] +
                       std::numeric_limits<V>::denorm_min();
    if (!std::isfinite(got) || std::abs(got - want) > tol) {
      if (mismatches < 5)
        bad << "\n  y[" << i << "] = " << got << ", reference " << want << ", tolerance " << tol
            << " (" << terms[i] << " terms)";
      ++mismatches;
    }
  }
  if (mismatches == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << mismatches << " of " << ny << " outputs differ from the "
                                       << "reference (op " << op_name(op) << ")" << bad.str();
}

#define HOLA_INSTANTIATE(V, I, O)                                                      \
  template ::testing::AssertionResult matches_reference<V, I, O>(                      \
      Op, V, const CsrView<V, I, O>&, const std::vector<V>&, V, const std::vector<V>&, \
      const std::vector<V>&);
HOLA_FOR_EACH_VALUE_INDEX_OFFSET(HOLA_INSTANTIATE)
#undef HOLA_INSTANTIATE

}  // namespace hola::test
