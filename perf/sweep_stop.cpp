// When a collective sweep may end before its largest size (perf/sweep_stop.h).
#include "perf/sweep_stop.h"

#include <cmath>

namespace fabdiag::perf {

Status validate_sweep_stop(const SweepStop& s) {
  if (!std::isfinite(s.below_busbw_bytes_per_s) || s.below_busbw_bytes_per_s < 0)
    return make_error(ErrorCode::kInvalidArgument,
                      "early-stop busbw limit must be a finite number >= 0 bytes/s, got " +
                          std::to_string(s.below_busbw_bytes_per_s));
  return Ok{};
}

bool stops_sweep(const SweepStop& s, uint64_t size_bytes, double busbw_bytes_per_s, bool probe_expected,
                 bool probe_ran) {
  if (!(s.below_busbw_bytes_per_s > 0) || size_bytes < s.min_bytes) return false;
  if (probe_expected && !probe_ran) return false;
  return std::isfinite(busbw_bytes_per_s) && busbw_bytes_per_s < s.below_busbw_bytes_per_s;
}

}  // namespace fabdiag::perf
