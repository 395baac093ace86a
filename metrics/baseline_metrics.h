// The node_exporter textfile mapping of a baseline diff (`fabdiag baseline diff --format
// prometheus`, the nightly check of docs/nightly.md): the results, their reference, the drift and
// the alerts as metric families in base units (core/metric_family.h), rendered by
// report/prometheus.h. Named like node_exporter's metrics (`fabdiag_` prefix, base units,
// `_bytes_per_second`); labels stay low-cardinality: host, collective, size_bytes, and for the
// alerts code, severity and subject (one series per finding at warn or above, so a healthy night
// has none). Pair rows are summarised per host (N series, never N^2); no timestamps anywhere
// (the textfile collector refuses them; node_exporter's scrape time is the time).
#pragma once

#include <string>
#include <vector>

#include "baseline/diff.h"
#include "core/metric_family.h"

namespace fabdiag {

/// Metric families of `d` (baseline/diff.h), `host` the node the nightly check ran on (the
/// `host` label of collective rows; empty = absent, for a run that spans hosts):
///   fabdiag_busbw_bytes_per_second{host,collective,size_bytes}: busbw of the current run
///     (nccl-tests' definition, docs/bandwidth.md), gauge;
///   fabdiag_busbw_baseline_bytes_per_second{...}: the reference, median of the last K runs;
///   fabdiag_busbw_baseline_spread_bytes_per_second{...}: the runs' spread (robust sigma from
///     the MAD), only where >= 3 runs give one;
///   fabdiag_busbw_ratio{...}: current / reference;
///   fabdiag_busbw_drift_ratio_per_run{...}: Theil-Sen slope of the last K runs plus this one
///     over their median (fraction per run; negative = falling; baseline/trend.h);
///   fabdiag_busbw_regression{...}: 1 when the row regressed (diff.h rules), else 0;
///   fabdiag_pair_bandwidth_bytes_per_second{host}: median over the pairs touching host of their
///     current bandwidth; _baseline_bytes_per_second the same of the references;
///     fabdiag_pair_bandwidth_ratio{host} the median of those pairs' ratios;
///     fabdiag_pair_regressions{host} how many of them regressed;
///   fabdiag_baseline_alert{code,severity,subject}: 1 per rolled-up finding at warn or above
///     (baseline/rollup.h: "node03" for a node, "a<->b" for a link, the collective);
///   fabdiag_baseline_findings{severity}: findings per severity (every severity, 0 included);
///   fabdiag_baseline_rows{status}: compared values per status (ok, regression, improvement,
///     missing); fabdiag_baseline_history_runs: runs in the baseline's history.
std::vector<MetricFamily> baseline_diff_metric_families(const baseline::BaselineDiff& d, const std::string& host);

}  // namespace fabdiag
