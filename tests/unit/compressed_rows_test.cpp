// Empty rows left out of the kernels' work (hola/compressed_rows.hpp and
// OperatorOptions::compress_empty_rows) on host memory: the row list, the gather and scatter
// steps, and the Operator's products through the kernels' full harness, every type.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "hola/compressed_rows.hpp"
#include "hola/generators.hpp"
#include "hola/operator.hpp"
#include "operator_as_kernel.hpp"
#include "spmv_check.hpp"
#include "type_lists.hpp"

namespace hola::test {
namespace {

template <class T>
struct CompressedRowsTest : ::testing::Test {};
TYPED_TEST_SUITE(CompressedRowsTest, AllTypes);

OperatorOptions compressing(std::int64_t min_empty_rows = 0) {
  OperatorOptions o;
  o.compress_min_empty_rows = min_empty_rows;
  return o;
}

// A with only rows 0, n, 2n, ... kept (the others emptied).
gen::Csr64 every_nth_row(const gen::Csr64& A, std::int64_t n) {
  gen::Csr64 out = gen::empty(A.rows, A.cols);
  for (std::int64_t r = 0; r < A.rows; ++r) {
    const std::int64_t b = A.row_ptr[r], e = r % n == 0 ? A.row_ptr[r + 1] : b;
    out.col_idx.insert(out.col_idx.end(), A.col_idx.begin() + b, A.col_idx.begin() + e);
    out.values.insert(out.values.end(), A.values.begin() + b, A.values.begin() + e);
    out.row_ptr[r + 1] = static_cast<std::int64_t>(out.col_idx.size());
  }
  return out;
}

TYPED_TEST(CompressedRowsTest, KeepsTheNonemptyRowsWithTheirOffsets) {
  HOLA_TYPES;
  const auto A = gen::ghost_block(4, 3, 5).convert<V, I, O>();  // 60 rows, planes of 12
  ASSERT_EQ((CompressedRows<V, I, O>::count_nonempty(A.view())), 24);
  const CompressedRows<V, I, O> c(A.view(), 24);
  const CsrView<V, I, O> K = c.matrix(A.values.data());
  ASSERT_EQ(K.rows, 24);
  EXPECT_EQ(K.cols, A.cols);
  EXPECT_EQ(K.nnz, A.nnz());
  EXPECT_EQ(K.col_idx, A.col_idx.data());
  for (std::int64_t k = 0; k <= 24; ++k) EXPECT_EQ(K.row_ptr[k], O(k)) << "offset " << k;
  // gather: the kept rows' entries (rows 0..11 and 48..59).
  std::vector<V> x(60), xc(24);
  for (int r = 0; r < 60; ++r) x[r] = V(r);
  c.gather(x.data(), xc.data());
  for (int k = 0; k < 24; ++k) EXPECT_EQ(xc[k], V(k < 12 ? k : 36 + k));
}

TYPED_TEST(CompressedRowsTest, InPlaceAddTouchesOnlyTheKeptRows) {
  HOLA_TYPES;
  const auto A = gen::ghost_block(4, 3, 5).convert<V, I, O>();
  const CompressedRows<V, I, O> c(A.view(), 24);
  const V nan = std::numeric_limits<V>::quiet_NaN();
  std::vector<V> w(24, V(2)), y(60, nan);
  for (int k = 0; k < 12; ++k) y[k] = y[48 + k] = V(1);
  c.scatter(V(0.5), w.data(), V(1), y.data(), y.data());
  for (int r = 0; r < 60; ++r) {
    if (r < 12 || r >= 48)
      EXPECT_EQ(y[r], V(2)) << "row " << r;
    else
      EXPECT_TRUE(std::isnan(y[r])) << "empty row " << r << " was written";
  }
  // beta == 0: every row written, y_in never read (NaN there must not leak).
  std::vector<V> z(60, nan);
  c.scatter(V(1), w.data(), V(0), nullptr, z.data());
  for (int r = 0; r < 60; ++r) EXPECT_EQ(z[r], (r < 12 || r >= 48) ? V(2) : V(0)) << "row " << r;
}

TYPED_TEST(CompressedRowsTest, OperatorLeavesOutEmptyRowsAndMatchesTheReference) {
  HOLA_TYPES;
  const std::vector<NamedMatrix> corpus = {
      {"ghost block 9x7x6", gen::ghost_block(9, 7, 6)},
      {"ghost block, exactly half empty", gen::ghost_block(6, 5, 4)},
      {"circuit, 90% empty rows", gen::circuit(3000, 7, 0.9, 2, 400)},
      {"tall, 1 row in 50", every_nth_row(gen::random_rect(4000, 300, 3, 8), 50)}};
  for (const NamedMatrix& m : corpus) {
    const gen::Csr64& A64 = m.A;
    check_kernel_on_matrix<HostMemory, V, I, O>(
        m.name, A64, operator_factory<V, I, O>(compressing()), KernelOptions{});
    Operator<V, I, O> op(compressing());
    const auto A = A64.convert<V, I, O>();
    op.setup(A.view());
    EXPECT_GT(op.compressed_rows(), 0) << m.name << ": " << op.selection_reason();
    EXPECT_GE(2 * (A.rows - op.compressed_rows()), A.rows) << m.name;
    EXPECT_NE(op.selection_reason().find("rows have entries"), std::string::npos);
    EXPECT_EQ(op.kernel_name(Op::N), "cpu");
  }
}

// With the empty rows left out, work_version follows the inner Operator's products too: a new
// values pointer changes it (the inner kernels read them), the same pointer does not.
TYPED_TEST(CompressedRowsTest, WorkVersionFollowsTheInnerOperator) {
  HOLA_TYPES;
  const auto A = gen::ghost_block(9, 7, 6).convert<V, I, O>();
  Operator<V, I, O> op(compressing());
  op.setup(A.view(), 3);
  ASSERT_GT(op.compressed_rows(), 0);
  const std::uint64_t v0 = op.work_version(Op::N);
  EXPECT_NE(v0, 0u);
  EXPECT_NE(op.work_version(Op::T), 0u);
  op.setup(A.view(), 3);
  EXPECT_EQ(op.work_version(Op::N), v0);
  std::vector<V> values(A.values.begin(), A.values.end());
  auto other = A.view();
  other.values = values.data();
  op.setup(other, 3);
  EXPECT_NE(op.work_version(Op::N), v0);
}

TYPED_TEST(CompressedRowsTest, RowsAreKeptWhereLeavingThemOutWouldNotPay) {
  HOLA_TYPES;
  auto rows_kept = [](const gen::Csr64& A64, OperatorOptions o) {
    const auto A = A64.convert<V, I, O>();
    Operator<V, I, O> op(o);
    op.setup(A.view());
    return op.compressed_rows();
  };
  // No empty rows; fewer than half empty; all empty; below the floor; switched off.
  EXPECT_EQ(rows_kept(gen::poisson3d(6, 6, 6), compressing()), -1);
  EXPECT_EQ(rows_kept(gen::circuit(3000, 7, 0.3, 2, 400), compressing()), -1);
  EXPECT_EQ(rows_kept(gen::empty(500, 40), compressing()), -1);
  EXPECT_EQ(rows_kept(gen::ghost_block(9, 7, 6), OperatorOptions{}), -1);  // 378 rows < 2^17
  EXPECT_EQ(rows_kept(gen::ghost_block(9, 7, 6), compressing(300)), -1);   // 252 empty < 300
  EXPECT_EQ(rows_kept(gen::ghost_block(9, 7, 6), compressing(252)), 126);
  OperatorOptions off = compressing();
  off.compress_empty_rows = false;
  EXPECT_EQ(rows_kept(gen::ghost_block(9, 7, 6), off), -1);
}

TYPED_TEST(CompressedRowsTest, NewValuesAndDuplicatesReuseTheAnalysis) {
  HOLA_TYPES;
  auto A = gen::ghost_block(8, 8, 10).convert<V, I, O>();
  Operator<V, I, O> op(compressing());
  op.setup(A.view(), 1);
  ASSERT_EQ(op.compressed_rows(), 128);
  for (V& v : A.values) v = V(3);
  op.setup(A.view(), 1);  // same structure: values only
  EXPECT_EQ(op.analysis_count(), 1u);
  const std::vector<V> x = random_vector<V>(A.cols, 3);
  std::vector<V> y(static_cast<std::size_t>(A.rows), std::numeric_limits<V>::quiet_NaN());
  op.apply(Op::N, V(1), {x.data(), A.cols}, V(0), {y.data(), A.rows});
  EXPECT_TRUE(matches_reference(Op::N, V(1), A.view(), x, V(0), y, y));
  // A matrix with the same pattern takes over the decision made for the kept rows.
  const auto B = A;
  Operator<V, I, O> dup(compressing());
  dup.reuse_decision(op.decision());
  dup.setup(B.view(), 1);
  EXPECT_EQ(dup.compressed_rows(), 128);
  EXPECT_EQ(dup.decisions_taken_over(), 1u);
}

}  // namespace
}  // namespace hola::test
