// hola::Operator on host memory: selection, caching, the apply contract and every bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "hola/error.hpp"
#include "hola/generators.hpp"
#include "hola/gpu_kernels.hpp"
#include "hola/operator.hpp"
#include "hola/registry.hpp"
#include "hola/selector.hpp"
#include "spmv_check.hpp"
#include "status_of.hpp"

namespace {

using Op64 = hola::Operator<double, std::int32_t, std::int64_t>;

struct Fixture : ::testing::Test {
  hola::CsrMatrix<double, std::int32_t, std::int64_t> A =
      hola::gen::banded_normal(500, 8, 20.0, 3).convert<double, std::int32_t, std::int64_t>();
  std::vector<double> x = hola::test::random_vector<double>(500, 1);
  std::vector<double> y = hola::test::random_vector<double>(500, 2);
};

TEST_F(Fixture, AutoOnHostUsesCpuAndMatchesReference) {
  Op64 op;
  op.setup(A.view());
  EXPECT_EQ(op.kernel_name(hola::Op::N), "cpu");
  EXPECT_EQ(op.kernel_name(hola::Op::T), "cpu");
  for (hola::Op o : {hola::Op::N, hola::Op::T}) {
    std::vector<double> out = y;
    op.apply(o, 0.5, {x.data(), 500}, -2.0, {out.data(), 500});
    EXPECT_TRUE(hola::test::matches_reference(o, 0.5, A.view(), x, -2.0, y, out));
  }
}

// auto_vendor_kernel names cuSPARSE's CSR algorithms only; on the host it changes nothing.
TEST_F(Fixture, AutoVendorKernelOption) {
  for (const char* bad : {"", "scalar", "cusparse-alg3", "auto"}) {
    hola::OperatorOptions o;
    o.auto_vendor_kernel = bad;
    EXPECT_EQ(hola::test::status_of([&] { Op64 op(o); }), hola::status::invalid_argument) << bad;
  }
  hola::OperatorOptions o;
  o.auto_vendor_kernel = "cusparse-alg2";
  Op64 op(o);
  op.setup(A.view());
  EXPECT_EQ(op.kernel_name(hola::Op::N), "cpu");
  std::vector<double> out = y;
  op.apply(hola::Op::N, 1.0, {x.data(), 500}, 0.0, {out.data(), 500});
  EXPECT_TRUE(hola::test::matches_reference(hola::Op::N, 1.0, A.view(), x, 0.0, y, out));
}

TEST_F(Fixture, MultiplyAddIsPetscMatMultAdd) {
  Op64 op;
  op.setup(A.view());
  std::vector<double> z(500, std::numeric_limits<double>::quiet_NaN());
  op.multiply_add({x.data(), 500}, {y.data(), 500}, {z.data(), 500});
  EXPECT_TRUE(hola::test::matches_reference(hola::Op::N, 1.0, A.view(), x, 1.0, y, z));
  // z == y.
  std::vector<double> yz = y;
  op.multiply_add({x.data(), 500}, {yz.data(), 500}, {yz.data(), 500});
  EXPECT_TRUE(hola::test::matches_reference(hola::Op::N, 1.0, A.view(), x, 1.0, y, yz));
}

TEST_F(Fixture, BetaZeroIgnoresNaN) {
  Op64 op;
  op.setup(A.view());
  std::vector<double> out(500, std::numeric_limits<double>::quiet_NaN());
  op.apply(hola::Op::N, 1.0, {x.data(), 500}, 0.0, {out.data(), 500});
  for (double v : out) ASSERT_TRUE(std::isfinite(v));
}

TEST_F(Fixture, SameStructureIsNotAnalysedAgain) {
  Op64 op;
  op.setup(A.view(), 7);
  op.setup(A.view(), 7);
  EXPECT_EQ(op.analysis_count(), 1u);
  // New values through a new pointer, same structure: still cached, new values used.
  std::vector<double> vals(A.values.size());
  for (std::size_t i = 0; i < vals.size(); ++i) vals[i] = 3.0 * A.values[i];
  auto v = A.view();
  v.values = vals.data();
  op.setup(v, 7);
  EXPECT_EQ(op.analysis_count(), 1u);
  std::vector<double> out(500);
  op.apply(hola::Op::N, 1.0, {x.data(), 500}, 0.0, {out.data(), 500});
  EXPECT_TRUE(hola::test::matches_reference(hola::Op::N, 1.0, v, x, 0.0, y, out));
  // A new structure version forces a new analysis.
  op.setup(A.view(), 8);
  EXPECT_EQ(op.analysis_count(), 2u);
}

// work_version: what a caller capturing apply() into a CUDA graph compares. It changes with an
// analysis and a new values pointer, not with a values refresh through the same pointer or a
// product, and two Operators never share one.
TEST_F(Fixture, WorkVersionFollowsWhatApplyQueues) {
  Op64 op, other;
  for (hola::Op o : {hola::Op::N, hola::Op::T}) EXPECT_EQ(op.work_version(o), 0u);
  op.setup(A.view(), 7);
  other.setup(A.view(), 7);
  const std::uint64_t n0 = op.work_version(hola::Op::N), t0 = op.work_version(hola::Op::T);
  EXPECT_NE(n0, 0u);
  EXPECT_NE(t0, 0u);
  EXPECT_NE(other.work_version(hola::Op::N), n0);
  std::vector<double> out(500);
  op.apply(hola::Op::N, 1.0, {x.data(), 500}, 0.0, {out.data(), 500});
  op.apply(hola::Op::T, 1.0, {x.data(), 500}, 0.0, {out.data(), 500});
  op.setup(A.view(), 7);  // the same values pointer: nothing queued changes
  EXPECT_EQ(op.work_version(hola::Op::N), n0);
  EXPECT_EQ(op.work_version(hola::Op::T), t0);
  std::vector<double> vals(A.values.begin(), A.values.end());
  auto v = A.view();
  v.values = vals.data();
  op.setup(v, 7);  // the kernels read the values through another pointer now
  const std::uint64_t n1 = op.work_version(hola::Op::N);
  EXPECT_NE(n1, n0);
  EXPECT_NE(op.work_version(hola::Op::T), t0);
  op.setup(A.view(), 8);  // a new analysis
  EXPECT_EQ(op.analysis_count(), 2u);
  EXPECT_NE(op.work_version(hola::Op::N), n1);
  EXPECT_NE(op.work_version(hola::Op::N), n0);
  // Invalid input changes nothing, the version included.
  const std::uint64_t n2 = op.work_version(hola::Op::N);
  auto bad = A.view();
  bad.rows = -1;
  EXPECT_THROW(op.setup(bad, 9), hola::error);
  EXPECT_EQ(op.work_version(hola::Op::N), n2);
}

// A duplicate (same pattern, its own arrays) takes the first matrix's decision instead of
// analysing again; a matrix of another shape, another kernel request or after the race was
// switched on is analysed as usual.
TEST_F(Fixture, DuplicateTakesOverTheDecision) {
  Op64 first;
  EXPECT_EQ(first.decision(), nullptr);
  first.setup(A.view());
  ASSERT_NE(first.decision(), nullptr);
  EXPECT_EQ(first.decision()->choice.n.name, "cpu");
  EXPECT_TRUE(first.decision()->choice.n.alternatives.empty());

  const auto copy = A;  // same pattern, other arrays
  Op64 dup;
  dup.reuse_decision(first.decision());
  dup.setup(copy.view());
  EXPECT_NE(dup.selection_reason().find("taken over"), std::string::npos) << dup.selection_reason();
  EXPECT_EQ(dup.kernel_name(hola::Op::N), first.kernel_name(hola::Op::N));
  std::vector<double> out(500, std::numeric_limits<double>::quiet_NaN());
  dup.apply(hola::Op::T, 1.0, {x.data(), 500}, 0.0, {out.data(), 500});
  EXPECT_TRUE(hola::test::matches_reference(hola::Op::T, 1.0, A.view(), x, 0.0, y, out));

  // Another shape: the decision does not apply.
  const auto other =
      hola::gen::banded_normal(400, 8, 20.0, 3).convert<double, std::int32_t, std::int64_t>();
  Op64 different;
  different.reuse_decision(first.decision());
  different.setup(other.view());
  EXPECT_EQ(different.selection_reason().find("taken over"), std::string::npos);

  // Another kernel request: neither.
  hola::OperatorOptions named;
  named.kernel = "cpu";
  Op64 by_name(named);
  by_name.reuse_decision(first.decision());
  by_name.setup(copy.view());
  EXPECT_EQ(by_name.selection_reason().find("taken over"), std::string::npos);
}

// Switching an auto option away from its default (read by `get`) redoes the analysis at the
// next setup; setting it again to the same value redoes nothing.
template <class Get, class Set>
void expect_switch_redoes_analysis(const hola::CsrView<double, std::int32_t, std::int64_t>& A,
                                   Get get, Set set) {
  Op64 op;
  const bool flipped = !get(op);
  op.setup(A, 1);
  op.setup(A, 1);
  EXPECT_EQ(op.analysis_count(), 1u);
  set(op, flipped);
  EXPECT_EQ(get(op), flipped);
  op.setup(A, 1);
  EXPECT_EQ(op.analysis_count(), 2u);
  set(op, flipped);  // no change: nothing to redo
  op.setup(A, 1);
  EXPECT_EQ(op.analysis_count(), 2u);
}

TEST_F(Fixture, SwitchingTheRaceRedoesTheAnalysis) {
  EXPECT_FALSE(Op64{}.options().auto_trial);  // off by default (setup cost, reproducibility)
  expect_switch_redoes_analysis(
      A.view(), [](const Op64& op) { return op.options().auto_trial; },
      [](Op64& op, bool on) { op.set_auto_trial(on); });
}

TEST_F(Fixture, SwitchingTheCheckRedoesTheAnalysis) {
  Op64 op;
  EXPECT_TRUE(op.options().auto_check);  // on by default: it costs a few products
  EXPECT_DOUBLE_EQ(op.options().auto_check_margin, 1.03);
  EXPECT_DOUBLE_EQ(op.options().auto_check_vendor_margin, 1.01);
  op.setup(A.view(), 1);
  // Host matrices have no cuSPARSE to be checked against.
  for (hola::Op o : {hola::Op::N, hola::Op::T}) EXPECT_FALSE(op.auto_check_pending(o));
  expect_switch_redoes_analysis(
      A.view(), [](const Op64& op) { return op.options().auto_check; },
      [](Op64& op, bool on) { op.set_auto_check(on); });
}

TEST(OperatorOptionsTest, CheckMarginMustBeFiniteAndPositive) {
  for (bool vendor : {false, true})
    for (double bad : {0.0, -1.0, std::numeric_limits<double>::quiet_NaN(),
                       std::numeric_limits<double>::infinity()}) {
      hola::OperatorOptions o;
      (vendor ? o.auto_check_vendor_margin : o.auto_check_margin) = bad;
      const std::string name = vendor ? "auto_check_vendor_margin " : "auto_check_margin ";
      try {
        Op64 op(o);
        ADD_FAILURE() << name << bad << " accepted";
      } catch (const hola::error& e) {
        EXPECT_EQ(e.code(), hola::status::invalid_argument) << bad;
        EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
      }
    }
  hola::OperatorOptions fine;
  fine.auto_check_margin = 1e-9;
  fine.auto_check_vendor_margin = 1e9;
  EXPECT_NO_THROW(Op64{fine});
}

TEST_F(Fixture, FingerprintTellsAdaptersWhetherSetupWouldRedoTheAnalysis) {
  Op64 op;
  const hola::StructureFingerprint key = Op64::fingerprint(A.view(), 3);
  EXPECT_FALSE(op.is_set_up_for(key));
  op.setup(A.view(), 3);
  EXPECT_TRUE(op.is_set_up_for(key));
  // New values share the fingerprint; a new version, new arrays or new sizes do not.
  auto v = A.view();
  std::vector<double> vals(A.values);
  v.values = vals.data();
  EXPECT_EQ(Op64::fingerprint(v, 3), key);
  EXPECT_NE(Op64::fingerprint(A.view(), 4), key);
  auto other_cols = A.col_idx;
  v.col_idx = other_cols.data();
  EXPECT_NE(Op64::fingerprint(v, 3), key);
  v = A.view();
  v.cols += 1;
  EXPECT_NE(Op64::fingerprint(v, 3), key);
  EXPECT_FALSE(op.is_set_up_for(Op64::fingerprint(A.view(), 4)));
  // A failed setup keeps the old analysis (and its fingerprint).
  auto bad = A.view();
  bad.nnz += 1;
  EXPECT_THROW(op.setup(bad, 9), hola::error);
  EXPECT_TRUE(op.is_set_up_for(key));
  EXPECT_EQ(op.analysis_count(), 1u);
}

TEST_F(Fixture, AnotherStructureAtTheSameAddressesIsAnalysedAgain) {
  // The caller frees a matrix and builds the next one of the same sizes in the same arrays,
  // without a structure version: the sample of row_ptr / col_idx differs, so no stale analysis.
  hola::CsrMatrix<double, std::int32_t, std::int64_t> B = A;
  Op64 op;
  op.setup(B.view());
  EXPECT_EQ(op.analysis_count(), 1u);
  op.setup(B.view());  // the same structure again: values refreshed only
  EXPECT_EQ(op.analysis_count(), 1u);
  const auto C = hola::gen::random_with_nnz(500, 500, A.nnz(), 9)
                     .convert<double, std::int32_t, std::int64_t>();
  ASSERT_EQ(C.nnz(), B.nnz());
  ASSERT_NE(C.row_ptr, B.row_ptr);
  std::copy(C.row_ptr.begin(), C.row_ptr.end(), B.row_ptr.begin());
  std::copy(C.col_idx.begin(), C.col_idx.end(), B.col_idx.begin());
  std::copy(C.values.begin(), C.values.end(), B.values.begin());
  op.setup(B.view());
  EXPECT_EQ(op.analysis_count(), 2u);
  std::vector<double> out(500, std::numeric_limits<double>::quiet_NaN());
  op.apply(hola::Op::N, 1.0, {x.data(), 500}, 0.0, {out.data(), 500});
  EXPECT_TRUE(hola::test::matches_reference(hola::Op::N, 1.0, C.view(), x, 0.0, y, out));
}

TEST_F(Fixture, BadInputIsRejectedAndChangesNothing) {
  Op64 op;
  op.setup(A.view());
  const std::vector<double> before = y;
  std::vector<double> out = y;
  // Size mismatches.
  EXPECT_EQ(hola::test::status_of([&] {
              op.apply(hola::Op::N, 1.0, {x.data(), 499}, 0.0, {out.data(), 500});
            }),
            hola::status::size_mismatch);
  EXPECT_EQ(hola::test::status_of([&] {
              op.apply(hola::Op::N, 1.0, {x.data(), 500}, 0.0, {out.data(), 501});
            }),
            hola::status::size_mismatch);
  // Aliasing x and y, partially overlapping y_in / y_out.
  std::vector<double> big(1000, 1.0);
  EXPECT_EQ(hola::test::status_of([&] {
              op.apply(hola::Op::N, 1.0, {big.data(), 500}, 0.0, {big.data() + 100, 500});
            }),
            hola::status::aliasing);
  EXPECT_EQ(
      hola::test::status_of([&] {
        op.apply(hola::Op::N, 1.0, {x.data(), 500}, 1.0, {big.data(), 500}, {big.data() + 1, 500});
      }),
      hola::status::aliasing);
  // Null vectors.
  EXPECT_EQ(hola::test::status_of([&] {
              op.apply(hola::Op::N, 1.0, {nullptr, 500}, 0.0, {out.data(), 500});
            }),
            hola::status::invalid_argument);
  EXPECT_EQ(out, before) << "a rejected apply wrote to y";

  // Invalid CSR at setup: the Operator keeps its previous matrix.
  auto bad = A;
  bad.col_idx[10] = 10000;
  EXPECT_EQ(hola::test::status_of([&] { op.setup(bad.view(), 1); }), hola::status::invalid_csr);
  auto bad2 = A;
  std::swap(bad2.row_ptr[3], bad2.row_ptr[4]);
  EXPECT_EQ(hola::test::status_of([&] { op.setup(bad2.view(), 1); }), hola::status::invalid_csr);
  auto neg = A.view();
  neg.rows = -1;
  EXPECT_EQ(hola::test::status_of([&] { op.setup(neg, 1); }), hola::status::invalid_argument);
  op.apply(hola::Op::N, 1.0, {x.data(), 500}, 0.0, {out.data(), 500});
  EXPECT_TRUE(hola::test::matches_reference(hola::Op::N, 1.0, A.view(), x, 0.0, y, out));
}

TEST(Operator, ErrorsBeforeSetupAndUnknownKernels) {
  hola::Operator<float, std::int32_t, std::int32_t> op;
  float v = 0;
  EXPECT_EQ(hola::test::status_of([&] {
              op.apply(hola::Op::N, 1.f, {&v, 1}, 0.f, {&v, 1});
            }),
            hola::status::invalid_argument);
  hola::OperatorOptions o;
  o.kernel = "nonsense";
  EXPECT_EQ(
      hola::test::status_of([&] { hola::Operator<float, std::int32_t, std::int32_t> bad(o); }),
      hola::status::invalid_argument);
}

TEST(Operator, DeviceMatrixWithoutGpuIsAClearError) {
  if (hola::gpu::gpu_available()) GTEST_SKIP() << "a GPU is present: covered by the GPU tests";
  auto A = hola::gen::poisson2d(4, 4).convert<double, std::int32_t, std::int32_t>();
  auto v = A.view();
  v.memory = hola::Memory::device;
  hola::Operator<double, std::int32_t, std::int32_t> op;
  EXPECT_EQ(hola::test::status_of([&] { op.setup(v); }), hola::status::no_device);
}

TEST(Registry, ListsKernelsAndRejectsUnknownNames) {
  EXPECT_NE(hola::KernelRegistry::find("cpu"), nullptr);
  EXPECT_NE(hola::KernelRegistry::find("auto"), nullptr);
  EXPECT_EQ(hola::KernelRegistry::find("nope"), nullptr);
  EXPECT_EQ(
      hola::test::status_of([] { hola::KernelRegistry::create<double, int, int>("nope", {}); }),
      hola::status::invalid_argument);
#if defined(HOLA_ENABLE_CUDA)
  EXPECT_NE(hola::KernelRegistry::find("hola"), nullptr);
#else
  EXPECT_EQ(
      hola::test::status_of([] { hola::KernelRegistry::create<double, int, int>("hola", {}); }),
      hola::status::unsupported);
#endif
  // Each row's capabilities against its kernel: tests/unit/kernel_table_test.cpp.
}

}  // namespace
