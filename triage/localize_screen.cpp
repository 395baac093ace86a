// The screen of the localization (docs/localization.md#the-screen): per pair the median of its
// samples, per node the median over its partners against a reference (external, or a high
// quantile of the node medians), the node and link candidates and the good nodes that later
// rounds pair them with. The confirmation and decision are in triage/localize.cpp.
#include <algorithm>
#include <map>

#include "core/stats.h"
#include "triage/designed_share.h"
#include "triage/localize.h"
#include "triage/log_modz.h"
#include "triage/votes.h"

namespace fabdiag::triage {

namespace {

std::pair<int, int> ordered(int a, int b) { return a < b ? std::make_pair(a, b) : std::make_pair(b, a); }

// [node] -> whether it is in `members` (ids outside 0..nodes-1 are ignored): O(1) membership
// for loops over every pair of a large screen.
std::vector<char> member_flags(int nodes, const std::vector<int>& members) {
  std::vector<char> in(static_cast<size_t>(std::max(nodes, 0)), 0);
  for (int x : members)
    if (x >= 0 && x < nodes) in[static_cast<size_t>(x)] = 1;
  return in;
}


using PairKey = std::pair<int, int>;   // (a < b)
using PairValues = std::map<PairKey, double>;

// Median per pair over its repeats (valid samples only), each read against its designed share
// (triage/designed_share.h: a cross-leaf test of an R:1 fabric under its round's uplink load).
PairValues pair_medians(int nodes, const std::vector<PairSample>& samples, const LocalizeParams& p) {
  std::map<PairKey, std::vector<double>> per_pair;
  DesignedShares shares(p);
  for (const auto& x : samples) shares.add(x.round, x.a, x.b);
  for (const auto& x : samples)
    if (x.a != x.b && x.a >= 0 && x.b >= 0 && x.a < nodes && x.b < nodes && std::isfinite(x.bytes_per_s))
      per_pair[ordered(x.a, x.b)].push_back(x.bytes_per_s / shares.share(x.round, x.a, x.b));
  PairValues pair_value;
  for (auto& [k, v] : per_pair) pair_value[k] = *median(v);
  return pair_value;
}

// [node] -> its pair values with partners outside `exclude`.
std::vector<std::vector<double>> partner_values(int nodes, const PairValues& pair_value,
                                                const std::vector<int>& exclude) {
  std::vector<std::vector<double>> by_node(static_cast<size_t>(nodes));
  const auto excluded = member_flags(nodes, exclude);
  for (const auto& [k, v] : pair_value) {
    if (!excluded[static_cast<size_t>(k.second)]) by_node[static_cast<size_t>(k.first)].push_back(v);
    if (!excluded[static_cast<size_t>(k.first)]) by_node[static_cast<size_t>(k.second)].push_back(v);
  }
  return by_node;
}

// The medians of the nodes with at least min_partners partners.
std::vector<double> judged_medians(const std::vector<std::vector<double>>& all_partners, const LocalizeParams& p) {
  std::vector<double> meds;
  for (const auto& v : all_partners)
    if (static_cast<int>(v.size()) >= p.min_partners) meds.push_back(*median(v));
  return meds;
}

// Pass 1: nodes slow by ratio alone (median below node_ratio x the median node).
std::vector<int> slow_by_ratio(const std::vector<std::vector<double>>& all_partners, const LocalizeParams& p) {
  double ref = median(judged_medians(all_partners, p)).value_or(NAN);
  std::vector<int> slow;
  for (size_t i = 0; i < all_partners.size(); ++i) {
    const auto& v = all_partners[i];
    if (static_cast<int>(v.size()) >= p.min_partners && *median(v) < p.node_ratio * ref) slow.push_back(static_cast<int>(i));
  }
  return slow;
}

// The node reference (docs/localization.md#the-screen): an external one (baseline or spec) when
// given, else a high quantile of the broad round's node medians, never their median, so that
// several slow nodes do not pull the reference down with them. With an external reference the
// cluster ratio says whether every node is slow together, which no z-score can show.
void set_reference(Screen& s, const std::vector<double>& judged_medians, const LocalizeParams& p) {
  if (std::isfinite(p.reference_bytes_per_s) && p.reference_bytes_per_s > 0) {
    s.node_ref_bytes_per_s = p.reference_bytes_per_s;
    s.external_reference = true;
    if (auto m = median(judged_medians)) s.cluster_ratio = *m / p.reference_bytes_per_s;
  } else if (auto r = quantile(judged_medians, p.ref_quantile)) {
    s.node_ref_bytes_per_s = *r;
  }
}

// Node medians (over `clean` partners where there are enough of them), the node reference and
// the node candidates.
void judge_nodes(Screen& s, const std::vector<std::vector<double>>& all_partners,
                 const std::vector<std::vector<double>>& clean_partners, const LocalizeParams& p) {
  const int nodes = s.nodes;
  s.node_median_bytes_per_s.assign(static_cast<size_t>(nodes), NAN);
  s.node_best_bytes_per_s.assign(static_cast<size_t>(nodes), NAN);
  s.node_modz.assign(static_cast<size_t>(nodes), NAN);
  s.partners.assign(static_cast<size_t>(nodes), 0);
  std::vector<double> judged_medians;
  for (int i = 0; i < nodes; ++i) {
    const auto& all = all_partners[static_cast<size_t>(i)];
    const auto& clean = clean_partners[static_cast<size_t>(i)];
    const auto& v = static_cast<int>(clean.size()) >= p.min_partners ? clean : all;
    s.partners[static_cast<size_t>(i)] = static_cast<int>(all.size());
    if (auto m = median(v)) s.node_median_bytes_per_s[static_cast<size_t>(i)] = *m;
    if (!all.empty()) s.node_best_bytes_per_s[static_cast<size_t>(i)] = *std::max_element(all.begin(), all.end());
    if (static_cast<int>(all.size()) >= p.min_partners) judged_medians.push_back(*median(v));
  }
  set_reference(s, judged_medians, p);
  const LogModz node_z(judged_medians);
  for (int i = 0; i < nodes; ++i) {
    double m = s.node_median_bytes_per_s[static_cast<size_t>(i)];
    if (s.partners[static_cast<size_t>(i)] < p.min_partners) {
      s.too_few_partners.push_back(i);
      continue;
    }
    auto z = node_z(m);
    if (z) s.node_modz[static_cast<size_t>(i)] = *z;
    if (!std::isfinite(s.node_ref_bytes_per_s)) continue;
    double ratio = m / s.node_ref_bytes_per_s;
    bool by_ratio = ratio < p.node_ratio, by_z = z && *z < p.modz_limit;
    if ((by_ratio || (p.confirm_watch && ratio < p.watch_ratio)) && by_z) s.node_candidates.push_back(i);
    else if (by_ratio || (by_z && ratio < p.watch_ratio)) s.watch.push_back(Watch{i, ratio, z.value_or(NAN)});
  }
}

// The pair reference and the link candidates. Pairs between non-candidates are the comparable
// class for the pair reference.
void judge_links(Screen& s, const PairValues& pair_value, const LocalizeParams& p) {
  std::vector<double> healthy;
  const auto cand = member_flags(s.nodes, s.node_candidates);
  for (const auto& [k, v] : pair_value)
    if (!cand[static_cast<size_t>(k.first)] && !cand[static_cast<size_t>(k.second)])
      healthy.push_back(v);
  if (auto r = median(healthy)) s.pair_ref_bytes_per_s = *r;
  const LogModz pair_z(healthy);
  for (const auto& [k, v] : pair_value) {
    bool a_cand = cand[static_cast<size_t>(k.first)], b_cand = cand[static_cast<size_t>(k.second)];
    if (a_cand && b_cand) continue;
    if (a_cand || b_cand) {
      // A node candidate may be a healthy end of a slow link whose noise pulled its median
      // down: keep its pairs that are far below even its own median, so that the link is still
      // judged if the node is cleared. A slow node's pairs all sit near its median.
      double own = s.node_median_bytes_per_s[static_cast<size_t>(a_cand ? k.first : k.second)];
      if (std::isfinite(own) && v < p.pair_ratio * own) s.link_candidates.push_back(k);
      continue;
    }
    auto z = pair_z(v);
    if (std::isfinite(s.pair_ref_bytes_per_s) && v < p.pair_ratio * s.pair_ref_bytes_per_s && z &&
        *z < p.modz_limit)
      s.link_candidates.push_back(k);
  }
  s.link_retests = link_retests_for_family(p, static_cast<int>(s.link_candidates.size()), static_cast<int>(healthy.size()));
  // Darkest first: the confirmation gives them its rounds first when candidates share an end.
  std::stable_sort(s.link_candidates.begin(), s.link_candidates.end(),
                   [&](const PairKey& x, const PairKey& y) { return pair_value.at(x) < pair_value.at(y); });
}

// Nodes that are neither a candidate, nor a candidate link's end, nor unjudged.
std::vector<int> good_nodes(const Screen& s) {
  std::vector<int> good;
  std::vector<int> ends;
  for (const auto& l : s.link_candidates) ends.insert(ends.end(), {l.first, l.second});
  const auto link_end = member_flags(s.nodes, ends), cand = member_flags(s.nodes, s.node_candidates),
             unjudged = member_flags(s.nodes, s.too_few_partners);
  for (int i = 0; i < s.nodes; ++i) {
    const auto k = static_cast<size_t>(i);
    if (!cand[k] && !link_end[k] && !unjudged[k]) good.push_back(i);
  }
  return good;
}

}  // namespace

Screen screen_pairs(int nodes, const std::vector<PairSample>& samples, const LocalizeParams& p) {
  Screen s;
  s.nodes = nodes;
  PairValues pair_value = pair_medians(nodes, samples, p);
  // Node medians over partners. Pass 1 finds nodes that are slow by ratio alone; pass 2 judges
  // every node again over partners outside that set, so that several slow nodes do not drag the
  // medians of healthy nodes down with them (docs/localization.md#reference-contamination).
  auto all_partners = partner_values(nodes, pair_value, {});
  // The node ratio in use: fixed, or adapted to this round's spread (triage/threshold.h).
  s.node_threshold = node_threshold(judged_medians(all_partners, p), p.node_ratio, p.adaptive);
  LocalizeParams q = p;
  q.node_ratio = s.node_threshold.ratio;
  auto clean_partners = partner_values(nodes, pair_value, slow_by_ratio(all_partners, q));
  judge_nodes(s, all_partners, clean_partners, q);
  judge_links(s, pair_value, q);
  s.good = good_nodes(s);
  return s;
}

}  // namespace fabdiag::triage
