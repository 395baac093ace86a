#include "triage/votes.h"

#include <algorithm>
#include <cmath>

namespace fabdiag::triage {

int confirm_tests_needed(bool screen_vote, const LocalizeParams& p) {
  return std::max(1, p.confirm_repeats - (screen_vote ? 1 : 0));
}

VoteCount count_votes(bool screen_vote, int slow_tests, int tests) {
  const int screen = screen_vote ? 1 : 0;
  return VoteCount{screen + slow_tests, screen + tests, 0};
}

VoteVerdict judge_votes(const VoteCount& v, int slow_tests, const LocalizeParams& p) {
  if (v.fast > 0) return VoteVerdict::kCleared;
  if (v.slow >= p.confirm_votes && slow_tests >= 1) return VoteVerdict::kSuspect;
  if (v.total - v.slow > p.confirm_repeats - p.confirm_votes || v.total >= p.confirm_repeats)
    return VoteVerdict::kCleared;
  return VoteVerdict::kInconclusive;
}

int link_retests_needed(const LocalizeParams& p) {
  return std::max(1, std::min(p.confirm_votes, p.confirm_repeats - 1));
}

int link_retests_for_family(const LocalizeParams& p, int candidates, int judged_pairs) {
  const int base = link_retests_needed(p);
  if (!std::isfinite(p.link_family_error) || candidates <= 0 || judged_pairs <= 0) return base;
  const double q = std::min(1.0, static_cast<double>(candidates) / judged_pairs);
  int k = base;
  while (k < base + 2 && candidates * std::pow(q, k) > p.link_family_error) ++k;
  return k;
}

VoteVerdict judge_link_retests(int slow_tests, int tests, int needed) {
  if (tests > slow_tests) return VoteVerdict::kCleared;
  if (tests >= needed) return VoteVerdict::kSuspect;
  return VoteVerdict::kInconclusive;
}

}  // namespace fabdiag::triage
