#include "triage/threshold.h"

#include <algorithm>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "core/stats.h"

namespace fabdiag::triage {

namespace {

std::string fmt(const char* f, double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

}  // namespace

NodeThreshold node_threshold(const std::vector<double>& node_medians, double fixed_ratio, const AdaptiveThreshold& a) {
  NodeThreshold t;
  t.ratio = fixed_ratio;
  t.source = "fixed";
  std::vector<double> logs;
  for (double m : node_medians)
    if (std::isfinite(m) && m > 0) logs.push_back(std::log(m));
  t.judged = static_cast<int>(logs.size());
  if (!a.on) {
    t.why = "node ratio " + fmt("%.2f", fixed_ratio) + " as given";
    return t;
  }
  if (logs.size() < 3) {
    t.why = "adaptive threshold needs 3 judged nodes, " + std::to_string(logs.size()) + " judged: node ratio " +
            fmt("%.2f", fixed_ratio);
    return t;
  }
  t.sigma_log = 1.4826 * median_abs_deviation(logs).value_or(0.0);
  const double raw = 1.0 - a.k_sigma * t.sigma_log;
  t.ratio = std::clamp(raw, a.min_ratio, a.max_ratio);
  t.source = "adaptive";
  t.why = "1 - " + fmt("%.1f", a.k_sigma) + " x sigma " + fmt("%.3f", t.sigma_log) + " (robust, log node medians of " +
          std::to_string(t.judged) + " nodes) = " + fmt("%.3f", raw) + ", clamped to [" + fmt("%.2f", a.min_ratio) +
          ", " + fmt("%.2f", a.max_ratio) + "]: " + fmt("%.3f", t.ratio);
  return t;
}

void to_json(nlohmann::json& j, const NodeThreshold& t) {
  auto num = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
  j = nlohmann::json{{"ratio", num(t.ratio)}, {"source", t.source}, {"sigma_log", num(t.sigma_log)},
                     {"judged", t.judged}, {"why", t.why}};
}

}  // namespace fabdiag::triage
