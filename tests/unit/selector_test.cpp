// The "auto" selector on the CPU: row_length_stats (the features), the generated trees (they
// must pick what the Python trees picked for the same features), the fallbacks and the rule.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "../../plugin/src/selector_tree.hpp"
#include "../../plugin/src/selector_tree_cases.hpp"
#include "hola/features.hpp"
#include "hola/generators.hpp"
#include "hola/registry.hpp"
#include "hola/selector.hpp"

namespace {

hola::RowLengthStats stats_of(const hola::gen::Csr64& A) {
  return hola::row_length_stats(A.row_ptr.data(), A.rows, A.cols);
}

// Gini and std from their definitions, O(rows^2).
void expect_definitions(const hola::gen::Csr64& A) {
  const auto s = stats_of(A);
  std::vector<double> len;
  for (std::int64_t r = 0; r < A.rows; ++r)
    len.push_back(static_cast<double>(A.row_ptr[r + 1] - A.row_ptr[r]));
  const double n = static_cast<double>(len.size()), mean = static_cast<double>(A.nnz()) / n;
  double pairs = 0, squares = 0;
  for (double a : len) {
    squares += (a - mean) * (a - mean);
    for (double b : len) pairs += std::fabs(a - b);
  }
  EXPECT_NEAR(s.gini, mean > 0 ? pairs / (2 * n * n * mean) : 0.0, 1e-12);
  EXPECT_NEAR(s.std_row, std::sqrt(squares / n), 1e-9 * std::max(1.0, s.std_row));
}

TEST(RowLengthStats, CountsLengthsAndEmptyRows) {
  const auto A = hola::gen::arrow(100);
  const auto s = stats_of(A);
  EXPECT_EQ(s.rows, 100);
  EXPECT_EQ(s.cols, 100);
  EXPECT_EQ(s.nnz, A.nnz());
  EXPECT_EQ(s.max_row, 100);
  EXPECT_EQ(s.min_row, 2);
  EXPECT_EQ(s.empty_rows, 0);
  const auto E = stats_of(hola::gen::empty(7, 3));
  EXPECT_EQ(E.empty_rows, 7);
  EXPECT_EQ(E.max_row, 0);
  EXPECT_DOUBLE_EQ(E.mean_row(), 0.0);
  EXPECT_DOUBLE_EQ(E.empty_fraction(), 1.0);
  EXPECT_EQ(E.gini, 0.0);
  EXPECT_EQ(hola::row_length_stats<std::int64_t>(nullptr, 0).rows, 0);
}

TEST(RowLengthStats, GiniAndStdMatchTheirDefinitions) {
  expect_definitions(hola::gen::arrow(300));
  expect_definitions(hola::gen::poisson2d(20, 15));
  expect_definitions(hola::gen::circuit(2000, 3, 0.3, 2, 500, 3.0));
  expect_definitions(hola::gen::rmat(9, 8, 4));
  // One row far longer than the row count: the sorting path instead of the histogram.
  expect_definitions(hola::gen::one_full_row(10, 5000, 3, 1));
  EXPECT_NEAR(stats_of(hola::gen::poisson2d(1, 1)).gini, 0.0, 1e-15);
}

TEST(Selector, GeneratedTreesPickWhatPythonPicked) {
  int checked = 0;
  for (const hola::detail::TreeCase& c : hola::detail::kTreeCases) {
    if (!c.kernel) continue;  // a tree file without cases
    hola::RowLengthStats s;
    s.rows = c.rows;
    s.cols = c.cols;
    s.nnz = c.nnz;
    s.min_row = c.min_row;
    s.max_row = c.max_row;
    s.empty_rows = c.empty_rows;
    s.std_row = c.std_row;
    s.gini = c.gini;
    const hola::Op op = c.transpose ? hola::Op::T : hola::Op::N;
    const auto pick = hola::select_device_kernel(op, c.single_precision, true, s);
    EXPECT_EQ(pick.name, c.kernel) << pick.reason;
    EXPECT_NE(pick.reason.find("auto tree"), std::string::npos) << pick.reason;
#if defined(HOLA_ENABLE_CUDA)  // the registry lists GPU kernels only in CUDA builds
    EXPECT_NE(hola::KernelRegistry::find(pick.name), nullptr) << pick.name;
#endif
    ++checked;
  }
  std::printf("%d generated cases (%s)\n", checked, hola::detail::tree_provenance());
}

TEST(Selector, CusparsePicksNeedEqualIndexTypes) {
  for (const hola::detail::TreeCase& c : hola::detail::kTreeCases) {
    if (!c.kernel || std::string(c.kernel).rfind("cusparse", 0) != 0) continue;
    hola::RowLengthStats s;
    s.rows = c.rows;
    s.cols = c.cols;
    s.nnz = c.nnz;
    s.min_row = c.min_row;
    s.max_row = c.max_row;
    s.empty_rows = c.empty_rows;
    s.std_row = c.std_row;
    s.gini = c.gini;
    const auto pick = hola::select_device_kernel(c.transpose ? hola::Op::T : hola::Op::N,
                                                 c.single_precision, false, s);
    EXPECT_EQ(pick.name.rfind("cusparse", 0), std::string::npos) << pick.reason;
    EXPECT_NE(pick.reason.find("mixed index types"), std::string::npos) << pick.reason;
  }
}

TEST(Selector, TreeFeaturesAreTheDocumentedRatios) {
  auto s = stats_of(hola::gen::circuit(5000, 2, 0.25, 2, 1000, 3.0));
  const auto f = hola::detail::tree_features(s);
  EXPECT_FLOAT_EQ(f.nnz, static_cast<float>(s.nnz));
  EXPECT_FLOAT_EQ(f.mean_row, static_cast<float>(s.mean_row()));
  EXPECT_FLOAT_EQ(f.empty_fraction, static_cast<float>(s.empty_fraction()));
  EXPECT_FLOAT_EQ(f.max_over_mean, static_cast<float>(s.max_row / s.mean_row()));
  EXPECT_FLOAT_EQ(f.cv_row, static_cast<float>(s.std_row / s.mean_row()));
  EXPECT_FLOAT_EQ(f.cols_over_rows, 1.0f);
  // No rows, no nonzeros: every ratio 0, no division by zero.
  const auto z = hola::detail::tree_features(hola::RowLengthStats{});
  EXPECT_EQ(z.mean_row, 0.0f);
  EXPECT_EQ(z.max_over_mean, 0.0f);
  EXPECT_EQ(z.cv_row, 0.0f);
  EXPECT_EQ(z.cols_over_rows, 0.0f);
}

TEST(SelectorRule, ShortEvenRowsGoToScalar) {
  const auto s = stats_of(hola::gen::poisson3d(10, 10, 10));
  for (hola::Op op : {hola::Op::N, hola::Op::T})
    for (bool single : {false, true})
      EXPECT_EQ(hola::select_device_kernel_by_rule(op, single, true, s).name, "scalar");
}

TEST(SelectorRule, LongRowsNeverGoToScalar) {
  const auto s = stats_of(hola::gen::circuit(20000, 1, 0.3, 2, 5000, 2.0));
  EXPECT_EQ(hola::select_device_kernel_by_rule(hola::Op::N, false, true, s).name, "hola");
  EXPECT_EQ(hola::select_device_kernel_by_rule(hola::Op::N, true, true, s).name, "cusparse");
  EXPECT_EQ(hola::select_device_kernel_by_rule(hola::Op::T, false, true, s).name, "cusparse");
}

TEST(SelectorRule, MixedIndexTypesAvoidCusparse) {
  const auto s = stats_of(hola::gen::banded_normal(5000, 22, 1000.0, 2));
  EXPECT_EQ(hola::select_device_kernel_by_rule(hola::Op::N, true, false, s).name, "hola");
  EXPECT_EQ(hola::select_device_kernel_by_rule(hola::Op::T, false, false, s).name, "hola");
  EXPECT_NE(hola::select_device_kernel_by_rule(hola::Op::T, false, false, s).reason.find("mixed"),
            std::string::npos);
  // Whatever the trees say, mixed index types never get cuSPARSE.
  for (hola::Op op : {hola::Op::N, hola::Op::T})
    for (bool single : {false, true})
      EXPECT_EQ(hola::select_device_kernel(op, single, false, s).name.rfind("cusparse", 0),
                std::string::npos);
}

TEST(Selector, HostMatricesAlwaysUseTheCpuKernel) {
  const auto A = hola::gen::poisson2d(5, 5).convert<double, int, int>();
  const auto c = hola::select_kernels("hola", A.view());
  EXPECT_EQ(c.n.name, "cpu");
  EXPECT_EQ(c.t.name, "cpu");
  EXPECT_NE(c.n.reason.find("GPU only"), std::string::npos);
  const auto a = hola::select_kernels("auto", A.view());
  EXPECT_EQ(a.n.name, "cpu");
  EXPECT_EQ(a.features_ms, 0.0);  // no features for host matrices
}

}  // namespace
