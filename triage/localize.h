// Localization: from pair bandwidth samples to named slow nodes and slow links, under noise.
//
// Pure decision logic (no MPI, no I/O), so the emulated cluster and a simulation run the same code.
// The algorithm is the screen by round-robin pairs (docs/localization.md#the-screen) and the
// confirmation (docs/localization.md#confirmation; confirm: re-pair each suspect with fresh
// known-good partners, majority of repeats, control pairs in the same round as the reference).
// Nothing is named on one sample.
#pragma once

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "triage/threshold.h"

namespace fabdiag::triage {

/// One bidirectional pair test between node indexes a and b.
struct PairSample {
  int a = 0;
  int b = 0;
  double bytes_per_s = NAN;  ///< Per direction; NaN when the test did not complete.
  int round = 0;             ///< Round id (tests in one round ran concurrently).
  double a_to_b_bytes_per_s = NAN;  ///< Direction a -> b alone (timed at b); NaN when unknown.
  double b_to_a_bytes_per_s = NAN;  ///< Direction b -> a alone (timed at a); NaN when unknown.
  /// > 0: the test did not complete within this many seconds (a dead link or host); bytes_per_s
  /// is then NaN, so the screen and the decision leave the pair out (triage/dead_pairs.h names it).
  double no_completion_s = 0;
};

/// Thresholds. Defaults are the emulated-cluster values of docs/localization.md#parameters; a real
/// fabric wants fabric_params() (node_ratio 0.88, pair_ratio 0.6).
struct LocalizeParams {
  double node_ratio = 0.5;    ///< Node median / reference below this = slow node (when not adaptive).
  /// Adaptive node ratio from the broad round's spread (triage/threshold.h); when on, the
  /// screen's Screen::node_threshold replaces node_ratio in the screen and the confirmation.
  AdaptiveThreshold adaptive;
  double pair_ratio = 0.15;   ///< One pair / reference below this = slow pair.
  double watch_ratio = 0.95;  ///< Not a candidate but below this and past modz_limit: "watch".
  /// External reference (bytes/s per direction of one pair test): a stored baseline or a
  /// spec-derived expected rate. NaN: none, the screen uses ref_quantile of the node medians.
  double reference_bytes_per_s = NAN;
  /// Quantile of the broad round's node medians used as reference: the median (0.5) on the
  /// emulated cluster, whose noise is heavy enough that a higher one makes healthy nodes
  /// candidates; 0.9 in fabric_params() (about 3 % noise), so a slow minority does not drag
  /// the reference down.
  double ref_quantile = 0.5;
  double modz_limit = -3.5;   ///< Modified z-score must also be below this (both tests agree).
  int min_partners = 3;       ///< A node is judged on at least this many distinct partners.
  int confirm_repeats = 3;    ///< Confirmation tests per suspect.
  int confirm_votes = 2;      ///< Of which at least this many must flag.
  /// A node confirmation test at or above this x its round's reference clears the node whatever
  /// its slow votes (triage/votes.h): on a fabric with 3 % noise a slow node never tests that
  /// fast, while a healthy node whose screen and one test were halved by ECMP collisions does.
  /// NaN: off (the emulated cluster's 2x noise lifts slow nodes that high); 0.97 in fabric_params().
  double fast_veto_ratio = NAN;
  /// A node confirmation test below this x its round's reference is a slow vote. NaN: the node
  /// ratio in use (fixed or adaptive; the emulated cluster). 0.94 in fabric_params() (with
  /// confirm_votes 3: the screen and both tests slow): one test is judged against a median of many
  /// controls, so its spread is the test noise (3 %), not that of a median over 3 partners; at
  /// 0.88 a 0.85x node tested above the line in 16 % of its tests, at 0.94 in 0.05 %.
  /// When set and the fabric is declared non-blocking (oversubscription 1), a screen candidate
  /// with a screen test at or above it x the node reference is cleared (a fast vote, as
  /// fast_veto_ratio's): a node whose median two ECMP collisions halved still has one test at
  /// full rate, which a 0.85x node reaches in about 1 of 10^4 tests (4 sigma of 3 % noise).
  double confirm_ratio = NAN;
  /// A node whose z is below modz_limit with a ratio under watch_ratio is a candidate (confirmed
  /// like one) instead of a watch: a 0.85x node's median over 3 partners lands above 0.88 in a
  /// few % of screens. Off by default and in fabric_params() (on, it let a 0.85x node through a --node-ratio 0.8
  /// override and turned 0.92x watches into candidates: tests/triage/mild_fault_test.cpp).
  bool confirm_watch = false;
  /// Family-wise error of the link verdicts (triage/votes.h, link_retests_needed()): a link needs
  /// as many slow re-tests as it takes for (link candidates) x (dark share)^re-tests to stay below
  /// it, at least confirm_votes. NaN: confirm_votes re-tests (the emulated cluster); 0.01 in
  /// fabric_params().
  double link_family_error = NAN;
  /// The fabric's oversubscription R (R:1, `--oversubscription`; 1 = non-blocking): with a
  /// topology, cross-leaf pairs are expected down to 1/R of the intra-leaf reference when every
  /// host of a leaf sends across at once, so the uplink judge (triage/uplink.h) calls a cross-leaf
  /// value dark below node_ratio x reference / R, and every other judgment (node medians, link
  /// candidates, confirmation and ring re-tests) reads a cross-leaf test against the share of a
  /// host's rate its round's uplink load leaves it (triage/designed_share.h): contention the
  /// design promises is not a slow node or link.
  double oversubscription = 1;
  /// [node] its leaf (triage/leaf_map.h's LeafMap::leaf_of, -1 unknown) when a topology is
  /// given; empty without one. Set by run_walk(); only used with oversubscription > 1.
  std::vector<int> leaf_of;
};


/// Real-fabric thresholds (sigma about 3 %): 0.85x nodes are found, 0.92x ones are "watch"; a
/// confirmation test at 0.97x or above clears a node (fast_veto_ratio).
LocalizeParams fabric_params();

/// A node close to the threshold: not a candidate, reported with its ratio.
struct Watch {
  int node = 0;
  double ratio = NAN;  ///< Node median / reference.
  double modz = NAN;   ///< Modified z of log median among the judged nodes.
};

/// Stage 2 result: candidates, not verdicts.
struct Screen {
  int nodes = 0;
  double node_ref_bytes_per_s = NAN;             ///< Reference: external, else ref_quantile of node medians.
  NodeThreshold node_threshold;                  ///< The node ratio in use (fixed or adaptive) and why.
  bool external_reference = false;               ///< node_ref_bytes_per_s came from params.
  double cluster_ratio = NAN;                    ///< Median node median / external reference (NaN without one).
  std::vector<Watch> watch;                      ///< Near misses (see LocalizeParams::watch_ratio).
  double pair_ref_bytes_per_s = NAN;             ///< Median of pairs between non-candidate nodes.
  std::vector<double> node_median_bytes_per_s;   ///< [node], NaN without samples.
  /// [node] its fastest screen pair value (bytes/s per direction, read against its designed
  /// share), NaN without samples: with fabric rules a screen test this far above the node's
  /// median is the evidence of collisions, not of a slow node (LocalizeParams::confirm_ratio).
  std::vector<double> node_best_bytes_per_s;
  std::vector<double> node_modz;                 ///< [node] modified z of the node median.
  std::vector<int> partners;                     ///< [node] distinct partners measured.
  std::vector<int> node_candidates;
  std::vector<std::pair<int, int>> link_candidates;  ///< (a < b), both ends not node candidates; darkest pair first.
  std::vector<int> good;                         ///< Neither a candidate nor a candidate link end.
  std::vector<int> too_few_partners;             ///< Not judged: fewer than min_partners.
  /// Slow re-tests a link candidate needs (link_retests_needed(): the family-wise bound over the
  /// link candidates and the share of dark pairs among the healthy ones).
  int link_retests = 2;
};

/// Screens a broad round-robin pair matrix. `samples` may repeat a pair (values are averaged by
/// median). Node candidates: median over >= min_partners partners below node_ratio x the
/// reference (external, else the ref_quantile of node medians) AND modified z (of log bandwidth:
/// noise is multiplicative) below modz_limit. Watch: not a candidate, z below modz_limit and ratio
/// below watch_ratio, or ratio below node_ratio alone. Link candidates: a pair between two
/// non-candidates below pair_ratio x pair reference AND modified z below modz_limit.
Screen screen_pairs(int nodes, const std::vector<PairSample>& samples, const LocalizeParams& p);

/// Why a pair is in a confirmation round.
enum class Role {
  kConfirmNode,  ///< A node candidate (`subject`) against a good partner.
  kConfirmLink,  ///< A link candidate re-measured.
  kClearEnd,     ///< One end of a link candidate (`subject`) against a fresh good partner.
  kControl,      ///< Two good nodes: the round's reference.
};
const char* to_string(Role r);

/// One planned pair test.
struct PlannedPair {
  int a = 0;
  int b = 0;
  Role role = Role::kControl;
  int subject = -1;                      ///< Node under test (kConfirmNode, kClearEnd).
  std::pair<int, int> link{-1, -1};      ///< Link under test (kConfirmLink, kClearEnd).
};

/// One round of concurrent, node-disjoint pair tests.
struct PlannedRound {
  std::vector<PlannedPair> pairs;
};

/// Confirmation rounds for the screen's candidates plus `hard` nodes (counter evidence):
/// confirm_repeats rounds in which every node candidate meets a different good partner and
/// every link candidate is re-measured, plus one round in which each link end meets a fresh
/// good partner; the remaining good nodes form control pairs (the round's reference). Empty
/// when there is nothing to confirm.
/// `ring_controls`: the control pairs of round k are first the ring edges (i, i+1 mod N), i = k
/// mod 2, between unused nodes that are no node candidates (triage/link_bisection.h: the ring of a
/// sick all_reduce is probed while the candidates are confirmed), and each link candidate gets one
/// re-test here (plan_retest_round() adds the others to the links still slow).
std::vector<PlannedRound> plan_confirmation(const Screen& s, const LocalizeParams& p,
                                            const std::vector<int>& hard = {}, bool ring_controls = false);

/// One more confirmation round: each of `links` re-measured (node-disjoint; a link sharing an end
/// with an earlier one waits), the remaining good nodes as control pairs; `ring_parity` >= 0: the
/// controls probe the ring edges of that parity first (as plan_confirmation's ring_controls).
PlannedRound plan_retest_round(const Screen& s, const std::vector<std::pair<int, int>>& links, int ring_parity = -1);

/// A named suspect with the tests behind it.
struct Suspect {
  std::string kind;               ///< "node", "link", "pair" (one of these two) or "cluster".
  std::vector<int> nodes;         ///< One node, the two ends of a link or pair, or every node.
  double screen_ratio = NAN;      ///< Screen value / screen reference.
  double confirm_ratio = NAN;     ///< Median ratio of the confirmation tests.
  int votes = 0;                  ///< Slow votes: the screen's (a candidate's) plus the confirmation tests that flagged (triage/votes.h).
  int trials = 0;                 ///< Votes cast: the screen's plus the confirmation tests run.
  std::vector<PairSample> tests;  ///< Confirmation tests (screen tests are in the matrix).
  std::vector<double> test_ratios;  ///< Parallel to tests: value / that round's reference.
};

/// The outcome: confirmed suspects, cleared candidates with the reason, what stayed open.
struct Localization {
  std::vector<Suspect> suspects;
  std::vector<std::pair<int, std::string>> cleared;  ///< (node, reason) for candidates cleared.
  std::vector<std::string> inconclusive;  ///< Human sentences; node ids appear as "{i}" (see name_nodes).
  std::vector<Watch> watch;               ///< The screen's near misses, with their ratio.
  /// Link candidates slow in every re-test so far but short of Screen::link_retests (and listed
  /// as inconclusive): plan_retest_round() tests them once more and decide() judges again.
  std::vector<std::pair<int, int>> awaiting_retests;
};

/// Stage 4: decides on the candidates from the confirmation samples (rounds as planned). The
/// reference of a round is the median of its control pairs (both ends good), else the screen
/// reference. A node is kept when >= confirm_votes of its tests with good partners fall below
/// node_ratio; a link when >= confirm_votes of its re-measurements fall below pair_ratio AND
/// each end passes (>= pair_ratio, having already passed the screen) with a fresh good partner; otherwise it is cleared, or
/// inconclusive when too few tests ran.
Localization decide(const Screen& s, const std::vector<PlannedRound>& plan,
                    const std::vector<PairSample>& confirm, const LocalizeParams& p);

/// Replaces every "{i}" (a node id in a Localization sentence) by hosts[i].
std::string name_nodes(const std::string& text, const std::vector<std::string>& hosts);

void to_json(nlohmann::json& j, const PairSample& s);
void to_json(nlohmann::json& j, const Suspect& s);

}  // namespace fabdiag::triage
