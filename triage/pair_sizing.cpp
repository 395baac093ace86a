#include "triage/pair_sizing.h"

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

namespace fabdiag::triage {

namespace {

using Rates = std::map<std::pair<int, int>, double>;  // (a < b) -> bytes/s, finite and > 0

Rates rates_of(const std::vector<PairSample>& samples) {
  Rates r;
  for (const auto& x : samples)
    if (std::isfinite(x.bytes_per_s) && x.bytes_per_s > 0) r[{std::min(x.a, x.b), std::max(x.a, x.b)}] = x.bytes_per_s;
  return r;
}

SizingStep step_of(uint64_t size_bytes, const Rates& now, const Rates* before, int iters) {
  SizingStep st;
  st.size_bytes = size_bytes;
  for (const auto& [k, v] : now) {
    const double t = static_cast<double>(size_bytes) * iters / v;
    st.slowest_test_s = std::isfinite(st.slowest_test_s) ? std::max(st.slowest_test_s, t) : t;
    if (!before) continue;
    auto it = before->find(k);
    if (it == before->end()) continue;
    const double change = std::fabs(v / it->second - 1.0);
    st.max_change = std::isfinite(st.max_change) ? std::max(st.max_change, change) : change;
  }
  return st;
}

}  // namespace

PairSizing size_pair_tests(const MeasureAt& measure, int iters, const PairSizingParams& p) {
  PairSizing out;
  out.size_bytes = p.start_bytes;
  auto first = measure(p.start_bytes);
  if (!first) {
    out.stop = "failed";
    return out;
  }
  out.samples = *first;
  Rates prev = rates_of(out.samples);
  out.steps.push_back(step_of(p.start_bytes, prev, nullptr, iters));
  for (;;) {
    const SizingStep& last = out.steps.back();
    if (std::isfinite(last.max_change) && last.max_change <= p.settle_tolerance) {
      out.stop = "settled";
      break;
    }
    if (!std::isfinite(last.slowest_test_s) || last.slowest_test_s >= p.max_test_s) {
      out.stop = "time_bound";  // also: no pair gave a rate, a larger size would not help
      break;
    }
    const uint64_t next = out.size_bytes * static_cast<uint64_t>(std::max(p.growth, 2));
    if (next > p.max_bytes) {
      out.stop = "max_size";
      break;
    }
    auto r = measure(next);
    if (!r) {
      out.stop = "failed";
      break;
    }
    Rates now = rates_of(*r);
    out.steps.push_back(step_of(next, now, &prev, iters));
    out.size_bytes = next;
    out.samples = std::move(*r);
    prev = std::move(now);
  }
  return out;
}

void to_json(nlohmann::json& j, const PairSizing& s) {
  auto num = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& st : s.steps)
    steps.push_back({{"size_bytes", st.size_bytes}, {"slowest_test_s", num(st.slowest_test_s)}, {"max_change", num(st.max_change)}});
  j = nlohmann::json{{"size_bytes", s.size_bytes}, {"stop", s.stop}, {"steps", steps}};
}

}  // namespace fabdiag::triage
