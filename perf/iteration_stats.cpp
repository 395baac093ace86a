#include "perf/iteration_stats.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace fabdiag::perf {

IterationStats iteration_stats(std::vector<double> samples_s) {
  IterationStats st;
  const size_t n = samples_s.size();
  if (n == 0) return st;
  std::sort(samples_s.begin(), samples_s.end());
  st.samples = n;
  st.min_s = samples_s.front();
  st.max_s = samples_s.back();
  st.p50_s = samples_s[n / 2];
  const size_t p99 = (n * 99 + 99) / 100;  // ceil(n*99/100), >= 1 for n >= 1
  st.p99_s = samples_s[std::min(n - 1, p99 - 1)];
  double sum = 0;
  for (double v : samples_s) sum += v;
  st.mean_s = sum / static_cast<double>(n);
  double var = 0;
  for (double v : samples_s) var += (v - st.mean_s) * (v - st.mean_s);
  const double stdev = std::sqrt(var / static_cast<double>(n));
  st.cv = st.mean_s > 0 ? stdev / st.mean_s : 0;
  return st;
}

std::vector<double> max_over_ranks(const std::vector<std::vector<double>>& per_rank) {
  if (per_rank.empty()) return {};
  size_t n = per_rank.front().size();
  for (const auto& r : per_rank) n = std::min(n, r.size());
  std::vector<double> out(n, 0.0);
  for (const auto& r : per_rank)
    for (size_t i = 0; i < n; ++i) out[i] = std::max(out[i], r[i]);
  return out;
}

std::string pack_doubles(const std::vector<double>& values) {
  std::string out(values.size() * sizeof(double), '\0');
  if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}

std::vector<double> unpack_doubles(const std::string& bytes) {
  std::vector<double> out(bytes.size() / sizeof(double));
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * sizeof(double));
  return out;
}

}  // namespace fabdiag::perf
