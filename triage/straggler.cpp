#include "triage/straggler.h"

#include <algorithm>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "core/stats.h"

namespace fabdiag::triage {

namespace {

// The rank's lateness at `row` against the rule, or nothing when it is not late there.
std::optional<LateRow> late_at(const SkewRow& row, size_t rank, double median_lateness_s, double median_wait_s,
                               const StragglerRule& rule) {
  LateRow lr;
  lr.size_bytes = row.size_bytes;
  lr.lateness_s = row.entry_lateness_s[rank];
  lr.threshold_s = std::max({rule.median_factor * median_lateness_s, rule.iteration_share * row.iteration_s, rule.floor_s});
  lr.own_wait_s = row.wait_s[rank];
  lr.others_wait_s = median_wait_s;
  lr.iteration_s = row.iteration_s;
  if (lr.lateness_s > lr.threshold_s && lr.own_wait_s < median_wait_s) return lr;
  return std::nullopt;
}

// Per host, the numbers of one late size as evidence.
void add_late_evidence(TriageSuspect& ts, const Straggler& s) {
  for (const auto& lr : s.late) {
    const std::string at = s.collective + " skew probe at " + std::to_string(lr.size_bytes) + " bytes, rank " +
                           std::to_string(s.rank);
    ts.evidence.push_back(Evidence::number("entry lateness (median over calls)", lr.lateness_s, "s", at)
                              .expect(lr.threshold_s, "<= max(3 x the median rank's, 20 % of the step, 1 ms)"));
    ts.evidence.push_back(Evidence::number("time in the call (median over calls)", lr.own_wait_s, "s", at)
                              .expect(lr.others_wait_s, "the median rank's time in the call: the others waited for it"));
  }
}

std::vector<double> numbers(const nlohmann::json& j) {
  std::vector<double> out;
  if (!j.is_array()) return out;
  for (const auto& v : j) {
    if (!v.is_number()) return {};
    out.push_back(v.get<double>());
  }
  return out;
}

}  // namespace

std::vector<Straggler> judge_stragglers(const SweepSkew& sweep, const StragglerRule& rule) {
  const size_t ranks = sweep.hosts.size();
  std::vector<Straggler> out;
  if (ranks < 3 || sweep.rows.empty()) return out;
  std::vector<std::vector<LateRow>> late(ranks);
  for (const auto& row : sweep.rows) {
    if (row.entry_lateness_s.size() != ranks || row.wait_s.size() != ranks) continue;
    const double m_late = median(row.entry_lateness_s).value_or(0.0);
    const double m_wait = median(row.wait_s).value_or(0.0);
    for (size_t r = 0; r < ranks; ++r)
      if (auto lr = late_at(row, r, m_late, m_wait, rule)) late[r].push_back(*lr);
  }
  const int sizes = static_cast<int>(sweep.rows.size());
  for (size_t r = 0; r < ranks; ++r) {
    if (static_cast<int>(late[r].size()) <= sizes / 2) continue;  // more than half: 2 of 3, 2 of 2, 1 of 1
    out.push_back(Straggler{static_cast<int>(r), sweep.hosts[r], sweep.collective, sizes, std::move(late[r])});
  }
  return out;
}

SweepSkew sweep_skew_from_json(const nlohmann::json& bench) {
  SweepSkew out;
  if (!bench.is_object()) return out;
  if (bench.contains("collective") && bench["collective"].is_string()) out.collective = bench["collective"].get<std::string>();
  if (bench.contains("hosts") && bench["hosts"].is_array())
    for (const auto& h : bench["hosts"]) out.hosts.push_back(h.is_string() ? h.get<std::string>() : "?");
  if (!bench.contains("results") || !bench["results"].is_array()) return out;
  for (const auto& r : bench["results"]) {
    if (!r.is_object() || !r.contains("entry_lateness_s") || !r.contains("wait_s")) continue;
    SkewRow row;
    row.size_bytes = r.value("size_bytes", uint64_t{0});
    row.entry_lateness_s = numbers(r["entry_lateness_s"]);
    row.wait_s = numbers(r["wait_s"]);
    const auto it = r.find("skew_iteration_s");
    row.iteration_s = it != r.end() && it->is_number() ? it->get<double>() : 0.0;
    if (row.entry_lateness_s.size() != out.hosts.size() || row.wait_s.size() != out.hosts.size()) continue;
    out.rows.push_back(std::move(row));
  }
  return out;
}

void add_straggler_suspects(TriageReport& rep, const StragglerRule& rule) {
  std::map<std::string, TriageSuspect> by_host;
  std::vector<std::string> order;
  for (const auto& bench : rep.bench) {
    // A sweep that stopped early runs at the speed of a fault the screen named: the ranks behind
    // that fault leave each call last and enter the next late, whatever their CPU does.
    if (bench.is_object() && bench.contains("stopped_early")) continue;
    for (const auto& s : judge_stragglers(sweep_skew_from_json(bench), rule)) {
      auto [it, fresh] = by_host.try_emplace(s.host);
      TriageSuspect& ts = it->second;
      if (fresh) {
        order.push_back(s.host);
        ts.kind = "straggler";
        ts.hosts = {s.host};
        ts.layer = Layer::kCollective;
        ts.action = "Every other rank waits for " + s.host +
                    " at each collective while its pair tests are fine: look for a busy or throttled CPU "
                    "(top, CPU frequency, cgroup quotas, IRQ affinity) or a slow GPU (clocks, thermal "
                    "throttling, nvidia-smi -q -d PERFORMANCE) on it.";
      }
      add_late_evidence(ts, s);
    }
  }
  for (const auto& host : order) {
    // A host the pair tests named slow leaves each collective last (its data arrives last), so it
    // enters the next late too: its links explain the lateness, which joins its node suspect.
    auto node = std::find_if(rep.suspects.begin(), rep.suspects.end(), [&](const TriageSuspect& t) {
      return t.kind == "node" && t.hosts == std::vector<std::string>{host};
    });
    if (node != rep.suspects.end()) {
      const auto& late = by_host[host].evidence;
      node->evidence.insert(node->evidence.end(), late.begin(), late.end());
      continue;
    }
    rep.suspects.push_back(std::move(by_host[host]));
    auto& c = rep.cleared;  // the pair screen may have cleared it: its pairs are fine
    c.erase(std::remove_if(c.begin(), c.end(), [&](const auto& e) { return e.first == host; }), c.end());
  }
}

}  // namespace fabdiag::triage
