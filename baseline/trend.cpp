#include "baseline/trend.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/stats.h"

namespace fabdiag::baseline {

double robust_sigma(const std::vector<double>& values) {
  static const double kSmall[] = {0, 0, 1.196, 1.495, 1.363, 1.206, 1.200, 1.140, 1.129, 1.107};
  size_t n = values.size();
  if (n < 2) return 0;
  double b = n < 10 ? kSmall[n] : static_cast<double>(n) / (static_cast<double>(n) - 0.8);
  return 1.4826 * b * median_abs_deviation(values).value_or(0);
}

double step_sigma(const std::vector<double>& values) {
  if (values.size() < 3) return 0;
  std::vector<double> steps;
  for (size_t i = 1; i < values.size(); ++i) steps.push_back(values[i] - values[i - 1]);
  return robust_sigma(steps) / std::sqrt(2.0);
}

std::optional<Trend> fit_trend(const std::vector<double>& values, double noise_sigma) {
  if (values.size() < 2) return std::nullopt;
  auto mid = median(values);
  if (!mid || *mid <= 0) return std::nullopt;
  std::vector<double> slopes;
  size_t falling = 0;
  for (size_t i = 0; i < values.size(); ++i)
    for (size_t j = i + 1; j < values.size(); ++j) {
      slopes.push_back((values[j] - values[i]) / static_cast<double>(j - i));
      falling += values[j] < values[i];
    }
  Trend t;
  t.slope = median(slopes).value_or(0);
  t.relative_slope = t.slope / *mid;
  t.falling_share = static_cast<double>(falling) / static_cast<double>(slopes.size());
  t.runs = values.size();
  double mean_x = static_cast<double>(values.size() - 1) / 2, sxx = 0;
  for (size_t i = 0; i < values.size(); ++i)
    sxx += (static_cast<double>(i) - mean_x) * (static_cast<double>(i) - mean_x);
  double sigma = std::max(noise_sigma, step_sigma(values));
  double se = sigma / std::sqrt(sxx);
  if (se > 0) t.slope_z = t.slope / se;
  else if (t.slope < 0) t.slope_z = -std::numeric_limits<double>::infinity();
  return t;
}

bool is_drift(const Trend& t, double spread_k) {
  return t.runs >= kMinTrendRuns && t.relative_slope <= -kDriftPerRun && t.falling_share >= kDriftFallingShare &&
         t.slope_z <= -spread_k;
}

}  // namespace fabdiag::baseline
