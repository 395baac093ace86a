// Prometheus text exposition format (version 0.0.4), the format node_exporter's textfile
// collector reads from *.prom files: per family "# HELP" and "# TYPE" lines, then one line per
// sample, no timestamps (the textfile collector rejects them).
#pragma once

#include <string>
#include <vector>

#include "core/metric_family.h"
#include "core/result.h"

namespace fabdiag {

/// Renders `families` in order; families without samples are left out. HELP text escapes '\'
/// and newline; label values escape '\', '"' and newline. Integers below 2^53 print as
/// integers, other values in the shortest form that reads back to the same double ("NaN",
/// "+Inf", "-Inf" for the special values).
/// Errors: kInternal (a bug in the caller, never user input) when a metric or label name is not
/// valid, when two families share a name, or when two samples of one family have the same
/// labels: node_exporter would refuse the whole file.
Result<std::string> render_prometheus(const std::vector<MetricFamily>& families);

/// True when `name` is a valid metric name ([a-zA-Z_:][a-zA-Z0-9_:]*).
bool is_valid_metric_name(const std::string& name);
/// True when `name` is a valid label name ([a-zA-Z_][a-zA-Z0-9_]*, not starting with "__").
bool is_valid_label_name(const std::string& name);

}  // namespace fabdiag
