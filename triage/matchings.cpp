#include "triage/matchings.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <set>

namespace fabdiag::triage {

std::vector<std::vector<std::pair<int, int>>> random_matchings(int n, int rounds, uint64_t seed) {
  std::vector<std::vector<std::pair<int, int>>> out;
  if (n < 2) return out;
  rounds = std::min(rounds, n % 2 == 0 ? n - 1 : n);
  std::mt19937_64 rng(seed);
  std::set<std::pair<int, int>> used;
  std::vector<int> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  for (int r = 0; r < rounds; ++r) {
    // Shuffle and pair neighbours; reshuffle when a pair repeats. At scale a repeat is rare
    // (about r/n per pair); small n needs a few hundred tries at most.
    std::vector<std::pair<int, int>> best;
    for (int attempt = 0; attempt < 1000 && best.empty(); ++attempt) {
      std::shuffle(order.begin(), order.end(), rng);
      if (n % 2 == 1) {  // the resting node: a different one each round
        auto it = std::find(order.begin(), order.end(), r % n);
        std::iter_swap(it, order.end() - 1);
      }
      std::vector<std::pair<int, int>> round;
      for (int i = 0; i + 1 < n - (n % 2); i += 2) {
        int a = order[static_cast<size_t>(i)], b = order[static_cast<size_t>(i + 1)];
        std::pair<int, int> p = {std::min(a, b), std::max(a, b)};
        if (used.count(p)) break;
        round.push_back(p);
      }
      if (static_cast<int>(round.size()) == n / 2) best = std::move(round);
    }
    if (best.empty()) break;  // no repeat-free matching found: stop with fewer rounds
    for (const auto& p : best) used.insert(p);
    out.push_back(std::move(best));
  }
  return out;
}

}  // namespace fabdiag::triage
