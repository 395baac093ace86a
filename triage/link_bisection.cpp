#include "triage/link_bisection.h"

#include <algorithm>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "core/stats.h"
#include "triage/designed_share.h"
#include "triage/log_modz.h"
#include "triage/votes.h"

namespace fabdiag::triage {

double all_reduce_busbw(const std::vector<nlohmann::json>& bench) {
  for (const auto& b : bench) {
    if (!b.is_object() || b.value("collective", "") != "all_reduce" || !b.contains("results")) continue;
    double best_size = -1, busbw = NAN;
    for (const auto& row : b["results"]) {
      if (!row.is_object() || !row.contains("busbw_bytes_per_s") || !row["busbw_bytes_per_s"].is_number()) continue;
      const double size = row.value("size_bytes", 0.0);
      if (size > best_size) {
        best_size = size;
        busbw = row["busbw_bytes_per_s"].get<double>();
      }
    }
    return busbw;
  }
  return NAN;
}

bool ring_is_sick(double busbw_bytes_per_s, const Screen& s, const RingProbeParams& p) {
  return p.on && std::isfinite(busbw_bytes_per_s) && std::isfinite(s.pair_ref_bytes_per_s) &&
         busbw_bytes_per_s < p.sick_ratio * s.pair_ref_bytes_per_s;
}

std::vector<std::pair<int, int>> ring_edges(int n) {
  std::vector<std::pair<int, int>> out;
  if (n == 2) out.emplace_back(0, 1);
  for (int i = 0; n > 2 && i < n; ++i) out.emplace_back(std::min(i, (i + 1) % n), std::max(i, (i + 1) % n));
  return out;
}

namespace {

using Edge = std::pair<int, int>;

// One test of a ring edge, judged against its round.
struct EdgeTest {
  PairSample sample;
  double ratio = NAN;  // value / the round's reference
  bool dark = false;   // ratio < pair_ratio and log z < modz_limit among the round's tests
};

enum class EdgeState { kUnmeasured, kFine, kPending, kNamed };

// Every test of a ring edge in `tested`, in round order. A round's reference is the median of
// its tests plus the screen's pair reference as one more vote (a follow-up round of a few
// re-tests is not its own reference).
std::map<Edge, std::vector<EdgeTest>> edge_tests(const std::vector<PairSample>& tested, const Screen& s,
                                                 const LocalizeParams& lp) {
  std::map<int, std::vector<double>> by_round;
  DesignedShares shares(lp);  // cross-leaf tests against their round's uplink load
  for (const auto& x : tested) shares.add(x.round, x.a, x.b);
  auto read = [&](const PairSample& x) { return x.bytes_per_s / shares.share(x.round, x.a, x.b); };
  for (const auto& x : tested)
    if (std::isfinite(x.bytes_per_s)) by_round[x.round].push_back(read(x));
  std::map<int, std::pair<double, LogModz>> ref;
  for (auto& [r, v] : by_round) {
    std::vector<double> with_screen = v;
    if (std::isfinite(s.pair_ref_bytes_per_s)) with_screen.push_back(s.pair_ref_bytes_per_s);
    ref.emplace(r, std::make_pair(median(with_screen).value_or(NAN), LogModz(v)));
  }
  std::set<Edge> ring;
  for (const auto& e : ring_edges(s.nodes)) ring.insert(e);
  std::map<Edge, std::vector<EdgeTest>> out;
  for (const auto& x : tested) {
    const Edge e{std::min(x.a, x.b), std::max(x.a, x.b)};
    if (!ring.count(e) || !std::isfinite(x.bytes_per_s)) continue;
    const auto& [r_ref, z_of] = ref.at(x.round);
    EdgeTest t{x, read(x) / r_ref, false};
    const auto z = z_of(read(x));
    t.dark = t.ratio < lp.pair_ratio && z && *z < lp.modz_limit;
    out[e].push_back(t);
  }
  for (auto& [e, v] : out)
    std::stable_sort(v.begin(), v.end(), [](const EdgeTest& a, const EdgeTest& b) { return a.sample.round < b.sample.round; });
  return out;
}

// An edge's state: its first test dark, then every re-test dark until `needed` of them.
EdgeState state_of(const std::vector<EdgeTest>* tests, int needed) {
  if (!tests || tests->empty()) return EdgeState::kUnmeasured;
  if (!tests->front().dark) return EdgeState::kFine;
  for (size_t k = 1; k < tests->size(); ++k)
    if (!(*tests)[k].dark) return EdgeState::kFine;
  return static_cast<int>(tests->size()) - 1 >= needed ? EdgeState::kNamed : EdgeState::kPending;
}

// [node] whether it may be a link end: judged by the screen over enough partners, and neither a
// named node nor a node candidate left undecided.
std::vector<char> eligible_ends(const Screen& s, const Localization& loc, const LocalizeParams& lp) {
  std::vector<char> ok(static_cast<size_t>(s.nodes), 0);
  for (int i = 0; i < s.nodes; ++i) ok[static_cast<size_t>(i)] = s.partners[static_cast<size_t>(i)] >= lp.min_partners;
  for (const auto& sp : loc.suspects)
    if (sp.kind == "node") ok[static_cast<size_t>(sp.nodes[0])] = 0;
  std::set<int> cleared;
  for (const auto& [n, why] : loc.cleared) cleared.insert(n);
  for (int c : s.node_candidates)
    if (!cleared.count(c)) ok[static_cast<size_t>(c)] = 0;
  return ok;
}

// Slow re-tests an edge needs: the family-wise bound over the edges whose first test was dark.
int needed_retests(const std::map<Edge, std::vector<EdgeTest>>& tests, const LocalizeParams& lp, int* dark) {
  int first_dark = 0;
  for (const auto& [e, v] : tests) first_dark += v.front().dark ? 1 : 0;
  if (dark) *dark = first_dark;
  return link_retests_for_family(lp, first_dark, static_cast<int>(tests.size()));
}

// The next follow-up round: pending re-tests, then unmeasured edges, then any free ring edge.
std::vector<Edge> next_round(const std::vector<Edge>& ring, const std::map<Edge, std::vector<EdgeTest>>& tests,
                             const std::vector<char>& ok, int needed, bool* work) {
  std::vector<Edge> pairs;
  std::set<int> used;
  *work = false;
  for (EdgeState want : {EdgeState::kPending, EdgeState::kUnmeasured, EdgeState::kFine}) {
    for (const auto& e : ring) {
      auto it = tests.find(e);
      const EdgeState st = state_of(it == tests.end() ? nullptr : &it->second, needed);
      if (st != want || !ok[static_cast<size_t>(e.first)] || !ok[static_cast<size_t>(e.second)]) continue;
      if (used.count(e.first) || used.count(e.second)) continue;
      pairs.push_back(e);
      used.insert({e.first, e.second});
      if (want != EdgeState::kFine) *work = true;
    }
  }
  return pairs;
}

}  // namespace

RingProbe probe_ring(const Screen& s, const Localization& loc, std::vector<PairSample> tested, const LocalizeParams& lp,
                     const RingProbeParams& rp, const RunPairRound& run) {
  RingProbe out;
  const std::vector<Edge> ring = ring_edges(s.nodes);
  const std::vector<char> ok = eligible_ends(s, loc, lp);
  for (int k = 0; k < rp.max_rounds; ++k) {
    const auto tests = edge_tests(tested, s, lp);
    bool work = false;
    auto pairs = next_round(ring, tests, ok, needed_retests(tests, lp, nullptr), &work);
    if (!work) break;
    ++out.rounds;
    if (auto res = run(pairs)) tested.insert(tested.end(), res->begin(), res->end());
  }
  const auto tests = edge_tests(tested, s, lp);
  out.needed_retests = needed_retests(tests, lp, &out.dark_edges);
  for (const auto& [e, v] : tests) {
    if (!ok[static_cast<size_t>(e.first)] || !ok[static_cast<size_t>(e.second)]) continue;
    const EdgeState st = state_of(&v, out.needed_retests);
    const std::string name = "link {" + std::to_string(e.first) + "}<->{" + std::to_string(e.second) + "}";
    if (st == EdgeState::kPending)
      out.inconclusive.push_back(name + ": dark on the ring of the slow all_reduce and in " + std::to_string(v.size() - 1) +
                                 " re-tests, " + std::to_string(out.needed_retests) + " needed");
    if (st != EdgeState::kNamed) continue;
    Suspect sp{"link", {e.first, e.second}, v.front().ratio, NAN, 0, 0, {}, {}};
    for (size_t k = 1; k < v.size(); ++k) {
      sp.tests.push_back(v[k].sample);
      sp.test_ratios.push_back(v[k].ratio);
    }
    sp.votes = sp.trials = static_cast<int>(sp.tests.size());
    sp.confirm_ratio = median(sp.test_ratios).value_or(NAN);
    out.links.push_back(std::move(sp));
  }
  return out;
}

}  // namespace fabdiag::triage
