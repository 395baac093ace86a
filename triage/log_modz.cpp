#include "triage/log_modz.h"

#include <cmath>
#include <limits>

#include "core/stats.h"

namespace fabdiag::triage {

LogModz::LogModz(const std::vector<double>& values) {
  std::vector<double> logs;
  logs.reserve(values.size());
  for (double v : values)
    if (v > 0) logs.push_back(std::log(v));
  median_ = median(logs);
  if (median_) mad_ = median_abs_deviation(logs);
}

std::optional<double> LogModz::operator()(double x) const {
  if (!(x > 0)) return -std::numeric_limits<double>::infinity();
  if (!median_ || !mad_) return std::nullopt;
  return modified_z(std::log(x), *median_, *mad_);
}

}  // namespace fabdiag::triage
