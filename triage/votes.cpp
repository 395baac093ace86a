#include "triage/votes.h"

#include <algorithm>

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

int link_retests_needed(const LocalizeParams& p) { return std::max(1, p.confirm_votes); }

VoteVerdict judge_link_retests(int slow_tests, int tests, const LocalizeParams& p) {
  if (tests > slow_tests) return VoteVerdict::kCleared;
  if (tests >= link_retests_needed(p)) return VoteVerdict::kSuspect;
  return VoteVerdict::kInconclusive;
}

}  // namespace fabdiag::triage
