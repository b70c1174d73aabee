// auto's check at the first products (OperatorOptions::auto_check): which candidate each of an
// op's first products runs, which of them are timed, and the verdict. Candidate 0 is the tree's
// pick; the others challenge it (the leaf's runner-up, cuSPARSE). Pure logic, so that the unit
// tests run it without a GPU; operator.cpp does the CUDA part (gpu::ProductTimer).
#pragma once

#include <cstddef>
#include <limits>
#include <vector>

namespace hola::detail {

class ProductCheck {
 public:
  // Rounds of one product per candidate, interleaved so that a clock change during the check
  // touches all alike. The first round is untimed: it loads the kernels' modules and follows
  // the challengers' setup.
  static constexpr int kTimedRounds = 3;
  static constexpr int products(int candidates) { return candidates * (1 + kTimedRounds); }
  static constexpr int slots(int candidates) { return candidates * kTimedRounds; }

  struct Step {
    int candidate;  // which kernel runs this product
    int slot;       // timer slot, or -1: untimed
  };
  // The k-th product of the check, k in [0, products(candidates)).
  static Step step(int k, int candidates) {
    const int candidate = k % candidates;
    const int round = k / candidates;
    return {candidate, round == 0 ? -1 : (round - 1) * candidates + candidate};
  }

  // Best (smallest) time of a candidate's timed products; `slot_ms` in slot order.
  static double best_ms(const std::vector<double>& slot_ms, int candidate, int candidates) {
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t s = static_cast<std::size_t>(candidate); s < slot_ms.size();
         s += static_cast<std::size_t>(candidates))
      best = slot_ms[s] < best ? slot_ms[s] : best;
    return best;
  }

  // The winner: of the challengers whose best product, times its margin, beats the pick's best,
  // the fastest; else the pick (0). `margins[c]` is challenger c's (margins[0] unused). A switch
  // to another Hola kernel must be worth more than the timing noise (1.03 by default), so that
  // near-ties keep the pick; cuSPARSE, the reference the user compares with, needs less (1.01 by
  // default), so that auto does not stay on a pick a few per cent slower than it. A margin below
  // 1 lets slower challengers in (tests).
  static int winner(const std::vector<double>& slot_ms, const std::vector<double>& margins) {
    const int candidates = static_cast<int>(margins.size());
    const double pick = best_ms(slot_ms, 0, candidates);
    int won = 0;
    double fastest = std::numeric_limits<double>::infinity();
    for (int c = 1; c < candidates; ++c) {
      const double t = best_ms(slot_ms, c, candidates);
      if (t * margins[static_cast<std::size_t>(c)] < pick && t < fastest) {
        won = c;
        fastest = t;
      }
    }
    return won;
  }
  // Every challenger with the same margin.
  static int winner(const std::vector<double>& slot_ms, int candidates, double margin) {
    return winner(slot_ms, std::vector<double>(static_cast<std::size_t>(candidates), margin));
  }
};

}  // namespace hola::detail
