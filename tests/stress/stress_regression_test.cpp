// Past wrong answers, kept: the matrices of bug reports and every shrunk fuzzer failure, run by
// every device kernel (auto, deterministic variants and the C API included) against the GPU
// reference of stress_engine.cu, with NaN-poisoned y, three betas, both streams, two applies.
#include <gtest/gtest.h>

#include <string>
#include <vector>

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
