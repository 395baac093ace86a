// Robust trend of a series of nightly values (docs/localization.md#drift): the Theil-Sen slope
// (median of the slopes of every pair of points, insensitive to one bad night), the share of
// point pairs that fall (Mann-Kendall's sign statistic as a fraction) and the slope in units of
// its standard error from the MAD of the night-to-night steps, so a steady decline is told from
// noise that happens to end low.
#pragma once

#include <optional>
#include <vector>

namespace fabdiag::baseline {

/// Fewest values (history plus the current run) a trend is judged on.
inline constexpr size_t kMinTrendRuns = 4;
/// A decline of at least this fraction of the median per run is drift (1 %/night).
inline constexpr double kDriftPerRun = 0.01;
/// ... when at least this share of the point pairs fall (0.9: 14 of the 15 pairs of 6 nights).
inline constexpr double kDriftFallingShare = 0.9;

/// Robust sigma of `values`: 1.4826 x MAD x b_n, b_n the small-sample correction of Croux and
/// Rousseeuw (1992) (1.495 for 3 values, 1.206 for 5, n / (n - 0.8) above 9), since the MAD of
/// a few values underestimates the spread. 0 with fewer than 2 values.
double robust_sigma(const std::vector<double>& values);

/// Robust sigma of the run-to-run noise of a series, trend removed: robust_sigma of the steps
/// v[i] - v[i-1], over sqrt(2). 0 with fewer than 3 values.
double step_sigma(const std::vector<double>& values);

/// Trend of equally spaced values (one per run, oldest first).
struct Trend {
  double slope = 0;           ///< Theil-Sen slope, value units per run.
  double relative_slope = 0;  ///< slope / median of the values (fraction per run).
  double falling_share = 0;   ///< Pairs i < j with v[j] < v[i], over all pairs (0..1).
  /// slope / its standard error; the error is sigma / sqrt(sum (i - mean i)^2) with sigma the
  /// larger of noise_sigma and step_sigma(values) (-inf for a falling series whose steps are
  /// all equal and no noise_sigma, 0 for a flat one).
  double slope_z = 0;
  size_t runs = 0;            ///< Values used.
};

/// The trend of `values`; nullopt with fewer than 2 values or a median <= 0. `noise_sigma` (the
/// value units' run-to-run sigma known from elsewhere, 0 = none) is the floor of the sigma
/// the slope's error is computed from.
std::optional<Trend> fit_trend(const std::vector<double>& values, double noise_sigma = 0);

/// True when `t` is a decline: at least kMinTrendRuns values, relative_slope <= -kDriftPerRun,
/// falling_share >= kDriftFallingShare and slope_z <= -spread_k (the diff's k: the fall is
/// beyond k standard errors of the run-to-run noise).
bool is_drift(const Trend& t, double spread_k);

}  // namespace fabdiag::baseline
