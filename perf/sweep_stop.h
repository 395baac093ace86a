// When a collective sweep may end before its largest size: triage's early stop
// (docs/localization.md#sweeps-that-stop-early). The caller (the triage walk) knows the fault and
// sets the limit; the bench only compares each finished size against it. Every rank holds the
// same row after a size (its time is the slowest rank's), so every rank stops at the same size
// without another message.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/result.h"

namespace fabdiag::perf {

/// The limit (BenchOptions::stop). Off unless below_busbw_bytes_per_s > 0.
struct SweepStop {
  /// A finished size whose busbw (out of place, bytes/s) is below this ends the sweep; 0 = never.
  double below_busbw_bytes_per_s = 0;
  /// Sizes below this never end it (a small message is latency-bound whatever the links do).
  uint64_t min_bytes = 0;
  /// Why the limit is what it is, recorded with the stop ("the screen names node03 slow; busbw
  /// below 0.54 x the pair reference 295 MB/s").
  std::string why;
};

/// Errors (kInvalidArgument): a limit that is negative or not finite.
Status validate_sweep_stop(const SweepStop& s);

/// What a stopped sweep records (BenchResult::stopped_early; JSON `stopped_early`).
struct EarlyStop {
  uint64_t size_bytes = 0;               ///< The size that showed the fault: the last one run.
  double busbw_bytes_per_s = 0;          ///< Its busbw (out of place).
  double threshold_bytes_per_s = 0;      ///< SweepStop::below_busbw_bytes_per_s.
  std::vector<uint64_t> sizes_not_run;   ///< The sweep's larger sizes, skipped.
  std::string why;                       ///< SweepStop::why.
};

/// Whether a finished size ends the sweep: the limit is on, size_bytes >= min_bytes, busbw is
/// finite and below the limit, and, when the sweep runs a skew probe (`probe_expected`), the
/// probe ran at this size (`probe_ran`), so a stopped sweep still has the straggler evidence of
/// the sizes it ran.
bool stops_sweep(const SweepStop& s, uint64_t size_bytes, double busbw_bytes_per_s, bool probe_expected,
                 bool probe_ran);

}  // namespace fabdiag::perf
