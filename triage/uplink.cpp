#include "triage/uplink.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/stats.h"

namespace fabdiag::triage {

namespace {

using PairKey = std::pair<int, int>;

double median_or_nan(const std::vector<double>& v) { return median(v).value_or(NAN); }

// The upper median (element n/2 of the sorted values; the larger of two): a host with two
// intra-leaf partners whose one test was halved by a dip still reads fine, while a slow host,
// every test of which is slow, does not.
double upper_median_or_nan(std::vector<double> v) {
  if (v.empty()) return NAN;
  auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

// The screen's values split by leaf: intra-leaf per leaf and per host, cross-leaf per leaf pair and per host.
struct LeafValues {
  std::vector<double> intra_all;
  std::map<int, std::vector<double>> intra_of_leaf, intra_of_host, cross_of_leaf, cross_of_host;
  std::map<PairKey, std::vector<double>> cell;  // (leaf a < leaf b)
};

LeafValues split_by_leaf(const std::vector<PairSample>& samples, const LeafMap& m) {
  const int n = static_cast<int>(m.leaf_of.size());
  std::map<PairKey, std::vector<double>> per_pair;
  for (const auto& x : samples)
    if (x.a != x.b && x.a >= 0 && x.b >= 0 && x.a < n && x.b < n && std::isfinite(x.bytes_per_s))
      per_pair[{std::min(x.a, x.b), std::max(x.a, x.b)}].push_back(x.bytes_per_s);
  LeafValues lv;
  for (auto& [k, vs] : per_pair) {
    double v = median_or_nan(vs);
    int la = m.leaf_of[static_cast<size_t>(k.first)], lb = m.leaf_of[static_cast<size_t>(k.second)];
    if (la < 0 || lb < 0) continue;
    if (la == lb) {
      lv.intra_all.push_back(v);
      lv.intra_of_leaf[la].push_back(v);
      lv.intra_of_host[k.first].push_back(v);
      lv.intra_of_host[k.second].push_back(v);
    } else {
      lv.cell[{std::min(la, lb), std::max(la, lb)}].push_back(v);
      lv.cross_of_leaf[la].push_back(v);
      lv.cross_of_leaf[lb].push_back(v);
      lv.cross_of_host[k.first].push_back(v);
      lv.cross_of_host[k.second].push_back(v);
    }
  }
  return lv;
}

// Whether leaf l's own tests are fine: its intra-leaf median and each host's intra-leaf upper
// median reach `limit`, and at least half its hosts (and 2) are below `cross_limit` across leaves.
bool leaf_signature(const LeafValues& lv, const LeafMap& m, int l, double limit, double cross_limit) {
  auto it = lv.intra_of_leaf.find(l);
  if (it == lv.intra_of_leaf.end() || !(median_or_nan(it->second) >= limit)) return false;
  int hosts = 0, dark = 0;
  for (size_t i = 0; i < m.leaf_of.size(); ++i) {
    if (m.leaf_of[i] != l) continue;
    ++hosts;
    auto in = lv.intra_of_host.find(static_cast<int>(i));
    if (in != lv.intra_of_host.end() && !(upper_median_or_nan(in->second) >= limit)) return false;  // a slow node
    auto cr = lv.cross_of_host.find(static_cast<int>(i));
    if (cr != lv.cross_of_host.end() && median_or_nan(cr->second) < cross_limit) ++dark;
  }
  return dark >= 2 && 2 * dark >= hosts;
}

UplinkSuspect make_suspect(const LeafValues& lv, const LeafMap& m, const std::vector<int>& leaves,
                           const std::map<int, std::pair<int, int>>& dark_of) {
  UplinkSuspect s;
  s.leaves = leaves;
  std::set<int> in(leaves.begin(), leaves.end());
  for (size_t i = 0; i < m.leaf_of.size(); ++i)
    if (in.count(m.leaf_of[i])) s.nodes.push_back(static_cast<int>(i));
  std::vector<double> cross, intra, others;
  for (const auto& [k, vs] : lv.cell) {
    bool touches = in.count(k.first) || in.count(k.second);
    bool inside = in.count(k.first) && in.count(k.second);
    auto& dst = inside || touches ? cross : others;
    dst.insert(dst.end(), vs.begin(), vs.end());
  }
  for (int l : leaves) {
    auto it = lv.intra_of_leaf.find(l);
    if (it != lv.intra_of_leaf.end()) intra.insert(intra.end(), it->second.begin(), it->second.end());
    s.dark_cells += dark_of.at(l).first;
    s.cells += dark_of.at(l).second;
  }
  s.cross_median_bytes_per_s = median_or_nan(cross);
  s.cross_pairs = static_cast<int>(cross.size());
  s.intra_median_bytes_per_s = median_or_nan(intra);
  s.intra_pairs = static_cast<int>(intra.size());
  s.others_cross_median_bytes_per_s = median_or_nan(others);
  return s;
}

}  // namespace

UplinkScreen screen_uplinks(const std::vector<PairSample>& samples, const LeafMap& m, const LocalizeParams& p) {
  UplinkScreen u;
  u.ratio = p.node_ratio;
  u.cross_ratio = p.node_ratio / std::max(1.0, p.oversubscription);
  if (m.leaves.size() < 2) return u;
  LeafValues lv = split_by_leaf(samples, m);
  u.reference_bytes_per_s = median_or_nan(lv.intra_all);
  if (!std::isfinite(u.reference_bytes_per_s) || u.reference_bytes_per_s <= 0) return u;
  const double limit = p.node_ratio * u.reference_bytes_per_s;
  const double cross_limit = u.cross_ratio * u.reference_bytes_per_s;
  std::map<int, std::pair<int, int>> dark_of;  // leaf -> (dark cells, cells)
  for (const auto& [k, vs] : lv.cell) {
    bool dark = median_or_nan(vs) < cross_limit;
    for (int l : {k.first, k.second}) {
      dark_of[l].first += dark ? 1 : 0;
      dark_of[l].second += 1;
    }
  }
  std::vector<int> candidates;
  for (const auto& [l, dc] : dark_of)
    if (2 * dc.first > dc.second && leaf_signature(lv, m, l, limit, cross_limit)) candidates.push_back(l);
  const bool two_leaves = dark_of.size() == 2;
  if (candidates.empty()) return u;
  if (two_leaves || candidates.size() == dark_of.size()) {
    if (candidates.size() == dark_of.size()) u.suspects.push_back(make_suspect(lv, m, candidates, dark_of));
    return u;  // two leaves: both or neither (one alone cannot be told from the other)
  }
  for (int l : candidates) u.suspects.push_back(make_suspect(lv, m, {l}, dark_of));
  return u;
}

std::vector<int> explain_by_uplinks(Screen& s, const UplinkScreen& u, const LeafMap& m) {
  std::set<int> hosts, leaves;
  for (const auto& sp : u.suspects) {
    hosts.insert(sp.nodes.begin(), sp.nodes.end());
    leaves.insert(sp.leaves.begin(), sp.leaves.end());
  }
  if (hosts.empty()) return {};
  std::vector<int> taken;
  auto drop = [&](std::vector<int>& v, bool record) {
    v.erase(std::remove_if(v.begin(), v.end(), [&](int x) {
              bool out = hosts.count(x) > 0;
              if (out && record) taken.push_back(x);
              return out;
            }), v.end());
  };
  drop(s.node_candidates, true);
  drop(s.good, false);
  s.watch.erase(std::remove_if(s.watch.begin(), s.watch.end(), [&](const Watch& w) { return hosts.count(w.node) > 0; }),
                s.watch.end());
  auto leaf = [&](int x) { return m.leaf_of[static_cast<size_t>(x)]; };
  s.link_candidates.erase(std::remove_if(s.link_candidates.begin(), s.link_candidates.end(),
                                         [&](const PairKey& l) {
                                           bool across = leaf(l.first) != leaf(l.second);
                                           return across && (leaves.count(leaf(l.first)) || leaves.count(leaf(l.second)));
                                         }),
                          s.link_candidates.end());
  return taken;
}

}  // namespace fabdiag::triage
