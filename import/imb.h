// Import of Intel MPI Benchmarks output (IMB-MPI1, IMB-P2P, IMB-NBC; IMB 4.x to 2021.x): the
// banner ("#    Intel(R) MPI Benchmarks 2021.3, MPI-1 part"), then per benchmark and process
// count a block
//   # Benchmarking Allreduce
//   # #processes = 4
//   # ( 2 additional processes waiting in MPI_Barrier)
//          #bytes #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]
//               0         1000         0.03         0.04         0.03
// (PingPong/PingPing: "#bytes #repetitions t[usec] Mbytes/sec"; Sendrecv/Exchange: t_min t_max
// t_avg Mbytes/sec; Uniband/Biband: Mbytes/sec Msg/sec; Barrier: no #bytes; -check: defects),
// and "# All processes entering MPI_Finalize" at the end. IMB's Mbyte is 2^20 bytes in older
// releases and 1e6 in newer ones: it is worked out from each table's own bytes and times
// (docs/fabric.md#imb). Several benchmarks per file; mpirun tags, "[0] ", CI clocks and
// "host: " prefixes are dropped (import/mpi_bench_sweep.h).
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

/// One row of an IMB table: the columns by header name ("#bytes", "#repetitions",
/// "t_avg[usec]", "Mbytes/sec", ...) as printed.
struct ImbRow {
  std::vector<std::pair<std::string, double>> values;
  size_t line = 0;
  /// The value of column `name`, if the row has it.
  std::optional<double> get(std::string_view name) const;
};

/// One "# Benchmarking NAME" block at one process count.
struct ImbBenchmark {
  std::string name;                  ///< "PingPong", "Allreduce", "Sendrecv".
  std::optional<int64_t> processes;  ///< "# #processes = N"; nullopt when not printed.
  std::string waiting;               ///< "2 additional processes waiting in MPI_Barrier"; "" when none.
  std::vector<std::string> columns;  ///< As printed: "#bytes", "#repetitions", "t[usec]", "Mbytes/sec".
  std::vector<ImbRow> rows;
  size_t line = 0;  ///< 1-based line of "# Benchmarking".
  /// Bytes of IMB's "Mbyte" in this table: 1048576 or 1000000, worked out from the rows'
  /// bytes and times (mbyte_inferred), else from the release; 1e6 when neither tells.
  double mbyte_bytes = 1e6;
  bool mbyte_inferred = false;
  /// Line rates its Mbytes/sec can reach: 2 for Sendrecv, Exchange and Biband (both directions
  /// counted), else 1.
  double directions() const;
};

/// What one IMB output says.
struct ImbImport {
  std::string source;
  std::string release;  ///< "2021.3", "2019 Update 6", "4.1"; "" when the banner is not in the input.
  std::string part;     ///< "MPI-1", "P2P", "NBC"; "".
  /// The first ReadLimits::max_listed blocks, and later blocks with a finding of their own (no
  /// result, defects, a bandwidth drop) up to as many more.
  std::vector<ImbBenchmark> benchmarks;
  /// The other blocks, summarised as they finish (Mbytes/sec per size, else the time column).
  BenchNotListed not_listed;
  bool finalized = false;        ///< "# All processes entering MPI_Finalize" was read.
  size_t lines_passed_over = 0;  ///< Lines of other programs passed over.
  std::vector<Error> gaps;       ///< Rows that do not fit their header, a cut run or last line.
};

/// Reads IMB output (streamed). A run with its banner but without the MPI_Finalize line is cut:
/// a kParse gap naming the last row read. Errors: kParse naming SOURCE:LINE when there is no
/// "# Benchmarking" block nor the banner.
Result<ImbImport> import_imb(LineSource& lines, const std::string& source, const ReadLimits& limits);

/// The same over a text held in memory.
Result<ImbImport> import_imb(std::string_view text, const std::string& source);

/// True when `line` (trimmed, tags dropped) is IMB's: its banner ("Intel(R) MPI Benchmarks",
/// "Intel (R) MPI Benchmarks") or a "# Benchmarking NAME" title.
bool is_imb_marker(std::string_view line);

/// Findings (docs/fabric.md#imb-findings): imb_no_result (warn: a block printed no row),
/// imb_defects (error: the -check "defects" column is non-zero), imb_bandwidth_below_line_rate
/// (warn, with --line-rate: best Mbytes/sec >= 1 MiB under 90% of the rate, x2 where both
/// directions count) and imb_bandwidth_drop (warn: a size >= 64 KiB under half the best of the
/// smaller ones).
std::vector<Finding> imb_findings(const ImbImport& imp, std::optional<double> line_rate_gbit_per_s);

/// True when `b` alone gives a finding without a line rate (no result, defects, a drop).
bool imb_block_has_finding(const ImbBenchmark& b);

/// The envelope data: {release, part, finalized, lines_passed_over, benchmarks[] {name,
/// processes, waiting, line, columns[], mbyte_bytes, mbyte_inferred, results[] {size_bytes,
/// repetitions, time_s (t[usec], or t_avg), time_min_s, time_max_s, time_avg_s,
/// bandwidth_bytes_per_s, messages_per_s, defects, line, values{<column>: as printed}}}}.
/// Fields a table does not have are absent. Past the bound also "benchmarks_not_listed"
/// (BenchNotListed::to_json).
nlohmann::json imb_data(const ImbImport& imp);

}  // namespace fabdiag
