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

/// What one perftest output says.
struct PerftestImport {
  std::string source;
  std::string test;         ///< "RDMA_Write BW Test", "RDMA_Read Latency Test".
  bool latency = false;     ///< A latency table (t_min ...), else bandwidth.
  std::vector<std::pair<std::string, std::string>> settings;  ///< Header fields: {"Device", "mlx4_0"}, {"Mtu", "1024[B]"}, ...
  std::vector<std::string> columns;  ///< The table's column names without units.
  std::vector<std::string> units;    ///< Their units: "Gb/sec", "MB/sec", "usec", "Mpps", "".
  std::vector<PerftestRow> rows;
  std::vector<Error> gaps;
  /// The value of header field `name` ("Device"), or "".
  std::string setting(std::string_view name) const;
};

/// Reads perftest text (streamed). Errors: kParse naming SOURCE:LINE when there is no result
/// table header ("#bytes #iterations ...") and no "... BW Test" / "... Latency Test" title.
Result<PerftestImport> import_perftest(LineSource& lines, const std::string& source, const ReadLimits& limits);

/// The same over a text held in memory.
Result<PerftestImport> import_perftest(std::string_view text, const std::string& source);

/// Findings (docs/fabric.md#perftest-findings): perftest_no_result (warn: the test's table has
/// no row: the run did not finish), perftest_zero_bandwidth (warn: a row moved data at 0
/// average), perftest_peak_not_measured (info: peak 0 with a non-zero average, duration mode).
std::vector<Finding> perftest_findings(const PerftestImport& imp);

/// The envelope data: {test, kind, device, link_type, mtu_B, gid_index, settings{}, columns[]
/// {name, unit}, rows[] {bytes, iterations, <column>: value, line}, duration_mode}.
nlohmann::json perftest_data(const PerftestImport& imp);

}  // namespace fabdiag
