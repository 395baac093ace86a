#include "triage/small_cluster.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "core/stats.h"
#include "triage/direction.h"

namespace fabdiag::triage {

namespace {

// Median value of pair (a, b) over its finite samples; NaN when none.
double pair_value(const std::vector<PairSample>& samples, int a, int b) {
  std::vector<double> v;
  for (const auto& x : samples)
    if (((x.a == a && x.b == b) || (x.a == b && x.b == a)) && std::isfinite(x.bytes_per_s)) v.push_back(x.bytes_per_s);
  return median(v).value_or(NAN);
}

std::string id(int i) { return "{" + std::to_string(i) + "}"; }

bool judge_two(const std::vector<PairSample>& samples, const LocalizeParams& p, Localization& out) {
  double v = pair_value(samples, 0, 1);
  if (!std::isfinite(v)) return false;
  if (!(std::isfinite(p.reference_bytes_per_s) && p.reference_bytes_per_s > 0)) {
    // One direction far below the other needs no reference: one of the two ends is at fault.
    const NodeDirection d = pair_direction(0, 1, samples, p.node_ratio);
    if (d.direction == "send" || d.direction == "recv") {
      const double slow = std::min(d.send_bytes_per_s, d.recv_bytes_per_s);
      out.suspects.push_back(Suspect{"pair", {0, 1}, slow / std::max(d.send_bytes_per_s, d.recv_bytes_per_s), NAN, 0, 0, {}, {}});
      return true;
    }
    out.inconclusive.push_back("two nodes give one pair and nothing to compare it with: pass an expected rate "
                               "(a baseline or the link's spec) to judge {0}<->{1}");
    return true;
  }
  double ratio = v / p.reference_bytes_per_s;
  if (ratio < p.node_ratio) {
    out.suspects.push_back(Suspect{"pair", {0, 1}, ratio, NAN, 0, 0, {}, {}});
  } else {
    for (int i : {0, 1}) out.cleared.emplace_back(i, "the only pair ran at ratio " + std::to_string(ratio).substr(0, 5) + " of the reference");
  }
  return true;
}

bool judge_three(const std::vector<PairSample>& samples, const LocalizeParams& p, Localization& out) {
  std::map<std::pair<int, int>, double> v{{{0, 1}, pair_value(samples, 0, 1)},
                                          {{0, 2}, pair_value(samples, 0, 2)},
                                          {{1, 2}, pair_value(samples, 1, 2)}};
  double fastest = 0;
  for (const auto& [k, x] : v) {
    if (!std::isfinite(x)) return false;
    fastest = std::max(fastest, x);
  }
  const bool external = std::isfinite(p.reference_bytes_per_s) && p.reference_bytes_per_s > 0;
  const double ref = external ? p.reference_bytes_per_s : fastest;
  auto slow = [&](int a, int b) { return v[{std::min(a, b), std::max(a, b)}] < p.node_ratio * ref; };
  int n_slow = 0;
  for (const auto& [k, x] : v) n_slow += slow(k.first, k.second) ? 1 : 0;
  for (int x = 0; x < 3; ++x) {
    int y = (x + 1) % 3, z = (x + 2) % 3;
    if (slow(x, y) && slow(x, z) && !slow(y, z)) {
      double ratio = std::max(v[{std::min(x, y), std::max(x, y)}], v[{std::min(x, z), std::max(x, z)}]) / ref;
      out.suspects.push_back(Suspect{"node", {x}, ratio, NAN, 0, 0, {}, {}});
      out.cleared.emplace_back(y, "fast with " + id(z) + "; both pairs of " + id(x) + " are slow");
      out.cleared.emplace_back(z, "fast with " + id(y) + "; both pairs of " + id(x) + " are slow");
      return true;
    }
  }
  if (n_slow == 0) {
    for (int x = 0; x < 3; ++x) out.cleared.emplace_back(x, "all three pairs within the node ratio of the reference");
  } else if (n_slow == 3 && external) {
    out.suspects.push_back(Suspect{"cluster", {0, 1, 2}, fastest / ref, NAN, 0, 0, {}, {}});  // every pair slow
  } else {
    out.inconclusive.push_back("three nodes: " + std::to_string(n_slow) +
                               " slow pair(s) do not single out a node (a slow link, or noise: re-run)");
  }
  return true;
}

}  // namespace

bool judge_small_cluster(int nodes, const std::vector<PairSample>& samples, const LocalizeParams& p,
                         Localization& out) {
  if (nodes != 2 && nodes != 3) return false;
  Localization fresh;
  fresh.watch = out.watch;
  bool judged = nodes == 2 ? judge_two(samples, p, fresh) : judge_three(samples, p, fresh);
  if (judged) out = std::move(fresh);
  return judged;
}

}  // namespace fabdiag::triage
