#include "triage/walk.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <set>

#include "core/stats.h"
#include "perf/pairwise.h"
#include "triage/matchings.h"

namespace fabdiag::triage {

namespace {

nlohmann::json num_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

std::string link_name(const std::vector<std::string>& hosts, int a, int b) {
  return hosts[static_cast<size_t>(a)] + "<->" + hosts[static_cast<size_t>(b)];
}

// Counter findings that name a hardware fault on the node (not congestion or info).
bool is_hard(const Finding& f) {
  return f.severity >= Severity::kError && (f.layer == Layer::kPhysical || f.layer == Layer::kTransport);
}

std::vector<Finding> judge_node(const CounterJudge& judge, const Result<nlohmann::json>& before,
                                const Result<nlohmann::json>& after, double window_s) {
  if (!judge || !before.ok() || !after.ok()) return {};
  return judge(*before, *after, window_s);
}

}  // namespace

TriageReport run_walk(ClusterRunner& cluster, const WalkParams& params, const CounterJudge& judge,
                      const Progress& progress) {
  TriageReport rep;
  rep.hosts = cluster.hosts();
  const int n = static_cast<int>(rep.hosts.size());
  using clock = std::chrono::steady_clock;

  // ---- counters before ----
  progress("counters: snapshot on " + std::to_string(n) + " nodes");
  auto t0 = clock::now();
  auto c0 = cluster.snapshot_counters();
  for (int i = 0; i < n && i < static_cast<int>(c0.size()); ++i)
    if (!c0[static_cast<size_t>(i)].ok())
      rep.errors.push_back(c0[static_cast<size_t>(i)].error().with_context("counters on " + rep.hosts[static_cast<size_t>(i)]));

  // ---- L0/L1: collective sweeps ----
  for (const auto& sweep : params.sweeps) {
    progress("bench: " + sweep.collective + " on " + std::to_string(n) + " nodes");
    auto r = cluster.run_collective(sweep);
    if (r.ok()) rep.bench.push_back(*r);
    else rep.errors.push_back(r.error().with_context("bench " + sweep.collective));
  }

  // ---- L2 screen: round-robin pairs ----
  // Small clusters: every pair once (circle method, N-1 rounds). Large ones: a few random
  // matchings, so the rounds do not grow with N (LOCALIZATION.md stage 2).
  const bool full = n <= params.round_robin_max_nodes;
  auto schedule = full ? perf::round_robin_schedule(n) : random_matchings(n, params.matching_rounds, params.seed);
  std::vector<PairSample> screen_samples;
  std::map<std::pair<int, int>, double> screen_value;
  for (size_t r = 0; r < schedule.size(); ++r) {
    progress("pairwise: round " + std::to_string(r + 1) + "/" + std::to_string(schedule.size()) + " (" +
             std::to_string(schedule[r].size()) + " pairs)");
    auto res = cluster.run_round(schedule[r], rep.rounds, params.pair_size_bytes, params.pair_iters);
    ++rep.rounds;
    if (!res.ok()) {
      rep.errors.push_back(res.error().with_context("pairwise round " + std::to_string(r + 1)));
      continue;
    }
    for (const auto& s : *res) {
      screen_samples.push_back(s);
      screen_value[{std::min(s.a, s.b), std::max(s.a, s.b)}] = s.bytes_per_s;
    }
  }
  Screen screen = screen_pairs(n, screen_samples, params.localize);

  // ---- hard suspects: counters that moved during the screen ----
  progress("counters: snapshot after the screen");
  auto c_mid = cluster.snapshot_counters();
  double mid_window = std::chrono::duration<double>(clock::now() - t0).count();
  std::vector<int> hard;
  for (int i = 0; i < n && i < static_cast<int>(c_mid.size()) && i < static_cast<int>(c0.size()); ++i) {
    auto fs = judge_node(judge, c0[static_cast<size_t>(i)], c_mid[static_cast<size_t>(i)], mid_window);
    if (std::any_of(fs.begin(), fs.end(), is_hard)) hard.push_back(i);
  }

  // ---- confirmation ----
  auto plan = plan_confirmation(screen, params.localize, hard);
  std::vector<PairSample> confirm_samples;
  for (size_t r = 0; r < plan.size(); ++r) {
    std::vector<std::pair<int, int>> pairs;
    for (const auto& pp : plan[r].pairs) pairs.emplace_back(pp.a, pp.b);
    progress("confirm: round " + std::to_string(r + 1) + "/" + std::to_string(plan.size()) + " (" +
             std::to_string(pairs.size()) + " pairs)");
    auto res = cluster.run_round(pairs, rep.rounds, params.pair_size_bytes, params.pair_iters);
    ++rep.rounds;
    if (!res.ok()) {
      rep.errors.push_back(res.error().with_context("confirmation round " + std::to_string(r + 1)));
      continue;
    }
    for (auto s : *res) {
      s.round = static_cast<int>(r);  // decide() indexes samples by plan round
      confirm_samples.push_back(s);
    }
  }
  Localization loc = decide(screen, plan, confirm_samples, params.localize);

  // ---- counters after ----
  progress("counters: final snapshot");
  auto c1 = cluster.snapshot_counters();
  rep.window_s = std::chrono::duration<double>(clock::now() - t0).count();
  std::map<int, std::vector<Finding>> node_findings;
  for (int i = 0; i < n && i < static_cast<int>(c1.size()) && i < static_cast<int>(c0.size()); ++i) {
    auto fs = judge_node(judge, c0[static_cast<size_t>(i)], c1[static_cast<size_t>(i)], rep.window_s);
    for (auto& f : fs) f.subject = rep.hosts[static_cast<size_t>(i)] + ":" + f.subject;
    node_findings[i] = fs;
  }

  // ---- suspects with evidence ----
  auto add_counter_evidence = [&](TriageSuspect& s, int node) {
    for (const auto& f : node_findings[node]) {
      if (f.severity < Severity::kWarn) continue;
      for (auto e : f.evidence) {
        e.metric = f.subject + " " + e.metric;
        s.evidence.push_back(e);
      }
      if (f.layer > s.layer) s.layer = f.layer;
      if (!f.action.empty() && (s.action.empty() || f.layer == Layer::kPhysical)) s.action = f.action;
    }
  };
  auto pair_evidence = [&](const PairSample& t, double ratio, const std::string& what) {
    Evidence e;
    e.metric = what + " " + link_name(rep.hosts, t.a, t.b) + " (confirmation round " + std::to_string(t.round + 1) + ")";
    e.value = t.bytes_per_s;
    e.unit = "bytes/s";
    e.value_text = "ratio " + std::to_string(ratio).substr(0, 5) + " of the round's reference";
    e.source = "pairwise MPI_Sendrecv, both directions at once";
    return e;
  };
  std::set<int> named;
  for (const auto& sp : loc.suspects) {
    TriageSuspect ts;
    ts.kind = sp.kind;
    for (int x : sp.nodes) ts.hosts.push_back(rep.hosts[static_cast<size_t>(x)]);
    ts.layer = Layer::kLocalization;
    if (sp.kind == "node") {
      int x = sp.nodes[0];
      named.insert(x);
      Evidence e;
      e.metric = "median pair bandwidth of " + ts.hosts[0] + " over " + std::to_string(screen.partners[static_cast<size_t>(x)]) + " partners";
      e.value = screen.node_median_bytes_per_s[static_cast<size_t>(x)];
      e.unit = "bytes/s";
      e.threshold = params.localize.node_ratio * screen.node_ref_bytes_per_s;
      e.threshold_text = std::to_string(params.localize.node_ratio).substr(0, 4) + " x the median node (" +
                         std::to_string(static_cast<long long>(screen.node_ref_bytes_per_s)) + " bytes/s)";
      e.source = "pairwise screen (round-robin)";
      ts.evidence.push_back(e);
      for (size_t k = 0; k < sp.tests.size(); ++k)
        ts.evidence.push_back(pair_evidence(sp.tests[k], sp.test_ratios[k], "confirmation with a known-good partner"));
      ts.action = "Slow against most peers, confirmed with known-good partners: check " + ts.hosts[0] +
                  "'s NICs (port state and rate, PCIe width and speed, GDR) with `fabdiag check` and "
                  "`fabdiag counters`, then drain it from jobs until fixed.";
      add_counter_evidence(ts, x);
    } else {
      int a = sp.nodes[0], b = sp.nodes[1];
      for (size_t k = 0; k < sp.tests.size(); ++k)
        ts.evidence.push_back(pair_evidence(sp.tests[k], sp.test_ratios[k], "re-test"));
      Evidence e;
      e.metric = "screen bandwidth " + link_name(rep.hosts, a, b);
      auto sv = screen_value.find({std::min(a, b), std::max(a, b)});
      if (sv != screen_value.end()) e.value = sv->second;
      e.unit = "bytes/s";
      e.threshold = params.localize.pair_ratio * screen.pair_ref_bytes_per_s;
      e.threshold_text = std::to_string(params.localize.pair_ratio).substr(0, 4) + " x the median healthy pair";
      e.source = "pairwise screen (round-robin)";
      ts.evidence.insert(ts.evidence.begin(), e);
      ts.action = "Only this pair is slow; both ends are fast with other partners. Check the path between " +
                  ts.hosts[0] + " and " + ts.hosts[1] +
                  " (routes, MTU, GID/VLAN, the switch ports and ECMP path), then re-run `fabdiag pairwise`.";
    }
    rep.suspects.push_back(std::move(ts));
  }
  // Nodes with hardware counter faults are suspects even when their bandwidth is normal.
  for (const auto& [i, fs] : node_findings) {
    if (named.count(i) || !std::any_of(fs.begin(), fs.end(), is_hard)) continue;
    TriageSuspect ts;
    ts.kind = "node";
    ts.hosts = {rep.hosts[static_cast<size_t>(i)]};
    ts.layer = Layer::kTransport;
    add_counter_evidence(ts, i);
    for (const auto& [node, reason] : loc.cleared)
      if (node == i) {
        Evidence e;
        e.metric = "bandwidth with known-good partners";
        e.value_text = "normal: " + name_nodes(reason, rep.hosts);
        e.source = "confirmation rounds";
        ts.evidence.push_back(e);
      }
    if (ts.action.empty()) ts.action = "Counters show a hardware fault in the test window: inspect the port named in the evidence.";
    rep.suspects.push_back(std::move(ts));
    named.insert(i);
  }
  for (const auto& [node, reason] : loc.cleared)
    if (!named.count(node)) rep.cleared.emplace_back(rep.hosts[static_cast<size_t>(node)], name_nodes(reason, rep.hosts));
  for (const auto& text : loc.inconclusive) rep.inconclusive.push_back(name_nodes(text, rep.hosts));

  // ---- findings ----
  for (const auto& s : rep.suspects) {
    Finding f;
    f.severity = Severity::kError;
    f.layer = s.layer;
    f.code = s.kind == "link" ? "slow_link" : (s.layer == Layer::kLocalization ? "slow_node" : "node_fault");
    f.subject = s.hosts.size() == 2 ? s.hosts[0] + "<->" + s.hosts[1] : s.hosts[0];
    f.message = s.kind == "link" ? "the link between " + s.hosts[0] + " and " + s.hosts[1] + " is slow; both ends are fine with other partners"
                                 : s.hosts[0] + " is a suspect (" + std::string(to_string(s.layer)) + ")";
    f.evidence = s.evidence;
    f.action = s.action;
    rep.findings.push_back(std::move(f));
  }
  for (auto& [i, fs] : node_findings)
    for (auto& f : fs)
      if (f.severity >= Severity::kWarn) rep.findings.push_back(f);

  // ---- data for the report ----
  nlohmann::json pw;
  pw["hosts"] = rep.hosts;
  pw["size_bytes"] = params.pair_size_bytes;
  pw["iters"] = params.pair_iters;
  pw["rounds"] = schedule;
  if (full) {  // the dense N x N matrix only where it is small enough to read
    nlohmann::json mj = nlohmann::json::array();
    for (int i = 0; i < n; ++i) {
      nlohmann::json rj = nlohmann::json::array();
      for (int k = 0; k < n; ++k) {
        auto it = screen_value.find({std::min(i, k), std::max(i, k)});
        rj.push_back(it == screen_value.end() ? nlohmann::json(nullptr) : num_or_null(it->second));
      }
      mj.push_back(rj);
    }
    pw["matrix_bytes_per_s"] = mj;
  } else {
    pw["samples"] = screen_samples;
  }
  pw["schedule"] = full ? "round_robin" : "random_matchings";
  nlohmann::json med = nlohmann::json::object();
  for (int i = 0; i < n; ++i) med[rep.hosts[static_cast<size_t>(i)]] = num_or_null(screen.node_median_bytes_per_s[static_cast<size_t>(i)]);
  pw["node_median_bytes_per_s"] = med;
  pw["fleet_median_bytes_per_s"] = num_or_null(screen.node_ref_bytes_per_s);
  pw["pair_reference_bytes_per_s"] = num_or_null(screen.pair_ref_bytes_per_s);
  rep.pairwise = pw;
  nlohmann::json cj = nlohmann::json::array();
  for (size_t r = 0; r < plan.size(); ++r) {
    nlohmann::json round = nlohmann::json::array();
    for (const auto& pp : plan[r].pairs) {
      double v = NAN;
      for (const auto& s : confirm_samples)
        if (s.round == static_cast<int>(r) && ((s.a == pp.a && s.b == pp.b) || (s.a == pp.b && s.b == pp.a))) v = s.bytes_per_s;
      round.push_back({{"hosts", {rep.hosts[static_cast<size_t>(pp.a)], rep.hosts[static_cast<size_t>(pp.b)]}},
                       {"role", to_string(pp.role)},
                       {"bytes_per_s", num_or_null(v)}});
    }
    cj.push_back(round);
  }
  rep.confirmation = cj;
  return rep;
}

nlohmann::json to_json(const TriageReport& r) {
  nlohmann::json j;
  j["hosts"] = r.hosts;
  j["suspects"] = nlohmann::json::array();
  for (const auto& s : r.suspects)
    j["suspects"].push_back({{"kind", s.kind}, {"hosts", s.hosts}, {"layer", to_string(s.layer)},
                             {"evidence", s.evidence}, {"action", s.action}});
  j["cleared"] = nlohmann::json::array();
  for (const auto& [who, why] : r.cleared) j["cleared"].push_back({{"subject", who}, {"reason", why}});
  j["inconclusive"] = r.inconclusive;
  j["bench"] = r.bench;
  j["pairwise"] = r.pairwise;
  j["confirmation"] = r.confirmation;
  j["rounds"] = r.rounds;
  j["window_s"] = r.window_s;
  return j;
}

}  // namespace fabdiag::triage
