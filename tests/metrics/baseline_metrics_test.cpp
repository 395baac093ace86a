// metrics/baseline_metrics.h: a baseline diff as node_exporter textfile families (values, labels,
// the alert per finding at warn or above, pair rows summarised per host).
#include <doctest/doctest.h>

#include "metrics/baseline_metrics.h"
#include "report/prometheus.h"

namespace fabdiag {
namespace {

using baseline::BaselineDiff;
using baseline::DiffRow;
using baseline::DiffStatus;

DiffRow collective_row(uint64_t size, double ref, double cur, DiffStatus s) {
  DiffRow r;
  r.kind = DiffRow::Kind::kCollective;
  r.collective = "all_reduce";
  r.size_bytes = size;
  r.baseline_bytes_per_s = ref;
  r.current_bytes_per_s = cur;
  r.ratio = cur / ref;
  r.runs = 3;
  r.spread_bytes_per_s = 0.01 * ref;
  baseline::Trend t;
  t.relative_slope = -0.02;
  r.trend = t;
  r.status = s;
  return r;
}

DiffRow pair_row(const std::string& a, const std::string& b, double ref, double cur, DiffStatus s) {
  DiffRow r;
  r.kind = DiffRow::Kind::kPair;
  r.host_a = a;
  r.host_b = b;
  r.baseline_bytes_per_s = ref;
  r.current_bytes_per_s = cur;
  r.ratio = cur / ref;
  r.status = s;
  return r;
}

const MetricFamily& family(const std::vector<MetricFamily>& fs, const std::string& name) {
  for (const auto& f : fs)
    if (f.name == name) return f;
  FAIL("no family " << name);
  return fs.front();
}

double value(const MetricFamily& f, const std::vector<std::pair<std::string, std::string>>& labels) {
  for (const auto& s : f.samples)
    if (s.labels == labels) return s.value;
  FAIL("no sample of " << f.name);
  return -1;
}

}  // namespace

TEST_CASE("baseline diff metrics: busbw rows with their reference, spread, ratio, drift and regression flag") {
  BaselineDiff d;
  d.history_runs = 3;
  d.rows = {collective_row(1 << 20, 2e9, 1.5e9, DiffStatus::kRegression),
            collective_row(4 << 20, 4e9, 4.1e9, DiffStatus::kOk)};
  auto fs = baseline_diff_metric_families(d, "node01");
  const std::vector<std::pair<std::string, std::string>> l1 = {
      {"host", "node01"}, {"collective", "all_reduce"}, {"size_bytes", "1048576"}};
  CHECK(value(family(fs, "fabdiag_busbw_bytes_per_second"), l1) == 1.5e9);
  CHECK(value(family(fs, "fabdiag_busbw_baseline_bytes_per_second"), l1) == 2e9);
  CHECK(value(family(fs, "fabdiag_busbw_baseline_spread_bytes_per_second"), l1) == 2e7);
  CHECK(value(family(fs, "fabdiag_busbw_ratio"), l1) == doctest::Approx(0.75));
  CHECK(value(family(fs, "fabdiag_busbw_drift_ratio_per_run"), l1) == doctest::Approx(-0.02));
  CHECK(value(family(fs, "fabdiag_busbw_regression"), l1) == 1);
  CHECK(value(family(fs, "fabdiag_busbw_regression"),
              {{"host", "node01"}, {"collective", "all_reduce"}, {"size_bytes", "4194304"}}) == 0);
  CHECK(value(family(fs, "fabdiag_baseline_rows"), {{"status", "regression"}}) == 1);
  CHECK(value(family(fs, "fabdiag_baseline_rows"), {{"status", "ok"}}) == 1);
  CHECK(value(family(fs, "fabdiag_baseline_history_runs"), {}) == 3);
}

TEST_CASE("baseline diff metrics: pairs summarised per host and one alert per finding at warn or above") {
  BaselineDiff d;
  d.rows = {pair_row("node01", "node02", 1e9, 1e9, DiffStatus::kOk),
            pair_row("node01", "node03", 1e9, 1e7, DiffStatus::kRegression),
            pair_row("node02", "node03", 1e9, 2e7, DiffStatus::kRegression),
            pair_row("node03", "node04", 1e9, 3e7, DiffStatus::kRegression),
            pair_row("node01", "node04", 1e9, 1.1e9, DiffStatus::kOk)};
  Finding node;
  node.severity = Severity::kWarn;
  node.code = "node_bandwidth_regression";
  node.subject = "node03";
  Finding note;
  note.severity = Severity::kInfo;
  note.code = "busbw_drift";
  note.subject = "all_reduce";
  d.findings = {node, note};
  auto fs = baseline_diff_metric_families(d, "");
  CHECK(value(family(fs, "fabdiag_pair_bandwidth_bytes_per_second"), {{"host", "node03"}}) == 2e7);
  CHECK(value(family(fs, "fabdiag_pair_bandwidth_ratio"), {{"host", "node03"}}) == doctest::Approx(0.02));
  CHECK(value(family(fs, "fabdiag_pair_bandwidth_ratio"), {{"host", "node01"}}) == doctest::Approx(1.0));
  CHECK(value(family(fs, "fabdiag_pair_regressions"), {{"host", "node03"}}) == 3);
  CHECK(value(family(fs, "fabdiag_pair_regressions"), {{"host", "node02"}}) == 1);
  const auto& alert = family(fs, "fabdiag_baseline_alert");
  REQUIRE(alert.samples.size() == 1);  // the info drift is no alert
  CHECK(value(alert, {{"code", "node_bandwidth_regression"}, {"severity", "warn"}, {"subject", "node03"}}) == 1);
  CHECK(value(family(fs, "fabdiag_baseline_findings"), {{"severity", "warn"}}) == 1);
  CHECK(value(family(fs, "fabdiag_baseline_findings"), {{"severity", "error"}}) == 0);
  CHECK(family(fs, "fabdiag_busbw_bytes_per_second").samples.empty());

  auto text = render_prometheus(fs);
  REQUIRE(text);
  CHECK(text->find("fabdiag_baseline_alert{code=\"node_bandwidth_regression\",severity=\"warn\",subject=\"node03\"} 1\n") !=
        std::string::npos);
  CHECK(text->find("# TYPE fabdiag_pair_bandwidth_ratio gauge\n") != std::string::npos);
  CHECK(text->find("fabdiag_busbw_bytes_per_second") == std::string::npos);  // no samples, left out
}

TEST_CASE("baseline diff metrics: a healthy diff has no alert family") {
  BaselineDiff d;
  d.rows = {pair_row("node01", "node02", 1e9, 1e9, DiffStatus::kOk)};
  auto text = render_prometheus(baseline_diff_metric_families(d, "node01"));
  REQUIRE(text);
  CHECK(text->find("fabdiag_baseline_alert") == std::string::npos);
  CHECK(text->find("fabdiag_baseline_findings{severity=\"warn\"} 0\n") != std::string::npos);
}

}  // namespace fabdiag
