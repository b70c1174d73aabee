// Past wrong answers, kept: the matrices of bug reports and every shrunk fuzzer failure, run by
// every device kernel (auto, deterministic variants and the C API included) against the GPU
// reference of stress_engine.cu, with NaN-poisoned y, three betas, both streams, two applies.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hola/error.hpp"
#include "stress_cases.hpp"
#include "stress_engine.hpp"

namespace hola::stress {
namespace {

struct Param {
  std::string spec, types, why;
};

std::vector<Param> params() {
  std::vector<Param> v;
  for (const ScaleCase& c : regression_cases())
    for (const std::string& t : c.types) v.push_back({c.spec, t, c.why});
  return v;
}

class StressRegression : public ::testing::TestWithParam<Param> {};

TEST_P(StressRegression, EveryKernelMatchesTheReference) {
  const Param& p = GetParam();
  const CaseResult r =
      run_case(MatrixSpec::parse(p.spec), TypeSpec::parse(p.types), all_kernel_runs(), {});
  if (!r.skipped.empty()) GTEST_SKIP() << r.skipped;
  EXPECT_GT(r.checks, 0);
  for (const std::string& k : r.kernels) RecordProperty("kernel", k);
  for (const std::string& s : r.refusals) ADD_FAILURE() << "refused: " << s;
  for (const Failure& f : r.failures)
    ADD_FAILURE() << p.why << ": " << f.what << ": " << f.bad << " wrong entries, first "
                  << f.first_bad << " (got " << f.got << ", alpha*ref " << f.want << ") "
                  << f.error;
}

INSTANTIATE_TEST_SUITE_P(Reports, StressRegression, ::testing::ValuesIn(params()),
                         [](const ::testing::TestParamInfo<Param>& info) {
                           return "case" + std::to_string(info.index);
                         });

}  // namespace
}  // namespace hola::stress

namespace hola::stress {
namespace {

// The checker can fail: one corrupted entry of y is reported by every check.
TEST(StressEngine, ReportsACorruptedEntry) {
  CheckOptions o;
  o.corrupt_output = true;
  const CaseResult r = run_case(MatrixSpec::parse("rows=5000,cols=4000,dist=uniform,len=20,seed=2"),
                                TypeSpec::parse("double,32,32"), {{"hola", false, false}}, o);
  ASSERT_TRUE(r.skipped.empty()) << r.skipped;
  EXPECT_GT(r.checks, 0);
  EXPECT_EQ(static_cast<std::int64_t>(r.failures.size()), r.checks);
  for (const Failure& f : r.failures) EXPECT_EQ(f.bad, 1) << f.what;
}

// Setup on the caller's stream is ordered after the arrays still being written there (a
// non-blocking stream does not wait for the legacy default stream, nor it for it). One case per
// kernel, so that every kernel's setup is the first to meet arrays in flight.
TEST(StressEngine, SetupIsOrderedAfterArraysWrittenOnTheCallersStream) {
  CheckOptions o;
  o.setup_on_stream = true;
  o.betas = {0.0};
  o.repeats = 1;
  for (const KernelRun& run : all_kernel_runs()) {
    const CaseResult r =
        run_case(MatrixSpec::parse("rows=25000000,cols=25000000,dist=stencil5,nx=5000"),
                 TypeSpec::parse("double,32,32"), {run}, o);
    if (!r.skipped.empty()) GTEST_SKIP() << r.skipped;
    EXPECT_GT(r.checks, 0) << run.label();
    for (const std::string& s : r.refusals) ADD_FAILURE() << "refused: " << s;
    for (const Failure& f : r.failures)
      ADD_FAILURE() << f.what << ": " << f.bad << " wrong entries, first " << f.first_bad << " "
                    << f.error;
  }
}

// A band of random columns (spec key band): every kernel against the reference, in four type
// combinations (300 000 rows, 12 columns a row among 401: a band whose op T vector and
// vector-adaptive run through shared-memory windows where the rule takes them, which
// rowwise_test's TransposeWindows checks on a band of this kind); the spec text reads back the
// same.
TEST(StressEngine, BandOfRandomColumns) {
  const std::string text = "rows=300000,cols=300000,dist=constant,len=12,band=200,seed=4";
  const MatrixSpec m = MatrixSpec::parse(text);
  EXPECT_EQ(m.band, 200);
  EXPECT_EQ(MatrixSpec::parse(m.to_string()).to_string(), m.to_string());
  EXPECT_THROW(MatrixSpec::parse("rows=10,cols=10,len=2,band=-1"), hola::error);
  for (const char* types : {"double,32,32", "float,32,64", "double,64,32", "float,64,64"}) {
    const CaseResult r = run_case(m, TypeSpec::parse(types), all_kernel_runs(), {});
    if (!r.skipped.empty()) GTEST_SKIP() << r.skipped;
    EXPECT_GT(r.checks, 0) << types;
    for (const std::string& s : r.refusals) ADD_FAILURE() << "refused: " << s;
    for (const Failure& f : r.failures)
      ADD_FAILURE() << types << ": " << f.what << ": " << f.bad << " wrong entries, first "
                    << f.first_bad << " " << f.error;
  }
}

}  // namespace
}  // namespace hola::stress
