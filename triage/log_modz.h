// The modified z-score on log bandwidth (docs/localization.md#modified-z-score): the comparison
// class's median and MAD are computed once, so judging every node or pair of a 16k-node screen
// costs O(N log N), not one sort per value.
#pragma once

#include <optional>
#include <vector>

namespace fabdiag::triage {

/// Modified z of log(x) among log(values) (values in bytes/s; <= 0 and NaN ignored). Bandwidth
/// noise is multiplicative (a busy core halves a rate; it does not subtract a constant), so
/// outliers are judged on log values: on a linear scale a rate of 0 is only about
/// 0.6745 x median / MAD below the median, and a noisy round could never flag anything.
class LogModz {
 public:
  explicit LogModz(const std::vector<double>& values);
  /// -inf for x <= 0 (a test that moved nothing); nullopt without a median or with MAD 0.
  std::optional<double> operator()(double x) const;

 private:
  std::optional<double> median_, mad_;
};

}  // namespace fabdiag::triage
