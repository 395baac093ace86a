// Confirmation votes (stage 4 of docs/localization.md#confirmation): how many confirmation tests a
// candidate needs and what its votes decide. The broad screen already measured every candidate
// (a node's median over 3+ partners, a link's own pair test), so that result counts as the first
// slow vote and the confirmation runs one test fewer: the rounds a slow node costs go from
// screen + confirm_repeats to screen + confirm_repeats - 1 (5 with 3 matchings). Nothing is named
// on the screen alone: at least one confirmation test must be slow too.
#pragma once

#include "triage/localize.h"

namespace fabdiag::triage {

/// What a candidate's votes decide.
enum class VoteVerdict {
  kSuspect,       ///< At least confirm_votes slow votes, one of them a confirmation test.
  kCleared,       ///< The majority can no longer be slow, or every vote is in.
  kInconclusive,  ///< Too few tests ran to decide (a round failed).
};

/// Confirmation tests to plan for one subject: `p.confirm_repeats` minus its screen vote (1 for a
/// screen candidate, 0 for a node taken in on counter evidence alone), at least 1.
int confirm_tests_needed(bool screen_vote, const LocalizeParams& p);

/// Slow votes and votes cast for a subject: the screen's vote (when `screen_vote`) plus its
/// `slow_tests` of `tests` confirmation tests.
struct VoteCount {
  int slow = 0;
  int total = 0;
  int fast = 0;  ///< Confirmation tests at or above LocalizeParams::fast_veto_ratio (0 when off).
};
VoteCount count_votes(bool screen_vote, int slow_tests, int tests);

/// The rule: suspect with >= p.confirm_votes slow votes of which >= 1 is a confirmation test and
/// no fast test (v.fast: a fast test clears, see LocalizeParams::fast_veto_ratio); cleared when more votes passed than p.confirm_repeats - p.confirm_votes, or when
/// p.confirm_repeats votes are in; otherwise inconclusive. With the defaults (3 / 2) and a screen
/// vote: slow + slow = suspect, slow + fast + fast = cleared, slow + fast (a test lost) =
/// inconclusive.
VoteVerdict judge_votes(const VoteCount& v, int slow_tests, const LocalizeParams& p);

/// Re-tests to plan for a link candidate in the confirmation rounds: p.confirm_votes, at most
/// p.confirm_repeats - 1 (the rounds a node candidate gets), at least 1. The link's screen value is one sample, which a deep dip or an ECMP collision (half the
/// rate, on a different flow each round) gives routinely, so it is no vote and every re-test must
/// be slow.
int link_retests_needed(const LocalizeParams& p);

/// Slow re-tests a link needs when `candidates` of `judged_pairs` screen pairs between
/// non-candidates were dark (a multiple-comparison bound): the smallest k >= link_retests_needed(p)
/// with candidates x q^k <= p.link_family_error, q = candidates / judged_pairs the share of dark
/// tests (ECMP collisions and dips hit a re-test as often as a screen test), at most
/// link_retests_needed(p) + 2. At 16384 nodes with 1 % collisions (about 270 candidates of 24576
/// pairs, q = 1.1 %) 2 re-tests leave 270 q^2 = 0.03 false links per run, 3 leave 4e-4.
/// p.link_family_error NaN: link_retests_needed(p).
int link_retests_for_family(const LocalizeParams& p, int candidates, int judged_pairs);

/// A link candidate's re-tests: suspect when all of at least `needed` re-tests are slow (a
/// collision hits 2 re-tests in a row with probability q^2, against 3 q^2 for 2 of 3); cleared
/// when one was fast; inconclusive when fewer ran.
VoteVerdict judge_link_retests(int slow_tests, int tests, int needed);

}  // namespace fabdiag::triage
