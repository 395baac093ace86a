// Import of perftest's result text (`ib_write_bw`, `ib_read_bw`, `ib_send_bw`, `ib_atomic_bw`,
// `raw_ethernet_bw` and the `*_lat` tests, either side): the header block ("RDMA_Write BW Test",
// "Device : mlx4_0", "Mtu : 1024[B]", "Link type : Ethernet", "GID index : 2", ...) and the
// result table, bandwidth
//    #bytes  #iterations  BW peak[Gb/sec]  BW average[Gb/sec]  MsgRate[Mpps]
// ("[MB/sec]" without --report_gbits) or latency
//    #bytes #iterations  t_min[usec]  t_max[usec]  t_typical[usec]  t_avg[usec]  t_stdev[usec]  99% percentile[usec] ...
// In duration mode (-D) perftest does not measure the peak and prints "0.00": not a failure.
// docs/fabric.md#perftest.
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

/// One row of the result table: the columns as printed, by header name ("#bytes",
/// "#iterations", "BW peak", "BW average", "MsgRate", "t_min", "t_avg", "99% percentile", ...).
struct PerftestRow {
  uint64_t bytes = 0;
  uint64_t iterations = 0;
  std::vector<std::pair<std::string, double>> values;  ///< Other columns: {"BW average", 36.31}, units in the header.
  size_t line = 0;
  /// The value of column `name`, if the row has it.
  std::optional<double> get(std::string_view name) const;
};

/// One run of a perftest program: its title, header fields and result table. A file may hold
/// many (concatenated outputs, a loop's pastes): a new title, or a "#bytes" header after rows,
/// starts the next run.
struct PerftestRun {
  std::string test;         ///< "RDMA_Write BW Test", "RDMA_Read Latency Test".
  bool latency = false;     ///< A latency table (t_min ...), else bandwidth.
  std::vector<std::pair<std::string, std::string>> settings;  ///< Header fields: {"Device", "mlx4_0"}, {"Mtu", "1024[B]"}, ...
  std::vector<std::string> columns;  ///< The table's column names without units.
  std::vector<std::string> units;    ///< Their units: "Gb/sec", "MB/sec", "usec", "Mpps", "".
  std::vector<PerftestRow> rows;
  size_t first_line = 0;    ///< The run's first line read (its title, a field or its header).
  /// The value of header field `name` ("Device"), or "".
  std::string setting(std::string_view name) const;
  /// The column a run is summarised and ranked by: "BW average", else "t_avg", else the first
  /// value column; "" when the table has none.
  std::string main_column() const;
};

/// What one perftest output says.
struct PerftestImport {
  std::string source;
  /// The first ReadLimits::max_listed runs, and later runs with a warning of their own (no
  /// result, zero bandwidth: perftest_run_has_warning()) up to as many more; all when
  /// max_listed is 0.
  std::vector<PerftestRun> runs;
  /// The other runs, summarised as they finish: per test and size the runs and the main
  /// column's min / mean / max (title lines are the runs' first lines).
  BenchNotListed not_listed;
  size_t not_listed_warned = 0;  ///< Runs of not_listed that had a warning of their own.
  /// The worst of those: the lowest BW average (the highest t_avg for latency), a run with no
  /// row before any that has one. Valid when not_listed_warned > 0.
  struct Worst {
    std::string test;
    size_t line = 0;  ///< Its first line.
    std::optional<double> value;  ///< Its main column's worst value; none for a run without a row.
    std::string column;
  } worst_not_listed;
  bool duration_mode = false;  ///< Some run (listed or not) printed peak 0 next to a non-zero average.
  std::vector<Error> gaps;
};

/// True when `run` alone gives a warning: no result row, or a row of 0 average bandwidth.
bool perftest_run_has_warning(const PerftestRun& run);

/// Reads perftest text (streamed: past the listing bound a finished run is summarised and
/// dropped, so memory follows the listed runs, not the file). Errors: kParse naming SOURCE:LINE when there is no result
/// table header ("#bytes #iterations ...") and no "... BW Test" / "... Latency Test" title.
Result<PerftestImport> import_perftest(LineSource& lines, const std::string& source, const ReadLimits& limits);

/// The same over a text held in memory.
Result<PerftestImport> import_perftest(std::string_view text, const std::string& source);

/// Findings (docs/fabric.md#perftest-findings), per listed run: perftest_no_result (warn: the
/// test's table has no row: the run did not finish), perftest_zero_bandwidth (warn: a row moved
/// data at 0 average); once: perftest_peak_not_measured (info: peak 0 with a non-zero average,
/// duration mode), perftest_runs_not_listed_warned (warn: runs summarised past the bound that had
/// a warning of their own, counted, the worst named).
std::vector<Finding> perftest_findings(const PerftestImport& imp);

/// The envelope data: the first run's {test, kind, device, link_type, mtu_B, gid_index,
/// settings{}, columns[] {name, unit}, rows[] {bytes, iterations, <column>: value, line}},
/// duration_mode; with more runs "later_runs": [the same fields per listed run]; past the bound
/// "runs_not_listed": {tests, first_title_line, last_title_line, sizes[] {title, column,
/// size_bytes, runs, min, mean, max}, warned}.
nlohmann::json perftest_data(const PerftestImport& imp);

}  // namespace fabdiag
