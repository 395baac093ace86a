#include "metrics/baseline_metrics.h"

#include <map>

#include "core/stats.h"

namespace fabdiag {
namespace {

using baseline::BaselineDiff;
using baseline::DiffRow;
using baseline::DiffStatus;
using Labels = std::vector<std::pair<std::string, std::string>>;

MetricFamily gauge(std::string name, std::string help) {
  MetricFamily f;
  f.name = std::move(name);
  f.help = std::move(help);
  f.type = MetricType::kGauge;
  return f;
}

void add(MetricFamily& f, Labels labels, double value) {
  MetricSample s;
  s.labels = std::move(labels);
  s.value = value;
  f.samples.push_back(std::move(s));
}

// One gauge per collective row (host, collective, size_bytes): current, reference, spread,
// ratio, drift, regression. A value a row does not have is left out, never written as 0.
std::vector<MetricFamily> collective_families(const BaselineDiff& d, const std::string& host) {
  auto current = gauge("fabdiag_busbw_bytes_per_second", "Bus bandwidth of the current run (nccl-tests busbw), bytes/s");
  auto ref = gauge("fabdiag_busbw_baseline_bytes_per_second",
                   "Reference busbw: median of the baseline's last K runs, bytes/s");
  auto spread = gauge("fabdiag_busbw_baseline_spread_bytes_per_second",
                      "Spread of the baseline runs' busbw (1.4826 x MAD, small-sample corrected), bytes/s");
  auto ratio = gauge("fabdiag_busbw_ratio", "Current busbw over the reference");
  auto drift = gauge("fabdiag_busbw_drift_ratio_per_run",
                     "Theil-Sen slope of busbw over the last runs and this one, over their median, per run");
  auto regression = gauge("fabdiag_busbw_regression", "1 when busbw regressed against the baseline, else 0");
  for (const DiffRow& r : d.rows) {
    if (r.kind != DiffRow::Kind::kCollective) continue;
    Labels l = {{"host", host}, {"collective", r.collective}, {"size_bytes", std::to_string(r.size_bytes)}};
    if (r.current_bytes_per_s) add(current, l, *r.current_bytes_per_s);
    if (r.baseline_bytes_per_s) add(ref, l, *r.baseline_bytes_per_s);
    if (r.spread_bytes_per_s) add(spread, l, *r.spread_bytes_per_s);
    if (r.ratio) add(ratio, l, *r.ratio);
    if (r.trend) add(drift, l, r.trend->relative_slope);
    if (r.status != DiffStatus::kMissing) add(regression, l, r.status == DiffStatus::kRegression ? 1 : 0);
  }
  return {current, ref, spread, ratio, drift, regression};
}

// Pair rows summarised per host: the medians of the pairs touching it, and its regressed pairs.
std::vector<MetricFamily> pair_families(const BaselineDiff& d) {
  struct PerHost {
    std::vector<double> current, ref, ratio;
    size_t regressions = 0;
  };
  std::map<std::string, PerHost> hosts;
  for (const DiffRow& r : d.rows) {
    if (r.kind != DiffRow::Kind::kPair || r.status == DiffStatus::kMissing) continue;
    for (const std::string* h : {&r.host_a, &r.host_b}) {
      PerHost& p = hosts[*h];
      if (r.current_bytes_per_s) p.current.push_back(*r.current_bytes_per_s);
      if (r.baseline_bytes_per_s) p.ref.push_back(*r.baseline_bytes_per_s);
      if (r.ratio) p.ratio.push_back(*r.ratio);
      if (r.status == DiffStatus::kRegression) ++p.regressions;
    }
  }
  auto current = gauge("fabdiag_pair_bandwidth_bytes_per_second",
                       "Median over the pairs touching host of their current bandwidth, bytes/s");
  auto ref = gauge("fabdiag_pair_bandwidth_baseline_bytes_per_second",
                   "Median over the pairs touching host of their reference bandwidth, bytes/s");
  auto ratio = gauge("fabdiag_pair_bandwidth_ratio", "Median over the pairs touching host of current over reference");
  auto regressions = gauge("fabdiag_pair_regressions", "Pairs touching host whose bandwidth regressed");
  for (const auto& [host, p] : hosts) {
    Labels l = {{"host", host}};
    if (auto m = median(p.current)) add(current, l, *m);
    if (auto m = median(p.ref)) add(ref, l, *m);
    if (auto m = median(p.ratio)) add(ratio, l, *m);
    add(regressions, l, static_cast<double>(p.regressions));
  }
  return {current, ref, ratio, regressions};
}

std::vector<MetricFamily> summary_families(const BaselineDiff& d) {
  auto alert = gauge("fabdiag_baseline_alert",
                     "1 per baseline finding at warn or above: a regression or drift rolled up to its cause");
  auto findings = gauge("fabdiag_baseline_findings", "Findings of the baseline diff per severity");
  std::map<Severity, size_t> by_severity = {
      {Severity::kInfo, 0}, {Severity::kWarn, 0}, {Severity::kError, 0}, {Severity::kCritical, 0}};
  for (const Finding& f : d.findings) {
    ++by_severity[f.severity];
    if (f.severity >= Severity::kWarn)
      add(alert, {{"code", f.code}, {"severity", to_string(f.severity)}, {"subject", f.subject}}, 1);
  }
  for (const auto& [s, n] : by_severity) add(findings, {{"severity", to_string(s)}}, static_cast<double>(n));
  auto rows = gauge("fabdiag_baseline_rows", "Values compared with the baseline per status");
  for (DiffStatus s : {DiffStatus::kOk, DiffStatus::kRegression, DiffStatus::kImprovement, DiffStatus::kMissing})
    add(rows, {{"status", baseline::to_string(s)}}, static_cast<double>(d.count(s)));
  auto runs = gauge("fabdiag_baseline_history_runs", "Runs in the baseline's history");
  add(runs, {}, static_cast<double>(d.history_runs));
  return {alert, findings, rows, runs};
}

}  // namespace

std::vector<MetricFamily> baseline_diff_metric_families(const BaselineDiff& d, const std::string& host) {
  std::vector<MetricFamily> out = collective_families(d, host);
  for (auto& f : pair_families(d)) out.push_back(std::move(f));
  for (auto& f : summary_families(d)) out.push_back(std::move(f));
  return out;
}

}  // namespace fabdiag
