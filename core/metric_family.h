// Metric families: the format-neutral model that metric renderers (report/prometheus.h) draw.
// Commands convert their typed results into families in cmd/; values are in base units
// (bytes, seconds, volts, watts, celsius) and already final (no scaling in the renderer).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace fabdiag {

/// Prometheus metric type of a family.
enum class MetricType {
  kCounter,  ///< Monotonic since some reset; the name ends in "_total".
  kGauge,    ///< A value that goes up and down (temperature, power, link speed, state).
};

/// One time series of a family: label pairs in output order, and the value.
struct MetricSample {
  std::vector<std::pair<std::string, std::string>> labels;  ///< name -> value; empty values allowed.
  double value = 0;
};

/// A metric name with its help text, type and samples. Names follow
/// [a-zA-Z_:][a-zA-Z0-9_:]*, label names [a-zA-Z_][a-zA-Z0-9_]* (checked by the renderer).
struct MetricFamily {
  std::string name;  ///< "fabdiag_phy_error_total".
  std::string help;  ///< One line for people.
  MetricType type = MetricType::kGauge;
  std::vector<MetricSample> samples;
};

}  // namespace fabdiag
