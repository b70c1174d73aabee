// auto's check at the first products (OperatorOptions::auto_check): which kernel each of an op's
// first products runs, which of them are timed, and the verdict. Pure logic, so that the unit
// tests run it without a GPU; operator.cpp does the CUDA part (gpu::ProductTimer).
#pragma once

#include <algorithm>
#include <limits>
#include <vector>

namespace hola::detail {

class VendorCheck {
 public:
  // Rounds of one product with the tree's pick and one with cuSPARSE, interleaved so that a
  // clock change during the check touches both. The first round is untimed: it loads the
  // kernels' modules and, for cuSPARSE, includes its setup.
  static constexpr int kTimedRounds = 3;
  static constexpr int kProducts = 2 * (1 + kTimedRounds);
  static constexpr int kSlots = 2 * kTimedRounds;

  struct Step {
    bool vendor;  // cuSPARSE runs this product, else the tree's pick
    int slot;     // timer slot, or -1: untimed
  };
  // The k-th product of the check, k in [0, kProducts).
  static Step step(int k) {
    const bool vendor = k % 2 == 1;
    const int round = k / 2;
    return {vendor, round == 0 ? -1 : 2 * (round - 1) + (vendor ? 1 : 0)};
  }

  // Best (smallest) time of the pick's or cuSPARSE's timed products; `slot_ms` in slot order.
  static double best_ms(const std::vector<double>& slot_ms, bool vendor) {
    double best = std::numeric_limits<double>::infinity();
    for (int s = vendor ? 1 : 0; s < static_cast<int>(slot_ms.size()); s += 2)
      best = std::min(best, slot_ms[static_cast<std::size_t>(s)]);
    return best;
  }

  // cuSPARSE replaces the pick when its best product, times `margin`, beats the pick's best:
  // the switch must be worth more than the timing noise (margin 1.03 by default).
  static bool vendor_wins(const std::vector<double>& slot_ms, double margin) {
    return best_ms(slot_ms, true) * margin < best_ms(slot_ms, false);
  }
};

}  // namespace hola::detail
