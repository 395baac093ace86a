// Import of OSU Micro-Benchmarks output (osu_bw, osu_bibw, osu_mbw_mr, osu_latency and the
// collectives osu_allreduce, osu_alltoall, osu_reduce, ...; MVAPICH's OMB 5.x to 7.x, any MPI):
//   # OSU MPI-CUDA Bandwidth Test v7.2                        title: benchmark, accelerator, version
//   # Send Buffer on DEVICE (D) and Receive Buffer on DEVICE (D)   with -d cuda D D
//   # Datatype: MPI_CHAR.                                     7.x
//   # Size      Bandwidth (MB/s)                              or "Avg Latency(us)" (7.x), "Latency (us)"
//   1                       1.01                              (5.x), -f: "Min Latency(us)  Max Latency(us)
//                                                             Iterations", "Validation" (-c), "MB/s  Messages/s"
// Columns are the header's names (split at two blanks); MB/s is 1e6 bytes/s (OMB's
// definition), latencies are microseconds. Several runs in one file are several tests. A table
// whose "# Size" header is missing is read by its title (bandwidth or latency) and its number
// of fields. mpirun tags, "[0] ", CI clocks and "host: " prefixes are dropped
// (import/mpi_bench_sweep.h). Sources of the format: docs/fabric.md#osu.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/finding.h"
#include "core/line_source.h"
#include "core/result.h"
#include "import/input_reader.h"
#include "import/mpi_bench_sweep.h"

namespace fabdiag {

/// One row of an OSU table: a message size and the other columns as printed.
struct OsuRow {
  uint64_t size_bytes = 0;
  std::vector<std::pair<std::string, double>> values;  ///< {"Bandwidth (MB/s)", 93130.52}, {"Iterations", 1000}.
  std::optional<bool> validation_passed;               ///< The "Validation" column (-c): Pass / Fail.
  size_t line = 0;
  /// The value of column `name`, if the row has it.
  std::optional<double> get(std::string_view name) const;
};

/// What one OSU test (one title and its table) says.
struct OsuTest {
  std::string title;        ///< "OSU MPI-CUDA Bandwidth Test v7.2" (without '#').
  std::string benchmark;    ///< "Bandwidth", "Bi-Directional Bandwidth", "Latency", "Allreduce Latency".
  std::string accelerator;  ///< "CUDA", "ROCM"; "" for host memory.
  std::string version;      ///< "7.2"; "" when not printed.
  std::string buffers;      ///< "Send Buffer on DEVICE (D) and Receive Buffer on DEVICE (D)"; "" when not printed.
  std::string datatype;     ///< "MPI_CHAR"; "" when not printed.
  std::vector<std::string> columns;  ///< After "Size": "Bandwidth (MB/s)", "Avg Latency(us)", ...
  bool header_inferred = false;      ///< No "# Size" line: the columns come from the title.
  std::vector<OsuRow> rows;
  size_t title_line = 0;
  /// "bandwidth" (a MB/s column), "latency" (a latency column), or "" when neither is known.
  std::string kind() const;
  /// Line rates its bandwidth can reach: 2 for the bi-directional test, else 1.
  double directions() const;
};

/// What one OSU output says.
struct OsuImport {
  std::string source;
  /// The first ReadLimits::max_listed tests, and later tests with a finding of their own (no
  /// result, a validation failure, a bandwidth drop) up to as many more.
  std::vector<OsuTest> tests;
  BenchNotListed not_listed;  ///< The other tests, summarised (first column per size).
  size_t lines_passed_over = 0;  ///< Lines of other programs (MPI warnings, shell prompts) passed over.
  std::vector<Error> gaps;       ///< Rows that do not fit their header, a cut last line.
};

/// Reads OSU output (streamed: past the listing bound a finished test is summarised and dropped,
/// so memory follows the listed tests, not the file). Errors: kParse naming SOURCE:LINE when there is no "# OSU ...
/// Test" title nor a "# Size" table header.
Result<OsuImport> import_osu(LineSource& lines, const std::string& source, const ReadLimits& limits);

/// The same over a text held in memory.
Result<OsuImport> import_osu(std::string_view text, const std::string& source);

/// True when `line` (trimmed, tags dropped) is an OSU title: "# OSU MPI Latency Test v5.0",
/// "# OSU MPI-CUDA Bandwidth Test v7.2", "# OSU NCCL Allreduce Latency Test".
bool is_osu_title(std::string_view line);

/// True when `line` is an OSU column header: "# Size" then a bandwidth or latency column
/// ("# Size      Bandwidth (MB/s)", "# Size       Avg Latency(us)", "# Size   MB/s  Messages/s").
bool is_osu_header(std::string_view line);

/// Findings (docs/fabric.md#osu-findings): osu_no_result (warn: a test printed no row),
/// osu_validation_failed (error: -c says Fail at some size), osu_bandwidth_below_line_rate
/// (warn, with --line-rate: best bandwidth >= 1 MiB under 90% of the rate, x2 for bibw) and
/// osu_bandwidth_drop (warn: a size >= 64 KiB under half the best of the smaller ones).
/// Tests not listed are judged as they finish, without the line rate: a test with a finding of its
/// own is kept (listed) instead.
std::vector<Finding> osu_findings(const OsuImport& imp, std::optional<double> line_rate_gbit_per_s);

/// True when `t` alone gives a finding without a line rate (no result, validation Fail, a drop).
bool osu_test_has_finding(const OsuTest& t);

/// The envelope data: {tests[] {title, benchmark, kind, accelerator, version, buffers,
/// datatype, columns[], header_inferred, title_line, results[] {size_bytes, line,
/// bandwidth_bytes_per_s, messages_per_s, latency_avg_s, latency_min_s, latency_max_s,
/// iterations, validation_passed, values{<column>: as printed}}}, lines_passed_over}; past the
/// bound also "tests_not_listed": {tests, first_title_line, last_title_line, sizes[] {title,
/// column, size_bytes, runs, min, mean, max}}.
/// Fields a table does not have are absent.
nlohmann::json osu_data(const OsuImport& imp);

}  // namespace fabdiag
