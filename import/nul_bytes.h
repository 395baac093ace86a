// NUL bytes inside a text input: text tools never print one, but a saved output can hold a few
// (a copy over a flaky link, a log rotated while written). One NUL does not make a 40,000-line
// `nvidia-smi -q` empty: the readers read on and report where the NULs are, as a gap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace fabdiag {

/// The NUL bytes of the lines a reader saw: how many, how many lines held one, the first line.
struct NulTally {
  uint64_t bytes = 0;
  size_t lines = 0;
  size_t first_line = 0;  ///< 1-based; 0 = none seen.
  /// Counts the NULs of `line` (number `line_no`).
  void see(std::string_view line, size_t line_no);
};

/// Adds, when `nuls` saw any, one kParse gap naming SOURCE:LINE of the first: "N NUL byte(s) on
/// M line(s) (binary data inside the text), the first here; those lines are not text and were
/// not understood, the rest was read".
void add_nul_gap(std::vector<Error>& gaps, const std::string& source, const NulTally& nuls);

}  // namespace fabdiag
