#include "triage/screen_matrix.h"

#include <algorithm>
#include <cmath>

namespace fabdiag::triage {

nlohmann::json screen_matrix(int n, const std::map<std::pair<int, int>, double>& value) {
  nlohmann::json mj = nlohmann::json::array();
  for (int i = 0; i < n; ++i) {
    nlohmann::json rj = nlohmann::json::array();
    for (int k = 0; k < n; ++k) {
      auto it = value.find({std::min(i, k), std::max(i, k)});
      rj.push_back(it == value.end() || !std::isfinite(it->second) ? nlohmann::json(nullptr) : nlohmann::json(it->second));
    }
    mj.push_back(rj);
  }
  return mj;
}

nlohmann::json directed_matrix(int n, const std::vector<PairSample>& samples) {
  nlohmann::json mj = nlohmann::json::array();
  for (int i = 0; i < n; ++i) {
    nlohmann::json row = nlohmann::json::array();
    for (int k = 0; k < n; ++k) row.push_back(nullptr);
    mj.push_back(std::move(row));
  }
  for (const auto& x : samples) {
    if (x.a < 0 || x.b < 0 || x.a >= n || x.b >= n) continue;
    if (std::isfinite(x.a_to_b_bytes_per_s)) mj[static_cast<size_t>(x.a)][static_cast<size_t>(x.b)] = x.a_to_b_bytes_per_s;
    if (std::isfinite(x.b_to_a_bytes_per_s)) mj[static_cast<size_t>(x.b)][static_cast<size_t>(x.a)] = x.b_to_a_bytes_per_s;
  }
  return mj;
}

}  // namespace fabdiag::triage
