#include "triage/localize.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "core/stats.h"
#include "core/text.h"
#include "triage/designed_share.h"
#include "triage/log_modz.h"
#include "triage/votes.h"

namespace fabdiag::triage {

LocalizeParams fabric_params() {
  LocalizeParams p;
  p.node_ratio = 0.88;
  p.pair_ratio = 0.6;
  p.ref_quantile = 0.9;
  p.fast_veto_ratio = 0.97;
  p.confirm_ratio = 0.94;
  p.confirm_votes = 3;  // the screen and both tests: one ECMP collision cannot name a node
  p.link_family_error = 0.01;
  return p;
}

const char* to_string(Role r) {
  switch (r) {
    case Role::kConfirmNode: return "confirm_node";
    case Role::kConfirmLink: return "confirm_link";
    case Role::kClearEnd: return "clear_end";
    case Role::kControl: return "control";
  }
  return "control";
}

namespace {

std::pair<int, int> ordered(int a, int b) { return a < b ? std::make_pair(a, b) : std::make_pair(b, a); }

bool contains(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

using PairKey = std::pair<int, int>;  // (a < b)

}  // namespace

namespace {

// Builds confirmation rounds from the good nodes: picks partners (fresh ones first) and fills a
// round's unused good nodes into control pairs.
class Planner {
 public:
  // `ring`: [node] may sit on a probed ring edge (empty: no ring to probe).
  explicit Planner(std::vector<int> good, std::vector<char> ring = {}) : good_(std::move(good)), ring_(std::move(ring)) {}

  // Pairs the good nodes not used in `r` into control pairs (the round's reference); with a
  // ring to probe, first its edges (i, i+1 mod N) of parity `parity` between unused ring members.
  void add_controls(PlannedRound& r, std::set<int>& used, int parity = 0) const {
    const int n = static_cast<int>(ring_.size());
    for (int i = parity; i < n; i += 2) {
      const int j = (i + 1) % n;
      if (!ring_[static_cast<size_t>(i)] || !ring_[static_cast<size_t>(j)] || used.count(i) || used.count(j)) continue;
      r.pairs.push_back(PlannedPair{std::min(i, j), std::max(i, j), Role::kControl, -1, {-1, -1}});
      used.insert({i, j});
    }
    int pending = -1;
    for (int g : good_) {
      if (used.count(g)) continue;
      if (pending < 0) {
        pending = g;
      } else {
        r.pairs.push_back(PlannedPair{pending, g, Role::kControl, -1, {-1, -1}});
        used.insert(pending);
        used.insert(g);
        pending = -1;
      }
    }
  }

  // A good partner not used in this round, preferring one this subject has not met yet; -1
  // when none is left.
  int pick_partner(int subject, const std::set<int>& used) {
    int fallback = -1;
    for (int g : good_) {
      if (used.count(g) || g == subject) continue;
      if (!met_[subject].count(g)) return g;
      if (fallback < 0) fallback = g;
    }
    return fallback;
  }

  void met(int subject, int partner) { met_[subject].insert(partner); }

 private:
  std::vector<int> good_;
  std::vector<char> ring_;
  std::map<int, std::set<int>> met_;
};

// Nodes a ring probe may use: judged by the screen and not node candidates (link ends included).
std::vector<char> ring_members(const Screen& s) {
  std::vector<char> in(static_cast<size_t>(s.nodes), 1);
  for (const auto* v : {&s.node_candidates, &s.too_few_partners})
    for (int x : *v) in[static_cast<size_t>(x)] = 0;
  return in;
}

bool any_left(const auto& left) {
  return std::any_of(left.begin(), left.end(), [](const auto& x) { return x.second > 0; });
}

// Confirmation rounds: greedy, node-disjoint, until every suspect and link has its repeats
// (links sharing an end need more rounds), bounded so a noisy screen cannot run forever. A
// screen candidate's screen result is its first vote (triage/votes.h), so it needs one test less
// than a node taken in on counter evidence alone.
void add_confirm_rounds(Planner& planner, const std::vector<int>& suspects, const Screen& s,
                        const LocalizeParams& p, bool ring, std::vector<PlannedRound>& rounds) {
  const std::vector<PairKey>& links = s.link_candidates;
  std::map<int, int> node_left;
  for (int n : suspects) node_left[n] = confirm_tests_needed(contains(s.node_candidates, n), p);
  std::vector<std::pair<PairKey, int>> link_left;  // in the screen's order: darkest first
  // Probing a ring with no node to confirm: one re-test each here, the rest only for links still
  // slow (plan_retest_round), so the ends of links a re-test cleared are free for the ring.
  const bool one = ring && suspects.empty();  // no node to confirm: this is one round
  for (const auto& l : links) link_left.emplace_back(l, one ? 1 : link_retests_needed(p));
  // Round budget: what one subject needs (2 with the defaults). A subject crowded out of a round
  // (two link candidates sharing an end, a link at a node candidate) gets fewer tests and is
  // inconclusive, instead of every verdict waiting for it (docs/localization.md#confirmation).
  int budget = 0;
  for (const auto& [n, left] : node_left) budget = std::max(budget, left);
  for (const auto& [l, left] : link_left) budget = std::max(budget, left);
  for (int k = 0; k < budget; ++k) {
    if (!any_left(node_left) && !any_left(link_left)) break;
    PlannedRound r;
    std::set<int> used;
    for (auto& [n, left] : node_left) {
      if (left <= 0 || used.count(n)) continue;
      int g = planner.pick_partner(n, used);
      if (g < 0) continue;
      r.pairs.push_back(PlannedPair{n, g, Role::kConfirmNode, n, {-1, -1}});
      used.insert(n);
      used.insert(g);
      planner.met(n, g);
      --left;
    }
    for (auto& [l, left] : link_left) {
      if (left <= 0 || used.count(l.first) || used.count(l.second)) continue;
      r.pairs.push_back(PlannedPair{l.first, l.second, Role::kConfirmLink, -1, l});
      used.insert(l.first);
      used.insert(l.second);
      --left;
    }
    if (r.pairs.empty()) break;  // nothing schedulable (no good partners left)
    planner.add_controls(r, used, k % 2);
    rounds.push_back(std::move(r));
  }
}

// Each end of a link candidate that the screen did not judge (too few partners) meets a fresh
// good partner once; the other ends passed the screen over their partners (end_ok()).
void add_clear_end_rounds(Planner& planner, const Screen& s, const LocalizeParams& p,
                          std::vector<PlannedRound>& rounds) {
  std::vector<std::pair<PairKey, int>> ends;
  for (const auto& l : s.link_candidates)
    for (int end : {l.first, l.second})
      if (contains(s.too_few_partners, end)) ends.push_back({l, end});  // the screen did not judge it
  for (int k = 0; k < p.confirm_repeats * 3 && !ends.empty(); ++k) {
    PlannedRound r;
    std::set<int> used;
    std::vector<std::pair<PairKey, int>> rest;
    for (const auto& [l, end] : ends) {
      int g = used.count(end) ? -1 : planner.pick_partner(end, used);
      if (g < 0) {
        rest.push_back({l, end});
        continue;
      }
      r.pairs.push_back(PlannedPair{end, g, Role::kClearEnd, end, l});
      used.insert(end);
      used.insert(g);
      planner.met(end, g);
    }
    if (r.pairs.empty()) break;
    planner.add_controls(r, used);
    rounds.push_back(std::move(r));
    ends = std::move(rest);
  }
}

}  // namespace

std::vector<PlannedRound> plan_confirmation(const Screen& s, const LocalizeParams& p,
                                            const std::vector<int>& hard, bool ring_controls) {
  std::vector<int> suspects = s.node_candidates;
  for (int h : hard)
    if (!contains(suspects, h)) suspects.push_back(h);
  std::vector<int> good;
  for (int g : s.good)
    if (!contains(hard, g)) good.push_back(g);
  std::vector<PlannedRound> rounds;
  if (suspects.empty() && s.link_candidates.empty()) return rounds;
  Planner planner(std::move(good), ring_controls ? ring_members(s) : std::vector<char>{});
  add_confirm_rounds(planner, suspects, s, p, ring_controls, rounds);
  add_clear_end_rounds(planner, s, p, rounds);
  return rounds;
}

PlannedRound plan_retest_round(const Screen& s, const std::vector<std::pair<int, int>>& links, int ring_parity) {
  PlannedRound r;
  std::set<int> used;
  for (const auto& l : links) {
    if (used.count(l.first) || used.count(l.second)) continue;
    r.pairs.push_back(PlannedPair{l.first, l.second, Role::kConfirmLink, -1, l});
    used.insert({l.first, l.second});
  }
  Planner(s.good, ring_parity >= 0 ? ring_members(s) : std::vector<char>{}).add_controls(r, used, std::max(ring_parity, 0));
  return r;
}

namespace {

// Confirmation tests of one subject (node, link or link end) and their ratios to the round's
// reference.
struct Tally {
  std::vector<PairSample> tests;
  std::vector<double> ratios;
};

struct Tallies {
  std::map<int, Tally> node;
  std::map<PairKey, Tally> link;
  std::map<std::pair<PairKey, int>, Tally> end;  // (link, end)
};

// The confirmation samples by (round, unordered pair).
class ConfirmSamples {
 public:
  explicit ConfirmSamples(const std::vector<PairSample>& confirm) {
    for (const auto& x : confirm) value_[{x.round, ordered(x.a, x.b)}] = x.bytes_per_s;
  }
  double of(size_t round, int a, int b) const {
    auto it = value_.find({static_cast<int>(round), ordered(a, b)});
    return it == value_.end() ? NAN : it->second;
  }

 private:
  std::map<std::pair<int, PairKey>, double> value_;
};

// Reference of each round: the median of its control pairs, the screen reference as one more vote.
std::vector<double> round_references(const Screen& s, const std::vector<PlannedRound>& plan,
                                     const ConfirmSamples& samples, const DesignedShares& d) {
  std::vector<double> round_ref(plan.size(), NAN);
  const double fallback = std::isfinite(s.pair_ref_bytes_per_s) ? s.pair_ref_bytes_per_s : s.node_ref_bytes_per_s;
  for (size_t r = 0; r < plan.size(); ++r) {
    std::vector<double> ctl;
    for (const auto& pp : plan[r].pairs)
      if (pp.role == Role::kControl) ctl.push_back(samples.of(r, pp.a, pp.b) / d.share(static_cast<int>(r), pp.a, pp.b));
    // With few control pairs one noisy control would move the reference, so the screen
    // reference joins them as one more vote.
    if (std::isfinite(fallback)) ctl.push_back(fallback);
    round_ref[r] = median(ctl).value_or(NAN);
  }
  return round_ref;
}

Tallies tally(const std::vector<PlannedRound>& plan, const ConfirmSamples& samples,
              const std::vector<double>& round_ref, const DesignedShares& d) {
  Tallies t;
  for (size_t r = 0; r < plan.size(); ++r) {
    for (const auto& pp : plan[r].pairs) {
      const double v = samples.of(r, pp.a, pp.b);
      if (!std::isfinite(v) || !std::isfinite(round_ref[r]) || round_ref[r] <= 0) continue;
      Tally* x = nullptr;
      if (pp.role == Role::kConfirmNode) x = &t.node[pp.subject];
      if (pp.role == Role::kConfirmLink) x = &t.link[pp.link];
      if (pp.role == Role::kClearEnd) x = &t.end[{pp.link, pp.subject}];
      if (x) {
        x->tests.push_back(PairSample{pp.a, pp.b, v, static_cast<int>(r)});
        x->ratios.push_back(v / d.share(static_cast<int>(r), pp.a, pp.b) / round_ref[r]);
      }
    }
  }
  return t;
}

int votes_below(const Tally& t, double ratio) {
  return static_cast<int>(std::count_if(t.ratios.begin(), t.ratios.end(), [&](double r) { return r < ratio; }));
}

int votes_at_or_above(const Tally& t, double ratio) {
  return static_cast<int>(t.ratios.size()) - votes_below(t, ratio);
}

// With fabric rules (confirm_ratio set) on a fabric declared non-blocking: whether screen
// candidate `n` has a screen test at or above confirm_ratio x the node reference. Its median is
// slow, so at least half of its tests are; a test at full rate beside them is what collisions
// on some paths give, never a slow node. On an oversubscribed fabric an intra-leaf pair runs
// faster than the cross-leaf ones by design (a 0.5x node's intra-leaf test meets a 2:1 fabric's
// cross-leaf reference), so there the screen gives no such evidence.
bool screen_test_not_slow(const Screen& s, int n, const LocalizeParams& p) {
  if (!std::isfinite(p.confirm_ratio) || p.oversubscription > 1 || !contains(s.node_candidates, n) ||
      s.node_best_bytes_per_s.empty())
    return false;
  const double best = s.node_best_bytes_per_s[static_cast<size_t>(n)];
  return std::isfinite(best) && std::isfinite(s.node_ref_bytes_per_s) && best >= p.confirm_ratio * s.node_ref_bytes_per_s;
}

// Nodes (screen candidates and hard suspects: every kConfirmNode subject in the plan).
void decide_nodes(const Screen& s, const std::vector<PlannedRound>& plan, Tallies& t, const LocalizeParams& p,
                  Localization& out) {
  std::set<int> node_subjects;
  for (const auto& r : plan)
    for (const auto& pp : r.pairs)
      if (pp.role == Role::kConfirmNode) node_subjects.insert(pp.subject);
  for (int c : s.node_candidates) node_subjects.insert(c);
  for (int n : node_subjects) {
    const Tally& nt = t.node[n];
    const double vote_ratio = std::isfinite(p.confirm_ratio) ? p.confirm_ratio : p.node_ratio;
    const int slow_tests = votes_below(nt, vote_ratio), tests = static_cast<int>(nt.ratios.size());
    VoteCount v = count_votes(contains(s.node_candidates, n), slow_tests, tests);
    v.fast = std::isfinite(p.fast_veto_ratio) ? votes_at_or_above(nt, p.fast_veto_ratio) : 0;
    double screen_ratio = s.node_median_bytes_per_s[static_cast<size_t>(n)] / s.node_ref_bytes_per_s;
    const bool screen_fast = screen_test_not_slow(s, n, p);
    if (screen_fast) ++v.fast;  // the screen's fastest test was not slow: collisions, not the node
    switch (judge_votes(v, slow_tests, p)) {
      case VoteVerdict::kSuspect:
        out.suspects.push_back(Suspect{"node", {n}, screen_ratio, median(nt.ratios).value_or(NAN), v.slow, v.total, nt.tests, nt.ratios});
        break;
      case VoteVerdict::kCleared:
        out.cleared.emplace_back(n, screen_fast ? "one of its screen tests ran at full rate (its median was pulled down by "
                                                  "the others: collisions, not the node)"
                                                : "passed " + std::to_string(tests - slow_tests) + " of " +
                                                      std::to_string(tests) + " tests with known-good partners");
        break;
      case VoteVerdict::kInconclusive:
        out.inconclusive.push_back("node {" + std::to_string(n) + "}: only " + std::to_string(tests) +
                                   " confirmation tests ran (" + std::to_string(slow_tests) + " slow); need " +
                                   std::to_string(p.confirm_votes) + " slow votes of " +
                                   std::to_string(p.confirm_repeats) + ", the screen's included");
    }
  }
}

// Whether one end of link `l` passed with other partners: 1 yes, -1 no, 0 unknown. An end the
// screen judged and did not make a node candidate already passed over its partners there (the
// mpiGraph signature: the cell is dark, the row is not); a node candidate end is judged by its
// confirmation tests; an unjudged end by its fresh-partner test.
int end_ok(const Screen& s, const Tallies& t, const PairKey& l, int end, const LocalizeParams& p) {
  auto it = t.end.find({l, end});
  if (it == t.end.end() || it->second.ratios.empty()) {
    auto nt = t.node.find(end);  // a cleared node candidate: its confirmation tests
    if (nt == t.node.end() || nt->second.ratios.empty())
      return contains(s.node_candidates, end) || contains(s.too_few_partners, end) ? 0 : 1;
    return median(nt->second.ratios).value() >= p.pair_ratio ? 1 : -1;
  }
  // The end already passed the screen (median over all its partners); the fresh-partner test
  // only has to show that it is not slow in the link's regime: a node fault would put it
  // below pair_ratio too, while one noisy concurrent test often dips below node_ratio.
  return median(it->second.ratios).value() >= p.pair_ratio ? 1 : -1;
}

// Link candidates not explained by a node suspect.
void decide_links(const Screen& s, Tallies& t, const LocalizeParams& p, Localization& out) {
  auto is_node_suspect = [&](int n) {
    return std::any_of(out.suspects.begin(), out.suspects.end(),
                       [&](const Suspect& x) { return x.kind == "node" && x.nodes[0] == n; });
  };
  for (const auto& l : s.link_candidates) {
    if (is_node_suspect(l.first) || is_node_suspect(l.second)) continue;  // explained by the node
    const Tally& lt = t.link[l];
    const int slow_tests = votes_below(lt, p.pair_ratio), tests = static_cast<int>(lt.ratios.size());
    const VoteVerdict verdict = judge_link_retests(slow_tests, tests, s.link_retests);
    int ea = end_ok(s, t, l, l.first, p), eb = end_ok(s, t, l, l.second, p);
    std::string name = "{" + std::to_string(l.first) + "}<->{" + std::to_string(l.second) + "}";
    if (verdict == VoteVerdict::kSuspect && ea == 1 && eb == 1) {
      Suspect sp{"link", {l.first, l.second}, NAN, median(lt.ratios).value_or(NAN), slow_tests, tests, lt.tests, lt.ratios};
      for (int end : {l.first, l.second}) {
        const Tally& e = t.end[{l, end}];
        sp.tests.insert(sp.tests.end(), e.tests.begin(), e.tests.end());
        sp.test_ratios.insert(sp.test_ratios.end(), e.ratios.begin(), e.ratios.end());
      }
      out.suspects.push_back(std::move(sp));
    } else if (verdict == VoteVerdict::kSuspect) {
      out.inconclusive.push_back("link " + name + " stayed slow in " + std::to_string(slow_tests) + " of " +
                                 std::to_string(tests) + " re-tests, but an end could not be cleared with a fresh partner");
    } else if (verdict == VoteVerdict::kCleared) {
      out.cleared.emplace_back(l.first, "link " + name + " was fast in " + std::to_string(tests - slow_tests) +
                                            " of " + std::to_string(tests) + " re-tests (screen dip was noise)");
    } else {
      out.inconclusive.push_back("link " + name + ": only " + std::to_string(tests) + " re-tests ran (" +
                                 std::to_string(s.link_retests) + " needed)");
      if (tests > 0 && slow_tests == tests) out.awaiting_retests.push_back(l);
    }
  }
}

}  // namespace

Localization decide(const Screen& s, const std::vector<PlannedRound>& plan,
                    const std::vector<PairSample>& confirm, const LocalizeParams& params) {
  LocalizeParams p = params;  // the screen's node ratio (fixed or adaptive) judges the votes too
  if (std::isfinite(s.node_threshold.ratio)) p.node_ratio = s.node_threshold.ratio;
  Localization out;
  ConfirmSamples samples(confirm);
  DesignedShares shares(p);  // cross-leaf tests against their round's uplink load
  for (size_t r = 0; r < plan.size(); ++r)
    for (const auto& pp : plan[r].pairs) shares.add(static_cast<int>(r), pp.a, pp.b);
  Tallies t = tally(plan, samples, round_references(s, plan, samples, shares), shares);
  decide_nodes(s, plan, t, p, out);
  decide_links(s, t, p, out);
  out.watch = s.watch;
  if (s.cluster_ratio < p.node_ratio) {  // every node slow together: only an external reference shows it
    Suspect c{"cluster", {}, s.cluster_ratio, NAN, 0, 0, {}, {}};
    for (int i = 0; i < s.nodes; ++i) c.nodes.push_back(i);
    out.suspects.push_back(std::move(c));
  }
  for (int n : s.too_few_partners)
    out.inconclusive.push_back("node {" + std::to_string(n) + "}: measured with only " +
                               std::to_string(s.partners[static_cast<size_t>(n)]) + " partners (need " +
                               std::to_string(p.min_partners) + ")");
  return out;
}

std::string name_nodes(const std::string& text, const std::vector<std::string>& hosts) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    size_t close = text[i] == '{' ? text.find('}', i) : std::string::npos;
    if (close != std::string::npos) {
      std::string id = text.substr(i + 1, close - i - 1);
      if (!id.empty() && id.find_first_not_of("0123456789") == std::string::npos) {
        if (auto k = parse_u64(id); k && *k < hosts.size()) {
          out += hosts[*k];
          i = close;
          continue;
        }
      }
    }
    out += text[i];
  }
  return out;
}

void to_json(nlohmann::json& j, const PairSample& s) {
  j = nlohmann::json{{"a", s.a}, {"b", s.b}, {"round", s.round}};
  j["bytes_per_s"] = std::isfinite(s.bytes_per_s) ? nlohmann::json(s.bytes_per_s) : nlohmann::json(nullptr);
  if (std::isfinite(s.a_to_b_bytes_per_s)) j["a_to_b_bytes_per_s"] = s.a_to_b_bytes_per_s;  // each direction alone
  if (std::isfinite(s.b_to_a_bytes_per_s)) j["b_to_a_bytes_per_s"] = s.b_to_a_bytes_per_s;
  if (s.no_completion_s > 0) j["no_completion_s"] = s.no_completion_s;  // a dead link or host
}

void to_json(nlohmann::json& j, const Suspect& s) {
  auto num = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
  j = nlohmann::json{{"kind", s.kind},           {"nodes", s.nodes},   {"screen_ratio", num(s.screen_ratio)},
                     {"confirm_ratio", num(s.confirm_ratio)}, {"votes", s.votes}, {"trials", s.trials},
                     {"tests", s.tests}};
}

}  // namespace fabdiag::triage
