#include <doctest/doctest.h>

#include <cmath>

#include "triage/votes.h"

using namespace fabdiag::triage;

TEST_CASE("a screen candidate needs one confirmation test less") {
  LocalizeParams p;  // 3 repeats, 2 slow votes
  CHECK(confirm_tests_needed(true, p) == 2);
  CHECK(confirm_tests_needed(false, p) == 3);  // counter evidence alone: no screen vote
  p.confirm_repeats = 1;
  CHECK(confirm_tests_needed(true, p) == 1);  // never zero: nothing is named on the screen alone
}

TEST_CASE("the screen vote counts, but a confirmation test must be slow too") {
  LocalizeParams p;
  CHECK(count_votes(true, 1, 2).slow == 2);
  CHECK(count_votes(true, 1, 2).total == 3);
  CHECK(count_votes(false, 1, 2).slow == 1);
  CHECK(judge_votes(count_votes(true, 1, 1), 1, p) == VoteVerdict::kSuspect);      // slow + slow
  CHECK(judge_votes(count_votes(true, 1, 2), 1, p) == VoteVerdict::kSuspect);      // slow + slow + fast
  CHECK(judge_votes(count_votes(true, 0, 2), 0, p) == VoteVerdict::kCleared);      // slow + fast + fast
  CHECK(judge_votes(count_votes(true, 0, 1), 0, p) == VoteVerdict::kInconclusive); // a test was lost
  CHECK(judge_votes(count_votes(true, 0, 0), 0, p) == VoteVerdict::kInconclusive); // no test: never named
  // A counter (hard) suspect has no screen vote: 2 slow confirmation tests of 3.
  CHECK(judge_votes(count_votes(false, 1, 3), 1, p) == VoteVerdict::kCleared);
  CHECK(judge_votes(count_votes(false, 2, 2), 2, p) == VoteVerdict::kSuspect);
  CHECK(judge_votes(count_votes(false, 1, 2), 1, p) == VoteVerdict::kInconclusive);
  // Even confirm_votes = 1 names nobody without a slow confirmation test.
  p.confirm_votes = 1;
  CHECK(judge_votes(count_votes(true, 0, 2), 0, p) == VoteVerdict::kCleared);
}

TEST_CASE("a fast confirmation test clears a node whatever its slow votes") {
  LocalizeParams p = fabric_params();
  CHECK(p.fast_veto_ratio == doctest::Approx(0.97));
  CHECK(p.confirm_votes == 3);  // a fabric names a node on the screen and both tests
  CHECK(judge_votes(count_votes(true, 1, 2), 1, p) == VoteVerdict::kCleared);
  VoteCount v = count_votes(true, 2, 2);  // screen + two slow tests: a suspect without the veto
  CHECK(judge_votes(v, 2, p) == VoteVerdict::kSuspect);
  v.fast = 1;  // a test ran at the round's reference: ECMP halved the slow ones
  CHECK(judge_votes(v, 2, p) == VoteVerdict::kCleared);
  CHECK(std::isnan(LocalizeParams{}.fast_veto_ratio));  // off on the emulated cluster
}

TEST_CASE("link re-tests grow with the family of link candidates") {
  LocalizeParams p = fabric_params();
  CHECK(link_retests_for_family(p, 17, 1536) == 2);     // 1024 nodes: 17 x 0.011^2 = 0.002
  CHECK(link_retests_for_family(p, 270, 24576) == 3);   // 16384 nodes: 270 x 0.011^2 = 0.03 > 0.01
  CHECK(link_retests_for_family(LocalizeParams{}, 270, 24576) == 2);  // off on the emulated cluster
}
