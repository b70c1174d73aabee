// The "auto" rule on row-length statistics, and row_length_stats itself.
#include <gtest/gtest.h>

#include "hola/features.hpp"
#include "hola/generators.hpp"
#include "hola/selector.hpp"

namespace {

hola::RowLengthStats stats_of(const hola::gen::Csr64& A) {
  return hola::row_length_stats(A.row_ptr.data(), A.rows);
}

TEST(RowLengthStats, CountsLengthsAndEmptyRows) {
  const auto A = hola::gen::arrow(100);
  const auto s = stats_of(A);
  EXPECT_EQ(s.rows, 100);
  EXPECT_EQ(s.nnz, A.nnz());
  EXPECT_EQ(s.max_row, 100);
  EXPECT_EQ(s.min_row, 2);
  EXPECT_EQ(s.empty_rows, 0);
  const auto E = stats_of(hola::gen::empty(7, 3));
  EXPECT_EQ(E.empty_rows, 7);
  EXPECT_EQ(E.max_row, 0);
  EXPECT_DOUBLE_EQ(E.mean_row(), 0.0);
  EXPECT_EQ(hola::row_length_stats<std::int64_t>(nullptr, 0).rows, 0);
}

TEST(Selector, ShortEvenRowsGoToScalar) {
  const auto s = stats_of(hola::gen::poisson3d(10, 10, 10));
  for (hola::Op op : {hola::Op::N, hola::Op::T})
    for (bool single : {false, true})
      EXPECT_EQ(hola::select_device_kernel(op, single, true, s).name, "scalar");
}

TEST(Selector, LongRowsNeverGoToScalar) {
  const auto s = stats_of(hola::gen::circuit(20000, 1, 0.3, 2, 5000, 2.0));
  EXPECT_EQ(hola::select_device_kernel(hola::Op::N, false, true, s).name, "hola");
  EXPECT_EQ(hola::select_device_kernel(hola::Op::N, true, true, s).name, "cusparse");
  EXPECT_EQ(hola::select_device_kernel(hola::Op::T, false, true, s).name, "cusparse");
}

TEST(Selector, MixedIndexTypesAvoidCusparse) {
  const auto s = stats_of(hola::gen::banded_normal(5000, 22, 1000.0, 2));
  EXPECT_EQ(hola::select_device_kernel(hola::Op::N, true, false, s).name, "hola");
  EXPECT_EQ(hola::select_device_kernel(hola::Op::T, false, false, s).name, "hola");
  EXPECT_NE(hola::select_device_kernel(hola::Op::T, false, false, s).reason.find("mixed"),
            std::string::npos);
}

TEST(Selector, HostMatricesAlwaysUseTheCpuKernel) {
  const auto A = hola::gen::poisson2d(5, 5).convert<double, int, int>();
  const auto c = hola::select_kernels("hola", A.view());
  EXPECT_EQ(c.n.name, "cpu");
  EXPECT_EQ(c.t.name, "cpu");
  EXPECT_NE(c.n.reason.find("GPU only"), std::string::npos);
}

}  // namespace
