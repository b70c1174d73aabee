// auto's check at the first products (plugin/src/vendor_check.hpp): the order of the products,
// which of them are timed, and the verdict. The CUDA part runs in tests/gpu/auto_check_gpu_test.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "../../plugin/src/vendor_check.hpp"

namespace {

using hola::detail::VendorCheck;

TEST(VendorCheck, ProductsAlternateAndTheFirstRoundIsUntimed) {
  std::set<int> slots;
  int vendor_products = 0;
  for (int k = 0; k < VendorCheck::kProducts; ++k) {
    const VendorCheck::Step s = VendorCheck::step(k);
    EXPECT_EQ(s.vendor, k % 2 == 1) << k;
    vendor_products += s.vendor;
    if (k < 2) {
      EXPECT_EQ(s.slot, -1) << k;  // module loading, cuSPARSE's setup
      continue;
    }
    ASSERT_GE(s.slot, 0);
    ASSERT_LT(s.slot, VendorCheck::kSlots);
    EXPECT_EQ(s.slot % 2 == 1, s.vendor) << "odd slots are cuSPARSE's";
    EXPECT_TRUE(slots.insert(s.slot).second) << "slot " << s.slot << " used twice";
  }
  EXPECT_EQ(vendor_products, VendorCheck::kProducts / 2);
  EXPECT_EQ(static_cast<int>(slots.size()), VendorCheck::kSlots);
  EXPECT_EQ(VendorCheck::kSlots, 2 * VendorCheck::kTimedRounds);
}

TEST(VendorCheck, BestOfEachAndTheMargin) {
  // Slots: pick, cuSPARSE, pick, cuSPARSE, pick, cuSPARSE (ms).
  const std::vector<double> vendor_faster = {0.50, 0.40, 0.42, 0.45, 0.41, 0.39};
  EXPECT_DOUBLE_EQ(VendorCheck::best_ms(vendor_faster, false), 0.41);
  EXPECT_DOUBLE_EQ(VendorCheck::best_ms(vendor_faster, true), 0.39);
  EXPECT_TRUE(VendorCheck::vendor_wins(vendor_faster, 1.01));   // 0.3939 < 0.41
  EXPECT_FALSE(VendorCheck::vendor_wins(vendor_faster, 1.06));  // 0.4134 > 0.41
  const std::vector<double> tie = {0.40, 0.40, 0.41, 0.41, 0.42, 0.42};
  EXPECT_FALSE(VendorCheck::vendor_wins(tie, 1.01));  // a tie keeps the pick
  EXPECT_TRUE(VendorCheck::vendor_wins(tie, 1e-9));
  const std::vector<double> pick_faster = {0.20, 0.40, 0.21, 0.41, 0.22, 0.42};
  EXPECT_FALSE(VendorCheck::vendor_wins(pick_faster, 1.01));
  EXPECT_FALSE(VendorCheck::vendor_wins(pick_faster, 0.6));  // 0.24 > 0.20
  EXPECT_TRUE(VendorCheck::vendor_wins(pick_faster, 0.4));
}

}  // namespace
