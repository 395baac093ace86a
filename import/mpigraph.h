// Import of mpiGraph's text output (LLNL/mpiGraph: `srun -n N ./mpiGraph 1048576 10 10 >
// mpiGraph.out`, one task per node): the preamble ("START mpiGraph v1.5", "MsgSize\t1048576",
// "Times\t10", "Window\t10", "Procs\t16"), progress lines, then two N x N tables of bandwidth
//   Send max\t<MB/s>            Send avg\t<MB/s>
//   Send\thost1:0\thost2:1\t...                     column k: the receiver
//   host1:0 to\t0.000\t2805.381\t...                row j: the sender, MB/s j -> k
//   Recv max / Recv avg, then "Recv\t..." and "host1:0 from\t..." rows (j received from k)
// and "END mpiGraph". mpiGraph's MB is 2^20 bytes (mpiGraph.c: MBsec = size * 1e6 / 2^20 over
// microseconds); the diagonal prints 0.000 (not measured). Tabs may have become blanks in a
// paste. The Send table (or the Recv table, transposed, when Send is missing) becomes the
// pairwise matrix judged by perf/pairwise_analysis.h, so `fabdiag triage --from` names a slow
// node or link of an mpiGraph run. The HTML report crunch_mpiGraph writes holds the same
// numbers; read the .out file. docs/fabric.md#mpigraph.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/line_source.h"
#include "core/result.h"
#include "import/input_reader.h"
#include "perf/pairwise.h"

namespace fabdiag {

/// One of mpiGraph's two tables.
struct MpiGraphTable {
  std::optional<double> max_mb_per_s, avg_mb_per_s;  ///< "Send max" / "Send avg" lines (MB = 2^20 bytes).
  std::vector<std::string> columns;                  ///< "host1:0", ... as printed in the header row.
  /// rows[j][k]: MB/s; nullopt on the diagonal (0.000), past a cut row's end and for rows not printed.
  std::vector<std::vector<std::optional<double>>> rows;
  size_t header_line = 0;
  size_t rows_read = 0;
};

/// What one mpiGraph output says.
struct MpiGraphImport {
  std::string source;
  std::string version;                ///< "1.5" of "START mpiGraph v1.5"; "" when not in the input.
  std::optional<uint64_t> msg_size_bytes;
  std::optional<int64_t> times, window, procs;
  std::vector<std::string> hosts;     ///< Per rank, the host of "host:rank" (header order).
  MpiGraphTable send, recv;
  bool ended = false;                 ///< "END mpiGraph" was read.
  /// The pairwise matrix: hosts = unique_rank_labels(hosts), [src][dst] in bytes/s from the
  /// Send table (from the Recv table transposed when Send has no rows); NaN where not measured.
  perf::PairwiseMatrix matrix;
  std::string matrix_from;            ///< "send", "recv".
  std::vector<Error> gaps;            ///< Rows not read, missing rows, a cut run or last line.
};

/// True when `line` (trimmed) is mpiGraph's: "START mpiGraph", "END mpiGraph", "Send max",
/// "Recv max" followed by a number.
bool is_mpigraph_marker(std::string_view line);

/// Reads mpiGraph output (streamed; a table of more than 2048 ranks is a gap, not read). Errors: kParse naming SOURCE:LINE when there is no Send or
/// Recv table with at least one row.
Result<MpiGraphImport> import_mpigraph(LineSource& lines, const std::string& source, const ReadLimits& limits);

/// The same over a text held in memory.
Result<MpiGraphImport> import_mpigraph(std::string_view text, const std::string& source);

}  // namespace fabdiag
