// Importer of nccl-tests result tables (all_reduce_perf, alltoall_perf, ...) into the
// fabdiag.bench/1 data shape, so saved nccl-tests runs can be baselined and diffed like
// `fabdiag bench` results.
//
// Input: the text nccl-tests prints (https://github.com/NVIDIA/nccl-tests), possibly with other
// log lines (NCCL INFO, mpirun) mixed in. Both layouts are read:
//   older: no "# nThread" / "# Using devices" preamble, an "error" column (max relative error)
//          per half, columns size count type redop time algbw busbw error (x2);
//   newer: preamble, a "root" column and a "#wrong" column (count of wrong elements, "N/A" when
//          not checked): size count type redop root time algbw busbw #wrong (x2).
// Rows without a redop field (older alltoall) are accepted. '#' lines are never data rows.
// Units: nccl-tests prints time in microseconds and algbw/busbw in GB/s (1e9 bytes/s); they are
// converted to seconds and bytes/s here.
//
// Which collective a table measures is taken, best first, from a "# Collective test concluded:
// <program>" line after it, a "### <program>" section marker or a command line naming the
// program (".../all_reduce_perf -b 8 ...") before it, else from the caller's hint.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/finding.h"
#include "core/result.h"

namespace fabdiag::baseline {

/// Print resolution of nccl-tests' algbw/busbw columns: two decimals of GB/s = 1e7 bytes/s.
inline constexpr double kNcclTestsBandwidthResolutionBytesPerS = 1e7;

/// One half of an nccl-tests row: the out-of-place or the in-place measurement.
struct NcclTestsHalf {
  std::optional<double> time_s;             ///< "time" column (us) in seconds.
  std::optional<double> algbw_bytes_per_s;  ///< "algbw" column (GB/s) in bytes/s.
  std::optional<double> busbw_bytes_per_s;  ///< "busbw" column (GB/s) in bytes/s.
  /// "#wrong" column (newer layout): elements with a wrong value. nullopt when printed "N/A"
  /// (not checked) and in the older layout.
  std::optional<uint64_t> wrong_elements;
  /// "error" column (older layout): the largest relative error seen, not a count. nccl-tests
  /// of that generation did not check in-place alltoall, so 1e+00 there is not corruption;
  /// the verdict is the "Out of bounds values" summary line.
  std::optional<double> max_error;
};

/// One data row of a table (one message size).
struct NcclTestsRow {
  uint64_t size_bytes = 0;  ///< "size" column, bytes per rank buffer as nccl-tests defines it.
  uint64_t count = 0;       ///< "count" column, elements.
  std::string dtype;        ///< "type" column: "float", "half", "bfloat16", ...
  std::string redop;        ///< "sum", "none", ...; empty when the row has no redop field.
  std::optional<int64_t> root;  ///< "root" column (newer layout; -1 = not rooted).
  NcclTestsHalf out_of_place;
  std::optional<NcclTestsHalf> in_place;  ///< nullopt when the table has no in-place half.
  size_t line = 0;          ///< 1-based line number in the input.
};

/// The two column layouts nccl-tests has printed.
enum class NcclTestsLayout {
  kErrorColumn,  ///< Older: "error" column per half (max relative error).
  kWrongColumn,  ///< Newer: "#wrong" column per half (count of wrong elements).
};

/// One result table: one nccl-tests program run over a size sweep.
struct NcclTestsTable {
  std::string program;     ///< "all_reduce_perf"; empty when the input does not say.
  std::string collective;  ///< fabdiag name ("all_reduce", "alltoall"); "unknown" if not known.
  NcclTestsLayout layout = NcclTestsLayout::kErrorColumn;
  std::vector<std::string> rank_hosts;  ///< Host of each rank ("# Using devices"); may be empty.
  std::optional<int64_t> warmup_iters;  ///< "warmup iters: W" of the "# nThread" line.
  std::optional<int64_t> iters;         ///< "iters: I" of the "# nThread" line.
  std::string nccl_version;             ///< "2.26.6+cuda12.8" from "NCCL version ..."; may be empty.
  std::vector<NcclTestsRow> rows;
  std::optional<uint64_t> out_of_bounds_values;  ///< "# Out of bounds values : N OK|FAILED".
  bool out_of_bounds_ok = true;                  ///< false when that line says FAILED.
  std::optional<double> avg_busbw_bytes_per_s;   ///< "# Avg bus bandwidth : X" (GB/s) in bytes/s.
  size_t header_line = 0;  ///< 1-based line of the column-name header.
};

/// Everything read from one input.
struct NcclTestsImport {
  std::vector<NcclTestsTable> tables;
  /// What could not be read (rows that do not match their header, tables cut short, tables
  /// whose collective is unknown); `source` is "FILE:LINE".
  std::vector<Error> gaps;
};

/// Parses every result table in `text`. `source` names the input in errors ("run.log").
/// `collective_hint` ("all_reduce", "all_reduce_perf", "allreduce") names the collective of
/// tables whose input does not say it.
/// Errors: kParse naming `source` when no result table is found; kInvalidArgument when the
/// hint is not a collective nccl-tests knows.
Result<NcclTestsImport> parse_nccl_tests(std::string_view text, const std::string& source,
                                         const std::string& collective_hint = {});

/// fabdiag collective name for an nccl-tests program or collective spelling:
/// "all_reduce_perf", "all_reduce_perf_mpi", "allreduce", "all_reduce" -> "all_reduce".
/// nullopt for names nccl-tests does not have.
std::optional<std::string> normalize_collective_name(std::string_view name);

/// The fabdiag.bench/1 data object of one table: collective, backend "nccl", dtype, ranks
/// (null when the input does not list ranks), hosts (per rank), warmup, iters (null when not
/// printed), busbw_factor, busbw_resolution_bytes_per_s, results[] (out-of-place values as
/// size_bytes/count/time_s/algbw_bytes_per_s/busbw_bytes_per_s/wrong_elements/per_rank_time_s
/// = [], plus redop, root, max_error and an "in_place" object of the same fields), and
/// "nccl_tests" {program, layout, header_line, nccl_version, out_of_bounds_values,
/// out_of_bounds_ok, avg_busbw_bytes_per_s}.
nlohmann::json to_bench_data(const NcclTestsTable& table);

/// The data of the one fabdiag.bench/1 envelope of an import: the table's bench data when
/// there is one table, else {"tables": [bench data, ...]} in input order.
nlohmann::json to_bench_envelope_data(const NcclTestsImport& import);

/// Findings of an import: an error `nccl_tests_wrong_results` (L1) per table whose
/// "Out of bounds values" line is non-zero or FAILED, or whose "#wrong" column is non-zero.
/// The older "error" column is never judged (see NcclTestsHalf::max_error).
std::vector<Finding> nccl_tests_findings(const NcclTestsImport& import, const std::string& source);

/// The hosts of the ranks of every table ("#  Rank  0 Group  0 Pid ... on HOST device ..."),
/// each once, in first-seen order; empty names skipped. The envelope's `hosts`: the data
/// comes from the nodes of the nccl-tests run, not from the one that imports it.
std::vector<std::string> nccl_tests_hosts(const NcclTestsImport& import);

}  // namespace fabdiag::baseline
