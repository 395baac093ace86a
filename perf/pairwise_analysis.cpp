#include "perf/pairwise_analysis.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include <nlohmann/json.hpp>

#include "core/stats.h"
#include "core/text.h"

namespace fabdiag::perf {

namespace {

std::string pct(double ratio) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", ratio);
  return buf;
}

std::string gbps(double bytes_per_s) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3g GB/s", bytes_per_s / 1e9);
  return buf;
}

nlohmann::json number_or_null(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

// The working state of one analysis.
struct Work {
  Work(const PairwiseMatrix& matrix, const PairwiseThresholds& thresholds)
      : m(matrix), t(thresholds), n(matrix.matrix_bytes_per_s.size()) {}
  const PairwiseMatrix& m;
  const PairwiseThresholds& t;
  size_t n = 0;
  std::vector<std::vector<double>> p;  // pair values, symmetric, NaN = not measured
  double ref = NAN;
  std::vector<bool> peeled;            // slow by the median rule, removed as partners

  bool measured(size_t a, size_t b) const { return std::isfinite(p[a][b]); }
  bool fast(size_t a, size_t b) const { return measured(a, b) && p[a][b] / ref >= t.node_ratio; }
  bool slow_pair(size_t a, size_t b) const { return measured(a, b) && p[a][b] / ref < t.pair_ratio; }

  // Measured partners of x that are not peeled (except `keep`).
  std::vector<size_t> partners(size_t x) const {
    std::vector<size_t> out;
    for (size_t j = 0; j < n; ++j)
      if (j != x && measured(x, j) && !peeled[j]) out.push_back(j);
    return out;
  }
  std::vector<double> values(size_t x, const std::vector<size_t>& js) const {
    std::vector<double> out;
    for (size_t j : js) out.push_back(p[x][j]);
    return out;
  }
};

}  // namespace

PairwiseThresholds fabric_thresholds() {
  PairwiseThresholds t;
  t.node_ratio = 0.75;
  t.pair_ratio = 0.75;
  t.reference_policy = ReferencePolicy::kP90;
  return t;
}

const char* to_string(NodeStatus s) {
  switch (s) {
    case NodeStatus::kHealthy: return "ok";
    case NodeStatus::kSlow: return "slow";
    case NodeStatus::kSuspect: return "suspect";
    case NodeStatus::kNotMeasured: return "not measured";
  }
  return "?";
}

double pair_value(const PairwiseMatrix& m, int a, int b) {
  const auto& x = m.matrix_bytes_per_s;
  if (a < 0 || b < 0 || a == b || static_cast<size_t>(a) >= x.size() ||
      static_cast<size_t>(b) >= x.size())
    return NAN;
  double ab = x[static_cast<size_t>(a)][static_cast<size_t>(b)];
  double ba = x[static_cast<size_t>(b)][static_cast<size_t>(a)];
  bool fa = std::isfinite(ab), fb = std::isfinite(ba);
  if (fa && fb) return (ab + ba) / 2;
  if (fa) return ab;
  if (fb) return ba;
  return NAN;
}

PairwiseAnalysis analyze_pairwise(const PairwiseMatrix& m, const PairwiseThresholds& t) {
  Work w(m, t);
  const size_t n = w.n;
  auto host = [&](size_t i) { return i < m.hosts.size() ? m.hosts[i] : "rank" + std::to_string(i); };
  w.p.assign(n, std::vector<double>(n, NAN));
  std::vector<double> all_pairs;
  for (size_t a = 0; a < n; ++a)
    for (size_t b = a + 1; b < n; ++b) {
      double v = pair_value(m, static_cast<int>(a), static_cast<int>(b));
      w.p[a][b] = w.p[b][a] = v;
      if (std::isfinite(v)) all_pairs.push_back(v);
    }

  PairwiseAnalysis out;
  out.node_median_bytes_per_s.assign(n, NAN);
  out.partners.assign(n, 0);
  out.status.assign(n, NodeStatus::kNotMeasured);
  out.node_modified_z.assign(n, std::nullopt);
  for (size_t x = 0; x < n; ++x) {
    std::vector<double> v;
    for (size_t j = 0; j < n; ++j)
      if (j != x && w.measured(x, j)) v.push_back(w.p[x][j]);
    out.partners[x] = static_cast<int>(v.size());
    if (auto med = median(v)) out.node_median_bytes_per_s[x] = *med;
  }
  out.fleet_median_bytes_per_s = median(out.node_median_bytes_per_s).value_or(NAN);
  for (size_t x = 0; x < n; ++x)
    if (std::isfinite(out.node_median_bytes_per_s[x]))
      out.node_modified_z[x] = modified_z(out.node_median_bytes_per_s[x], out.node_median_bytes_per_s);

  // Reference (rule 3).
  if (t.reference_bytes_per_s) {
    w.ref = *t.reference_bytes_per_s;
    out.reference_source = "baseline";
  } else if (all_pairs.size() >= 3) {
    if (t.reference_policy == ReferencePolicy::kP90) {
      w.ref = quantile(all_pairs, 0.9).value_or(NAN);
      out.reference_source = "p90 of pairs";
    } else {
      w.ref = out.fleet_median_bytes_per_s;
      out.reference_source = "fleet median";
    }
  }
  out.reference_bytes_per_s = w.ref;
  out.pair_ratio = t.pair_ratio;
  out.node_ratio = t.node_ratio;
  std::vector<std::string> measured_hosts;
  for (size_t x = 0; x < n; ++x)
    if (out.partners[x] > 0) measured_hosts.push_back(host(x));
    else if (n > 1) out.inconclusive.push_back({{host(x)}, "not measured in any pair"});
  if (!(std::isfinite(w.ref) && w.ref > 0)) {
    if (!measured_hosts.empty())
      out.inconclusive.push_back(
          {measured_hosts, std::to_string(all_pairs.size()) +
                               " measured pair(s) and no baseline: too few to tell a slow node "
                               "or link from a normal one; measure more nodes or give a reference"});
    return out;
  }

  // Rule 5, nodes with enough partners: peel the slowest node while its median is slow, so
  // that pairs with a slow node do not drag its partners down.
  w.peeled.assign(n, false);
  for (;;) {
    int best = -1;
    double best_med = 0, best_mean = 0;
    size_t best_k = 0;
    for (size_t x = 0; x < n; ++x) {
      if (w.peeled[x]) continue;
      auto js = w.partners(x);
      if (static_cast<int>(js.size()) < t.min_partners) continue;
      auto vals = w.values(x, js);
      double med = *median(vals);
      if (!(med / w.ref < t.node_ratio)) continue;
      if (t.require_modified_z &&
          !(out.node_modified_z[x] && *out.node_modified_z[x] < t.modified_z_limit))
        continue;
      double mean = 0;
      for (double v : vals) mean += v / static_cast<double>(vals.size());
      if (best < 0 || med < best_med || (med == best_med && mean < best_mean)) {
        best = static_cast<int>(x);
        best_med = med;
        best_mean = mean;
        best_k = js.size();
      }
    }
    if (best < 0) break;
    const size_t x = static_cast<size_t>(best);
    w.peeled[x] = true;
    out.status[x] = NodeStatus::kSlow;
    out.outlier_nodes.push_back({best, host(x), best_med, best_med / w.ref,
                                 static_cast<int>(best_k), out.node_modified_z[x],
                                 "median over " + std::to_string(best_k) + " partners below " +
                                     pct(t.node_ratio) + " of the " + out.reference_source});
  }
  std::vector<bool> healthy_by_median(n, false);
  for (size_t x = 0; x < n; ++x)
    if (!w.peeled[x] && static_cast<int>(w.partners(x).size()) >= t.min_partners) {
      out.status[x] = NodeStatus::kHealthy;
      healthy_by_median[x] = true;
    }

  // Rule 5, nodes with too few partners for a median.
  for (size_t x = 0; x < n; ++x) {
    if (w.peeled[x] || healthy_by_median[x] || out.partners[x] == 0) continue;
    auto js = w.partners(x);
    if (js.empty()) {
      out.status[x] = NodeStatus::kSuspect;
      out.inconclusive.push_back({{host(x)}, "measured only with slow nodes"});
      continue;
    }
    bool has_fast = std::any_of(js.begin(), js.end(), [&](size_t j) { return w.fast(x, j); });
    if (has_fast) {
      out.status[x] = NodeStatus::kHealthy;
      continue;
    }
    // Every pair of x is weak: is x the common cause? Count partners known good without x.
    std::set<size_t> weak(js.begin(), js.end());
    std::vector<std::string> good, unknown;
    for (size_t p : js) {
      bool known_good = healthy_by_median[p];
      for (size_t q = 0; q < n && !known_good; ++q)
        if (q != x && q != p && !weak.count(q) && !w.peeled[q] && w.fast(p, q)) known_good = true;
      (known_good ? good : unknown).push_back(host(p));
    }
    auto vals = w.values(x, js);
    double med = *median(vals);
    if (good.size() >= 2) {
      out.status[x] = NodeStatus::kSlow;
      out.outlier_nodes.push_back({static_cast<int>(x), host(x), med, med / w.ref,
                                   static_cast<int>(js.size()), out.node_modified_z[x],
                                   "every pair below " + pct(t.node_ratio) + " of the " +
                                       out.reference_source + ", with " +
                                       std::to_string(good.size()) +
                                       " partners that are fast with other nodes (" +
                                       join(good, ", ") + ")"});
    } else {
      out.status[x] = NodeStatus::kSuspect;
      std::vector<std::string> names;
      for (size_t p : js) names.push_back(host(p));
      std::string why = "all " + std::to_string(js.size()) + " pair(s) at " + pct(med / w.ref) +
                        " of the " + out.reference_source + " (with " + join(names, ", ") + ")";
      why += good.empty() ? ", and no partner is known good" : ", and only " + good[0] + " is known good";
      why += ": re-measure it with known-good nodes before naming it";
      out.inconclusive.push_back({{host(x)}, why});
    }
  }

  // Rule 6: slow pairs between healthy nodes; slow pairs with a suspect end stay undecided.
  for (size_t a = 0; a < n; ++a)
    for (size_t b = a + 1; b < n; ++b) {
      if (!w.slow_pair(a, b)) continue;
      if (out.status[a] == NodeStatus::kSlow || out.status[b] == NodeStatus::kSlow) continue;  // the node explains it
      if (out.status[a] != NodeStatus::kHealthy || out.status[b] != NodeStatus::kHealthy) {
        out.inconclusive.push_back(
            {{host(a), host(b)},
             "slow pair at " + pct(w.p[a][b] / w.ref) + " of the " + out.reference_source + " (below the pair ratio " +
                 pct(t.pair_ratio) + "), but " + (out.status[a] != NodeStatus::kHealthy && out.status[b] != NodeStatus::kHealthy
                                      ? host(a) + " and " + host(b) + " have"
                                      : (out.status[a] != NodeStatus::kHealthy ? host(a) : host(b)) + " has") +
                 " no partner known good: a slow link or a slow node, the data cannot tell; re-measure each "
                 "end with a known-good partner",
             true});
        continue;
      }
      auto z = modified_z(w.p[a][b], all_pairs);
      if (t.require_modified_z && !(z && *z < t.modified_z_limit)) continue;
      if (out.partners[a] < t.min_partners || out.partners[b] < t.min_partners) {
        out.inconclusive.push_back(
            {{host(a), host(b)},
             "slow pair at " + pct(w.p[a][b] / w.ref) + " of the " + out.reference_source +
                 " while both ends are fast elsewhere, but with fewer than " +
                 std::to_string(t.min_partners) +
                 " partners each: re-measure the pair alone and each end with a fresh partner",
             true});
        continue;
      }
      out.outlier_links.push_back({static_cast<int>(a), static_cast<int>(b), host(a), host(b),
                                   w.p[a][b], w.p[a][b] / w.ref, z});
    }
  return out;
}

void pairwise_to_json(nlohmann::json& data, const PairwiseMatrix& m, const PairwiseAnalysis& a) {
  data = nlohmann::json::object();
  data["hosts"] = m.hosts;
  data["size_bytes"] = m.size_bytes;
  data["iters"] = m.iters;
  data["rounds"] = nlohmann::json::array();
  for (const auto& round : m.rounds) {
    nlohmann::json r = nlohmann::json::array();
    for (const auto& [x, y] : round) r.push_back({x, y});
    data["rounds"].push_back(r);
  }
  data["matrix_bytes_per_s"] = nlohmann::json::array();
  for (const auto& row : m.matrix_bytes_per_s) {
    nlohmann::json r = nlohmann::json::array();
    for (double v : row) r.push_back(number_or_null(v));
    data["matrix_bytes_per_s"].push_back(r);
  }
  data["node_median_bytes_per_s"] = nlohmann::json::object();
  for (size_t i = 0; i < m.hosts.size() && i < a.node_median_bytes_per_s.size(); ++i)
    data["node_median_bytes_per_s"][m.hosts[i]] = number_or_null(a.node_median_bytes_per_s[i]);
  data["fleet_median_bytes_per_s"] = number_or_null(a.fleet_median_bytes_per_s);
  data["outlier_nodes"] = nlohmann::json::array();
  for (const auto& o : a.outlier_nodes)
    data["outlier_nodes"].push_back({{"host", o.host},
                                     {"median_bytes_per_s", number_or_null(o.median_bytes_per_s)},
                                     {"ratio", number_or_null(o.ratio)},
                                     {"partners", o.partners}});
  data["outlier_links"] = nlohmann::json::array();
  for (const auto& l : a.outlier_links)
    data["outlier_links"].push_back({{"hosts", {l.host_a, l.host_b}},
                                     {"bytes_per_s", number_or_null(l.bytes_per_s)},
                                     {"ratio", number_or_null(l.ratio)}});
  data["inconclusive"] = nlohmann::json::array();
  for (const auto& i : a.inconclusive)
    data["inconclusive"].push_back({{"hosts", i.hosts}, {"reason", i.reason}});
  data["reference_bytes_per_s"] = number_or_null(a.reference_bytes_per_s);
  data["reference_source"] = a.reference_source;
  data["pair_ratio"] = a.pair_ratio;
  data["node_ratio"] = a.node_ratio;
}

namespace {
Evidence z_evidence(const std::optional<double>& z, const std::string& of, double limit) {
  bool finite = z && std::isfinite(*z);
  Evidence e = Evidence::number("modified z-score of " + of, finite ? z : std::nullopt, "z",
                                "0.6745 * (x - median) / MAD (Iglewicz-Hoaglin)")
                   .expect(limit, "");
  if (!finite) e.value_text = z ? (*z < 0 ? "-inf (MAD 0)" : "+inf (MAD 0)") : "n/a";
  return e;
}
}  // namespace

std::vector<Finding> pairwise_findings(const PairwiseMatrix& m, const PairwiseAnalysis& a,
                                       const PairwiseThresholds& t) {
  std::vector<Finding> out;
  const std::string src = "pairwise sendrecv, " + std::to_string(m.size_bytes) + " bytes x " +
                          std::to_string(m.iters);
  for (const auto& o : a.outlier_nodes) {
    Finding f;
    f.severity = Severity::kError;
    f.layer = Layer::kLocalization;
    f.code = "slow_node";
    f.subject = o.host;
    f.message = o.host + " is slow: median " + gbps(o.median_bytes_per_s) + " over " +
                std::to_string(o.partners) + " partners is " + pct(o.ratio) + " of the " +
                a.reference_source + " " + gbps(a.reference_bytes_per_s) + " (" + o.rule + ")";
    f.evidence.push_back(Evidence::number("node median bandwidth", o.median_bytes_per_s, "bytes/s", src)
                             .expect(t.node_ratio * a.reference_bytes_per_s,
                                     "< " + pct(t.node_ratio) + " x " + a.reference_source));
    f.evidence.push_back(z_evidence(o.modified_z, "node median among nodes", t.modified_z_limit));
    for (size_t j = 0; j < m.hosts.size(); ++j) {
      double v = pair_value(m, o.node, static_cast<int>(j));
      if (!std::isfinite(v)) continue;
      f.evidence.push_back(Evidence::number("pair " + o.host + "<->" + m.hosts[j], v, "bytes/s", src));
    }
    f.action = "Check " + o.host +
               "'s NICs next: port state, rate and width, PCIe link, counters (fabdiag check, "
               "fabdiag counters); confirm by re-pairing it with a known-good node";
    out.push_back(std::move(f));
  }
  for (const auto& l : a.outlier_links) {
    Finding f;
    f.severity = Severity::kWarn;
    f.layer = Layer::kLocalization;
    f.code = "slow_link";
    f.subject = l.host_a + "<->" + l.host_b;
    f.message = "the pair " + f.subject + " reached " + gbps(l.bytes_per_s) + ", " +
                pct(l.ratio) + " of the " + a.reference_source + " " +
                gbps(a.reference_bytes_per_s) + ", while both nodes are healthy with other partners";
    f.evidence.push_back(Evidence::number("pair bandwidth", l.bytes_per_s, "bytes/s", src)
                             .expect(t.pair_ratio * a.reference_bytes_per_s,
                                     "< " + pct(t.pair_ratio) + " x " + a.reference_source));
    f.evidence.push_back(z_evidence(l.modified_z, "pair value among pairs", t.modified_z_limit));
    for (int end : {l.a, l.b})
      f.evidence.push_back(Evidence::number("node median of " + m.hosts[static_cast<size_t>(end)],
                                            a.node_median_bytes_per_s[static_cast<size_t>(end)], "bytes/s", src));
    f.action = "Re-measure the pair alone and each end with a fresh known-good partner "
               "(fabdiag triage does this); if it stays slow, compare the route, MTU and GID "
               "between the two hosts";
    out.push_back(std::move(f));
  }
  for (const auto& i : a.inconclusive) {
    Finding f;
    f.severity = i.slow_pair ? Severity::kWarn : Severity::kInfo;
    f.layer = Layer::kLocalization;
    f.code = i.slow_pair ? "slow_pair_inconclusive" : "pairwise_inconclusive";
    f.subject = i.slow_pair && i.hosts.size() == 2 ? i.hosts[0] + "<->" + i.hosts[1] : join(i.hosts, ",");
    f.message = f.subject + ": " + i.reason;
    f.action = "Run more pair tests for these nodes (fabdiag triage re-pairs them)";
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace fabdiag::perf
