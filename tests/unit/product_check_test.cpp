// auto's check at the first products (plugin/src/product_check.hpp): the order of the products,
// which of them are timed, and the verdict. The CUDA part runs in tests/gpu/auto_check_gpu_test.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "../../plugin/src/product_check.hpp"

namespace {

using hola::detail::ProductCheck;

TEST(ProductCheck, ProductsRotateAndTheFirstRoundIsUntimed) {
  for (int n : {2, 3}) {
    SCOPED_TRACE(n);
    std::set<int> slots;
    std::vector<int> per_candidate(n, 0);
    for (int k = 0; k < ProductCheck::products(n); ++k) {
      const ProductCheck::Step s = ProductCheck::step(k, n);
      EXPECT_EQ(s.candidate, k % n) << k;
      ++per_candidate[static_cast<std::size_t>(s.candidate)];
      if (k < n) {
        EXPECT_EQ(s.slot, -1) << k;  // module loading, the challengers' setup
        continue;
      }
      ASSERT_GE(s.slot, 0);
      ASSERT_LT(s.slot, ProductCheck::slots(n));
      EXPECT_EQ(s.slot % n, s.candidate) << "slot " << s.slot;
      EXPECT_TRUE(slots.insert(s.slot).second) << "slot " << s.slot << " used twice";
    }
    for (int c : per_candidate) EXPECT_EQ(c, 1 + ProductCheck::kTimedRounds);
    EXPECT_EQ(static_cast<int>(slots.size()), ProductCheck::slots(n));
  }
}

TEST(ProductCheck, BestOfEachAndTheMargin) {
  // Two candidates; slots: pick, cuSPARSE, pick, cuSPARSE, pick, cuSPARSE (ms).
  const std::vector<double> vendor_faster = {0.50, 0.40, 0.42, 0.45, 0.41, 0.39};
  EXPECT_DOUBLE_EQ(ProductCheck::best_ms(vendor_faster, 0, 2), 0.41);
  EXPECT_DOUBLE_EQ(ProductCheck::best_ms(vendor_faster, 1, 2), 0.39);
  EXPECT_EQ(ProductCheck::winner(vendor_faster, 2, 1.03), 1);  // 0.4017 < 0.41
  EXPECT_EQ(ProductCheck::winner(vendor_faster, 2, 1.06), 0);  // 0.4134 > 0.41
  const std::vector<double> tie = {0.40, 0.40, 0.41, 0.41, 0.42, 0.42};
  EXPECT_EQ(ProductCheck::winner(tie, 2, 1.03), 0);  // a tie keeps the pick
  EXPECT_EQ(ProductCheck::winner(tie, 2, 1e-9), 1);
  const std::vector<double> pick_faster = {0.20, 0.40, 0.21, 0.41, 0.22, 0.42};
  EXPECT_EQ(ProductCheck::winner(pick_faster, 2, 1.03), 0);
  EXPECT_EQ(ProductCheck::winner(pick_faster, 2, 0.6), 0);  // 0.24 > 0.20
  EXPECT_EQ(ProductCheck::winner(pick_faster, 2, 0.4), 1);
}

TEST(ProductCheck, FastestChallengerBeyondTheMarginWins) {
  // Three candidates: pick, runner-up, cuSPARSE.
  const std::vector<double> runner_up = {0.50, 0.30, 0.45, 0.52, 0.31, 0.44, 0.51, 0.32, 0.46};
  EXPECT_EQ(ProductCheck::winner(runner_up, 3, 1.03), 1);
  const std::vector<double> vendor = {0.50, 0.47, 0.40, 0.52, 0.46, 0.41, 0.51, 0.48, 0.42};
  EXPECT_EQ(ProductCheck::winner(vendor, 3, 1.03), 2);
  // Both challengers within the margin: the pick stays.
  const std::vector<double> close = {0.50, 0.49, 0.495, 0.52, 0.50, 0.51, 0.51, 0.50, 0.50};
  EXPECT_EQ(ProductCheck::winner(close, 3, 1.03), 0);
  // One within the margin, one beyond it: the one beyond.
  const std::vector<double> one = {0.50, 0.49, 0.40, 0.52, 0.495, 0.41, 0.51, 0.50, 0.42};
  EXPECT_EQ(ProductCheck::winner(one, 3, 1.03), 2);
}

TEST(ProductCheck, EachChallengerHasItsOwnMargin) {
  // pick, runner-up, cuSPARSE: both challengers 2 % faster than the pick's 0.50.
  const std::vector<double> both = {0.50, 0.49, 0.49, 0.52, 0.495, 0.495, 0.51, 0.50, 0.50};
  EXPECT_EQ(ProductCheck::winner(both, {1, 1.03, 1.01}), 2);  // cuSPARSE's margin is smaller
  EXPECT_EQ(ProductCheck::winner(both, {1, 1.01, 1.03}), 1);
  EXPECT_EQ(ProductCheck::winner(both, {1, 1.03, 1.03}), 0);
  // Both beyond their margins: the faster wins, whatever its margin.
  const std::vector<double> apart = {0.50, 0.40, 0.45, 0.52, 0.41, 0.46, 0.51, 0.42, 0.47};
  EXPECT_EQ(ProductCheck::winner(apart, {1, 1.03, 1.01}), 1);
  // The uniform form is the per-challenger one with equal margins.
  for (double m : {0.5, 1.0, 1.01, 1.03, 1.2})
    EXPECT_EQ(ProductCheck::winner(both, 3, m), ProductCheck::winner(both, {1, m, m})) << m;
}

}  // namespace
