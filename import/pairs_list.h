// Import of a hand-made list of 2-node results, one pair a line, as operators keep them after
// running a 2-node benchmark (all_reduce_perf, ib_write_bw) over pairs of nodes:
//   node01,node02     49.36
//   node05,node06     49.28  # crossing TOR
// "hostA,hostB" (or "hostA hostB", "hostA-hostB" is not split: host names hold dashes) then the
// pair's bandwidth in GB/s (10^9 bytes/s; a "GB/s" or "Gb/s" after the number is read as such),
// then an optional "# note". The pairs become a pairwise matrix judged by the pairwise rules
// (perf/pairwise_analysis.h, fabric thresholds: a sparse list where slow pairs may be many).
// docs/fabric.md#pairs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/line_source.h"
#include "core/result.h"
#include "import/input_reader.h"
#include "perf/pairwise.h"

namespace fabdiag {

/// One pair of the list: its first line, and the mean of every line that names it (either order).
struct PairResult {
  std::string a, b;
  double bytes_per_s = 0;  ///< The mean over `measurements` lines.
  std::string note;        ///< The first "# ..." text of the pair, trimmed: "crossing TOR".
  size_t line = 0;         ///< The first line naming the pair.
  size_t measurements = 1;  ///< Lines naming the pair.
};

/// What the list says.
struct PairsListImport {
  std::string source;
  std::vector<PairResult> pairs;  ///< One per unordered pair, in the order first listed.
  perf::PairwiseMatrix matrix;  ///< hosts in the order first named; both directions = the pair's value
  std::vector<Error> gaps;      ///< Lines that are not a pair, a cut last line.
};

/// Reads the list (streamed, holding one entry per distinct pair however many rounds list it). A
/// pair listed twice (either order) keeps the mean of its values. Errors: kParse
/// naming SOURCE:LINE when no line is a pair.
Result<PairsListImport> import_pairs_list(LineSource& lines, const std::string& source, const ReadLimits& limits);

/// The same over a text held in memory.
Result<PairsListImport> import_pairs_list(std::string_view text, const std::string& source);

}  // namespace fabdiag
