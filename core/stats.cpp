#include "core/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fabdiag {

namespace {
std::vector<double> finite(std::vector<double> v) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x); }), v.end());
  return v;
}
}  // namespace

std::optional<double> quantile(std::vector<double> values, double q) {
  values = finite(std::move(values));
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  q = std::clamp(q, 0.0, 1.0);
  double pos = q * static_cast<double>(values.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, values.size() - 1);
  double frac = pos - static_cast<double>(lo);
  return values[lo] + (values[hi] - values[lo]) * frac;
}

std::optional<double> median(std::vector<double> values) { return quantile(std::move(values), 0.5); }

std::optional<double> median_abs_deviation(const std::vector<double>& values) {
  auto m = median(values);
  if (!m) return std::nullopt;
  std::vector<double> dev;
  for (double v : values)
    if (std::isfinite(v)) dev.push_back(std::fabs(v - *m));
  return median(dev);
}

std::optional<double> modified_z(double x, const std::vector<double>& values) {
  auto m = median(values);
  auto mad = median_abs_deviation(values);
  if (!m || !mad) return std::nullopt;
  return modified_z(x, *m, *mad);
}

double modified_z(double x, double median, double mad) {
  if (mad == 0) {
    if (x == median) return 0.0;
    return x > median ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
  }
  return 0.6745 * (x - median) / mad;
}

}  // namespace fabdiag
