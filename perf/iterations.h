// The repetition flags every benchmark shares: -n (timed iterations) and -w (untimed warm-up
// iterations) of `fabdiag bench` and `fabdiag pairwise`, checked in one place.
#pragma once

#include "core/result.h"

namespace fabdiag::perf {

/// Checks -n and -w: `iters` timed repetitions (>= 1) after `warmup_iters` untimed ones (>= 0).
/// Errors (kInvalidArgument): "iterations (-n) must be at least 1, got N", "warm-up iterations
/// (-w) must be >= 0, got N".
Status validate_iterations(int iters, int warmup_iters);

}  // namespace fabdiag::perf
