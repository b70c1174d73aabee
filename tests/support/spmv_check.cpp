#include "spmv_check.hpp"

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
  std::string bad;
  const std::int64_t mismatches = reference::count_mismatches(
      op, alpha, A, x.data(), beta, y_in.data(), ref.data(), y_out.data(), &bad);
  if (mismatches == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << mismatches << " of " << ny << " outputs differ from the "
                                       << "reference (op " << op_name(op) << ")" << bad;
}

#define HOLA_INSTANTIATE(V, I, O)                                                      \
  template ::testing::AssertionResult matches_reference<V, I, O>(                      \
      Op, V, const CsrView<V, I, O>&, const std::vector<V>&, V, const std::vector<V>&, \
      const std::vector<V>&);
HOLA_FOR_EACH_VALUE_INDEX_OFFSET(HOLA_INSTANTIATE)
#undef HOLA_INSTANTIATE

}  // namespace hola::test
