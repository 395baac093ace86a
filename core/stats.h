// Robust statistics for noisy measurements (docs/localization.md#rules-for-deciding-under-noise,
// docs/localization.md#modified-z-score).
#pragma once

#include <optional>
#include <vector>

namespace fabdiag {

/// Median of the finite values; nullopt when there are none. NaN entries are ignored.
std::optional<double> median(std::vector<double> values);

/// Median absolute deviation around the median (unscaled); nullopt when no finite values.
std::optional<double> median_abs_deviation(const std::vector<double>& values);

/// Modified z-score of `x` against `values` (Iglewicz and Hoaglin, 1993):
///   z = 0.6745 * (x - median) / MAD.
/// |z| > 3.5 marks an outlier. Returns 0 when MAD is 0 and x equals the median, -inf/+inf when
/// MAD is 0 and x differs, nullopt when `values` has no finite entries.
std::optional<double> modified_z(double x, const std::vector<double>& values);

/// The same score from a precomputed median and MAD of the reference values, for judging many
/// values against one set in O(1) each (same 0 / -inf / +inf rules when mad is 0).
double modified_z(double x, double median, double mad);

/// q-quantile (0..1) with linear interpolation over the finite values; nullopt when none.
std::optional<double> quantile(std::vector<double> values, double q);

}  // namespace fabdiag
