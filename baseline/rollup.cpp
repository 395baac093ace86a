#include "baseline/rollup.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <utility>

#include "core/stats.h"

namespace fabdiag::baseline {

namespace {

// What changed in a row: the three kinds of finding the roll-up makes.
enum class Change { kRegression, kDrift, kImprovement };

bool has_change(const DiffRow& r, Change c) {
  switch (c) {
    case Change::kRegression: return r.status == DiffStatus::kRegression;
    case Change::kDrift: return r.drift;
    case Change::kImprovement: return r.status == DiffStatus::kImprovement;
  }
  return false;
}

const char* suffix(Change c) {
  switch (c) {
    case Change::kRegression: return "_regression";
    case Change::kDrift: return "_drift";
    case Change::kImprovement: return "_improvement";
  }
  return "";
}

// Fitted decline over the window of a drifting row, as a fraction (0.12 = 12 %).
double window_decline(const DiffRow& r) {
  return r.trend ? -r.trend->relative_slope * static_cast<double>(r.trend->runs - 1) : 0;
}

Severity row_severity(const DiffRow& r, Change c, double tolerance) {
  if (c == Change::kRegression) return r.severity.value_or(Severity::kWarn);
  if (c == Change::kDrift) return window_decline(r) >= tolerance ? Severity::kWarn : Severity::kInfo;
  return Severity::kInfo;
}

// "median of 5 runs, spread 0.03 GB/s" for evidence sources.
std::string reference_text(const DiffRow& r, const DiffOptions& o) {
  std::string s = "baseline " + o.baseline_label + ", median of " + std::to_string(r.runs) + " run" +
                  (r.runs == 1 ? "" : "s");
  if (r.spread_bytes_per_s) {
    char buf[64];
    std::snprintf(buf, sizeof buf, ", spread %.4g bytes/s", *r.spread_bytes_per_s);
    s += buf;
  }
  return s;
}

std::string change_words(const DiffRow& r, Change c) {
  double ratio = r.ratio.value_or(1);
  if (c == Change::kRegression) return "drop " + percent_text(1 - ratio);
  if (c == Change::kImprovement) return "gain " + percent_text(ratio - 1);
  return "falling " + percent_text(r.trend ? -r.trend->relative_slope : 0) + " per run over " +
         std::to_string(r.trend ? r.trend->runs : 0) + " runs";
}

// Evidence of one row: its ratio (or slope for drift) with the limit it was judged by.
Evidence row_evidence(const DiffRow& r, Change c, const DiffOptions& o) {
  if (c == Change::kDrift)
    return Evidence::number("relative slope per run " + r.subject(), r.trend ? r.trend->relative_slope : 0,
                            "fraction/run", reference_text(r, o))
        .expect(-kDriftPerRun, "drift at or below");
  return Evidence::number("ratio " + r.subject(), r.ratio, "ratio", reference_text(r, o))
      .expect(c == Change::kRegression ? 1 - o.tolerance : 1 + o.tolerance,
              c == Change::kRegression ? "regression below" : "improvement above");
}

std::string action_for(Change c, bool collective, bool node, const DiffOptions& o) {
  if (c == Change::kImprovement)
    return "If the change is expected (upgrade, tuning), record it: fabdiag baseline save --force " +
           o.baseline_label + " FILE (or --append it, and the median follows within a few runs).";
  if (c == Change::kDrift)
    return "Nothing failed yet: watch the next runs, and read this path's counters (fabdiag counters) for "
           "rising errors, pauses or a link retraining before it crosses the tolerance.";
  if (node)
    return "Treat the node, not its links: run fabdiag check and fabdiag counters on it, re-pair it with a "
           "known-good node (fabdiag triage) and drain it if it stays slow.";
  if (collective)
    return "Re-run the same benchmark to rule out noise; if it persists, run fabdiag triage to localize the "
           "slow node or link, and compare the NCCL transport (NET/IB vs Socket, GDR) with the baseline run.";
  return "Re-measure this pair alone and pair each end with a known-good node to tell a bad link from a bad "
         "node; then read both ends' port counters (fabdiag counters).";
}

// One finding about one pair or one collective size group.
Finding pair_finding(const DiffRow& r, Change c, const DiffOptions& o) {
  Finding f;
  f.severity = row_severity(r, c, o.tolerance);
  f.layer = Layer::kLocalization;
  f.code = std::string("pair_bandwidth") + suffix(c);
  f.subject = r.subject();
  f.message = "bandwidth between " + r.host_a + (r.directed ? " -> " : " and ") + r.host_b + " is " +
              percent_text(r.ratio.value_or(1)) + " of baseline '" + o.baseline_label + "' (" + change_words(r, c) +
              ", tolerance " + percent_text(o.tolerance) + ")";
  f.evidence.push_back(Evidence::number("baseline pair bandwidth", r.baseline_bytes_per_s, "bytes/s", reference_text(r, o)));
  f.evidence.push_back(Evidence::number("current pair bandwidth", r.current_bytes_per_s, "bytes/s", o.current_label));
  f.evidence.push_back(row_evidence(r, c, o));
  f.evidence.push_back(Evidence::number("tolerance", o.tolerance, "fraction", ""));
  if (r.spread_bytes_per_s)
    f.evidence.push_back(Evidence::number("run-to-run spread (robust sigma)", r.spread_bytes_per_s, "bytes/s", ""));
  f.action = action_for(c, false, false, o);
  return f;
}

// Hosts named by most of their changed pairs (rollup.h), best first, with the pairs they claim.
std::vector<std::pair<std::string, std::vector<const DiffRow*>>> node_groups(const std::vector<const DiffRow*>& pairs,
                                                                             Change c) {
  std::map<std::string, size_t> compared;
  std::map<std::string, std::vector<const DiffRow*>> changed;
  for (const DiffRow* r : pairs) {
    for (const std::string* h : {&r->host_a, &r->host_b}) {
      ++compared[*h];
      if (has_change(*r, c)) changed[*h].push_back(r);
    }
  }
  std::vector<std::pair<std::string, std::vector<const DiffRow*>>> groups;
  for (auto& [host, rows] : changed) {
    double share = static_cast<double>(rows.size()) / static_cast<double>(compared[host]);
    if (rows.size() >= kMinNodePairs && share >= kNodeShare) groups.emplace_back(host, rows);
  }
  std::stable_sort(groups.begin(), groups.end(), [&](const auto& x, const auto& y) {
    double sx = static_cast<double>(x.second.size()) / static_cast<double>(compared[x.first]);
    double sy = static_cast<double>(y.second.size()) / static_cast<double>(compared[y.first]);
    return sx != sy ? sx > sy : x.second.size() > y.second.size();
  });
  return groups;
}

Finding node_finding(const std::string& host, const std::vector<const DiffRow*>& rows, size_t compared, Change c,
                     const DiffOptions& o) {
  Finding f;
  f.severity = Severity::kInfo;
  std::vector<double> ratios;
  for (const DiffRow* r : rows) {
    f.severity = std::max(f.severity, row_severity(*r, c, o.tolerance));
    ratios.push_back(c == Change::kDrift ? (r->trend ? r->trend->relative_slope : 0) : r->ratio.value_or(1));
  }
  double mid = median(ratios).value_or(1);
  f.layer = Layer::kLocalization;
  f.code = std::string("node_bandwidth") + suffix(c);
  f.subject = host;
  std::string verb = c == Change::kRegression ? "regressed" : c == Change::kDrift ? "are drifting down" : "improved";
  f.message = (rows.size() == compared ? "every pair" : std::to_string(rows.size()) + " of " +
                                                            std::to_string(compared) + " pairs") +
              " touching " + host + " " + verb + " (" + std::to_string(rows.size()) + " of " +
              std::to_string(compared) + " compared): median " +
              (c == Change::kDrift ? percent_text(mid) + " per run"
                                   : percent_text(mid) + " of baseline '" + o.baseline_label + "'") +
              ", tolerance " + percent_text(o.tolerance) + "; one cause at the node, not " +
              std::to_string(rows.size()) + " links";
  f.evidence.push_back(Evidence::number(c == Change::kDrift ? "median relative slope of its pairs" : "median ratio of its pairs",
                                        mid, c == Change::kDrift ? "fraction/run" : "ratio", "")
                           .expect(c == Change::kDrift ? -kDriftPerRun : c == Change::kRegression ? 1 - o.tolerance : 1 + o.tolerance,
                                   c == Change::kImprovement ? "improvement above" : "change beyond"));
  f.evidence.push_back(Evidence::number("pairs changed", static_cast<double>(rows.size()), "count", "")
                           .expect(static_cast<double>(compared), "of the pairs compared"));
  for (size_t i = 0; i < rows.size() && i < kMaxPairEvidence; ++i) f.evidence.push_back(row_evidence(*rows[i], c, o));
  if (rows.size() > kMaxPairEvidence)
    f.evidence.push_back(Evidence::text("more pairs", std::to_string(rows.size() - kMaxPairEvidence) +
                                                          " more pairs like these (--format json lists every row)", ""));
  f.action = action_for(c, false, true, o);
  return f;
}

// Node and link findings of the pair rows for change `c`.
void pair_findings(const std::vector<const DiffRow*>& pairs, Change c, const DiffOptions& o, std::vector<Finding>& out) {
  std::map<std::string, size_t> compared;
  for (const DiffRow* r : pairs) {
    ++compared[r->host_a];
    ++compared[r->host_b];
  }
  std::set<const DiffRow*> claimed;
  for (const auto& [host, rows] : node_groups(pairs, c)) {
    out.push_back(node_finding(host, rows, compared[host], c, o));
    claimed.insert(rows.begin(), rows.end());
  }
  for (const DiffRow* r : pairs)
    if (has_change(*r, c) && !claimed.count(r)) out.push_back(pair_finding(*r, c, o));
}

// One finding per collective (and scope) whose sizes changed.
void collective_findings(const std::vector<const DiffRow*>& rows, Change c, const DiffOptions& o,
                         std::vector<Finding>& out) {
  std::map<std::pair<std::string, std::string>, std::vector<const DiffRow*>> by_collective;
  std::map<std::pair<std::string, std::string>, size_t> compared;
  for (const DiffRow* r : rows) {
    ++compared[{r->scope, r->collective}];
    if (has_change(*r, c)) by_collective[{r->scope, r->collective}].push_back(r);
  }
  for (const auto& [key, changed] : by_collective) {
    const DiffRow* worst = changed.front();
    Finding f;
    for (const DiffRow* r : changed) {
      f.severity = std::max(f.severity, row_severity(*r, c, o.tolerance));
      double wr = c == Change::kDrift ? worst->trend->relative_slope : worst->ratio.value_or(1);
      double rr = c == Change::kDrift ? r->trend->relative_slope : r->ratio.value_or(1);
      if (c == Change::kImprovement ? rr > wr : rr < wr) worst = r;
    }
    f.layer = Layer::kCollective;
    f.code = std::string("busbw") + suffix(c);
    f.subject = key.first.empty() ? key.second : key.second + " on " + key.first;
    f.message = "busbw of " + f.subject + " changed at " + std::to_string(changed.size()) + " of " +
                std::to_string(compared[key]) + " sizes against baseline '" + o.baseline_label + "': at " +
                std::to_string(worst->size_bytes) + " B " + percent_text(worst->ratio.value_or(1)) + " (" +
                change_words(*worst, c) + ", tolerance " + percent_text(o.tolerance) + ")";
    f.evidence.push_back(Evidence::number("baseline busbw at " + std::to_string(worst->size_bytes) + " B",
                                          worst->baseline_bytes_per_s, "bytes/s", reference_text(*worst, o)));
    f.evidence.push_back(Evidence::number("current busbw at " + std::to_string(worst->size_bytes) + " B",
                                          worst->current_bytes_per_s, "bytes/s", o.current_label));
    for (const DiffRow* r : changed) f.evidence.push_back(row_evidence(*r, c, o));
    f.evidence.push_back(Evidence::number("tolerance", o.tolerance, "fraction", ""));
    f.action = action_for(c, true, false, o);
    out.push_back(std::move(f));
  }
}

// The hosts a finding is about: its subject, or the two ends of a pair subject.
std::vector<std::string> subject_hosts(const Finding& f) {
  for (const char* sep : {"<->", "->"}) {
    auto at = f.subject.find(sep);
    if (at != std::string::npos)
      return {f.subject.substr(0, at), f.subject.substr(at + std::char_traits<char>::length(sep))};
  }
  return {f.subject};
}

}  // namespace

std::vector<Finding> roll_up(const BaselineDiff& d, const DiffOptions& options) {
  std::vector<const DiffRow*> pairs, collectives;
  for (const auto& r : d.rows) {
    if (r.status == DiffStatus::kMissing) continue;
    (r.kind == DiffRow::Kind::kPair ? pairs : collectives).push_back(&r);
  }
  std::vector<Finding> out;
  for (Change c : {Change::kRegression, Change::kDrift, Change::kImprovement}) {
    pair_findings(pairs, c, options, out);
    collective_findings(collectives, c, options, out);
  }
  return out;
}

void order_findings(std::vector<Finding>& findings, const std::vector<std::string>& suspects) {
  std::set<std::string> s(suspects.begin(), suspects.end());
  auto about_suspect = [&](const Finding& f) {
    for (const auto& h : subject_hosts(f))
      if (s.count(h)) return true;
    return false;
  };
  for (auto& f : findings)
    if (about_suspect(f) && f.message.find("(a triage suspect)") == std::string::npos)
      f.message += " (a triage suspect)";
  std::stable_sort(findings.begin(), findings.end(), [&](const Finding& x, const Finding& y) {
    bool sx = about_suspect(x), sy = about_suspect(y);
    if (sx != sy) return sx;
    return x.severity > y.severity;
  });
}

}  // namespace fabdiag::baseline
