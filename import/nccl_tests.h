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
//   2.17+: a "# nccl-tests version V nccl-headers=C nccl-library=C" line, "# Collective test
//          starting: <program>", rank lines with bus ids, optional per-iteration columns
//          (i_min i_max i_p99 i_cv% per half, -I), "cputime" for "time" (-C) and a trailing
//          timestamp (two tokens);
//   JSON:  the file `-J FILE` writes (one object: version 2, nccl_version, config.devices[],
//          results[] with out_of_place/in_place {time, alg_bw, bus_bw, nwrong} and their
//          *_per_iter statistics) and the one-line form of nccl-tests PR #318
//          ({"identifier": "nccl-tests structured output", "benchmark": [{"<size>": {oop_*,
//          ip_*}}]}), either mixed with other output; a document cut short keeps its complete
//          records and reports the cut one as a gap (import/nccl_tests_json.cpp).
// Rows without a redop field (older alltoall) are accepted. '#' lines are never data rows.
// Rows without any header line are read when their shape is one of the two layouts (13 fields
// newer, 12 older). mpirun --tag-output tags ("[1,0]<stdout>:") are dropped wherever they are.
// The "HOST: " prefix pdsh and clush put before every line (import/host_prefix.h) is dropped
// too: each host's lines are read as a stream of their own (the hosts' outputs interleave),
// and a rank line that names no host takes the prefix's.
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
#include "core/line_source.h"
#include "core/result.h"
#include "import/input_reader.h"

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
  /// Per-iteration statistics (-I text columns i_min i_max i_p99 i_cv%, or JSON
  /// *_per_iter): seconds, cv in percent; nullopt when not printed.
  std::optional<double> iter_min_s, iter_max_s, iter_p99_s, iter_cv_pct;
  /// JSON only: per process, its slowest iteration (per_process_max_times_us, max over the
  /// iterations), seconds; empty when not written.
  std::vector<double> per_process_max_s;
};

/// One "#  Rank  0 Group  0 Pid 1935208 on node01 device  0 [000f:01:00] NVIDIA GB10" line
/// (or a JSON config.devices[] entry).
struct NcclTestsRank {
  int64_t rank = -1;
  std::string host;     ///< "node01"; empty when not printed.
  int64_t device = -1;  ///< CUDA device index on its host.
  std::string bus_id;   ///< "000f:01:00" (PCI domain:bus:device) as printed; may be empty.
  std::string gpu;      ///< "NVIDIA GB10".
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
  std::vector<NcclTestsRank> ranks;     ///< The same lines in full, in the order printed.
  std::string nccl_version;             ///< "2.26.6+cuda12.8" from "NCCL version ..."; may be empty.
  std::string tests_version;            ///< "2.17.6" of "# nccl-tests version ..."; may be empty.
  /// NCCL_VERSION_CODE of nccl-headers= / nccl-library= (22803 = 2.28.3), or JSON nccl_version.
  std::optional<int64_t> nccl_headers_code, nccl_library_code;
  std::string source_format = "text";   ///< "text", "json" (-J file) or "json-pr318".
  /// "nccl"; "mpi" for fabdiag's own `bench --backend mpi --format nccl-tests` table, whose
  /// "# fabdiag: backend mpi" line says so (report/nccl_tests_table.h).
  std::string backend = "nccl";
  /// The table's "# fabdiag: PARTIAL: ..." line (fabdiag's own table of a cut run): a partial
  /// sweep, kept even with no row; false for nccl-tests output.
  bool partial = false;
  bool header_inferred = false;         ///< No header line: the columns come from the rows' shape.
  bool collective_inferred = false;     ///< No program name: all_reduce known by its busbw/algbw factor (> 1).
  bool summary_cut = false;             ///< The "# Avg bus bandwidth" line is cut (no value).
  /// The command line that ran the program, when the input shows it ("NCCL_P2P_DISABLE=1
  /// ./alltoall_perf -g 8", "mpirun -np 2 -x NCCL_IB_HCA=mlx5_0 ./all_reduce_perf"): its
  /// NCCL_* settings, and the GPUs it asks for (-np x -t x -g; nullopt when it names none).
  std::vector<std::pair<std::string, std::string>> command_env;
  std::optional<int64_t> command_gpus;
  std::vector<NcclTestsRow> rows;
  std::optional<uint64_t> out_of_bounds_values;  ///< "# Out of bounds values : N OK|FAILED".
  bool out_of_bounds_ok = true;                  ///< false when that line says FAILED.
  std::optional<double> avg_busbw_bytes_per_s;   ///< "# Avg bus bandwidth : X" (GB/s) in bytes/s.
  size_t header_line = 0;  ///< 1-based line of the column-name header.
};

/// One message size of the tables not listed: how its out-of-place busbw ranged over the runs.
struct NcclTestsRepeat {
  std::string collective;  ///< As NcclTestsTable::collective.
  std::string dtype;
  uint64_t size_bytes = 0;
  size_t runs = 0;                  ///< Rows of this collective, dtype and size.
  size_t runs_with_busbw = 0;       ///< Of those, rows with a busbw value.
  double busbw_min_bytes_per_s = 0, busbw_max_bytes_per_s = 0, busbw_sum_bytes_per_s = 0;
};

/// The result tables past the listing bound (ReadLimits::max_listed; a huge log of repeated
/// sweeps), summarised: counted, their hosts kept, each size's busbw as min/mean/max.
struct NcclTestsNotListed {
  size_t tables = 0;
  size_t first_header_line = 0, last_header_line = 0;
  size_t wrong_tables = 0;           ///< Of those, tables with wrong results (see findings).
  std::vector<NcclTestsRepeat> sizes;  ///< Per collective, dtype and size, in first-seen order.
  std::vector<std::string> hosts;      ///< Rank hosts, each once.
};

/// Everything read from one input.
struct NcclTestsImport {
  /// The first ReadLimits::max_listed tables, and tables with wrong results up to as many more.
  std::vector<NcclTestsTable> tables;
  NcclTestsNotListed not_listed;  ///< The other tables, summarised.
  /// What could not be read (rows that do not match their header, tables cut short, sections
  /// named after a program that hold no table, tables whose collective is unknown); `source`
  /// is "FILE:LINE". Past ReadLimits::max_listed of one kind, summarised (core/repeats.h).
  std::vector<Error> gaps;
};

/// Parses every result table in `lines`, streamed: memory is the listed tables and one table
/// being read, never the input. `source` names the input in errors ("run.log").
/// `collective_hint` ("all_reduce", "all_reduce_perf", "allreduce") names the collective of
/// tables whose input does not say it. A "### <program>" section (all_reduce_perf, ...) that
/// ends before any result table (the output cut right after its header) is a kParse gap.
/// Errors: kParse naming `source` when no result table is found; kInvalidArgument when the
/// hint is not a collective nccl-tests knows; the read error of `lines`.
Result<NcclTestsImport> parse_nccl_tests(LineSource& lines, const std::string& source,
                                         const std::string& collective_hint, const ReadLimits& limits);

/// The same over a text held in memory, with the default limits.
Result<NcclTestsImport> parse_nccl_tests(std::string_view text, const std::string& source,
                                         const std::string& collective_hint = {});

/// fabdiag collective name for an nccl-tests program or collective spelling:
/// "all_reduce_perf", "all_reduce_perf_mpi", "allreduce", "all_reduce" -> "all_reduce".
/// nullopt for names nccl-tests does not have.
std::optional<std::string> normalize_collective_name(std::string_view name);

/// The fabdiag.bench/1 data object of one table: collective, backend ("nccl", or the table's own), dtype, ranks
/// (null when the input does not list ranks), hosts (per rank), warmup, iters (null when not
/// printed), busbw_factor, busbw_resolution_bytes_per_s, results[] (out-of-place values as
/// size_bytes/count/time_s/algbw_bytes_per_s/busbw_bytes_per_s/wrong_elements/per_rank_time_s
/// = [], plus redop, root, max_error and an "in_place" object of the same fields), and
/// "nccl_tests" {program, layout, header_line, nccl_version, tests_version, nccl_headers_code,
/// nccl_library_code, source_format, header_inferred, collective_inferred, summary_cut, devices: [{rank, host,
/// device, bus_id, gpu}], out_of_bounds_values, out_of_bounds_ok, avg_busbw_bytes_per_s}.
/// A half with per-iteration statistics also has "per_iteration" {min_s, max_s, p99_s,
/// cv_pct, per_process_max_s: []}. Also in "nccl_tests": command_env {NAME: value},
/// command_gpus, busbw_factor_observed (the median busbw/algbw of the rows, null without one)
/// and ranks_implied (the n of (n-1)/n or 2(n-1)/n that ratio gives; null when it fits none).
nlohmann::json to_bench_data(const NcclTestsTable& table);

/// The median busbw/algbw of the rows' out-of-place halves whose algbw is at least 1 GB/s
/// (enough printed digits), rounded to 4 decimals; nullopt without such a row. 2(n-1)/n for
/// all_reduce, (n-1)/n for all_gather, reduce_scatter and alltoall, 1 for the others.
std::optional<double> busbw_factor_of_rows(const NcclTestsTable& table);

/// The data of the one fabdiag.bench/1 envelope of an import: the table's bench data when
/// there is one table, else {"tables": [bench data, ...]} in input order; with tables not
/// listed, also "tables_not_listed": {tables, first_header_line, last_header_line,
/// wrong_tables, hosts, sizes: [{collective, dtype, size_bytes, runs, busbw_min_bytes_per_s,
/// busbw_mean_bytes_per_s, busbw_max_bytes_per_s}]}.
nlohmann::json to_bench_envelope_data(const NcclTestsImport& import);

/// Findings of an import: an error `nccl_tests_wrong_results` (L1) per table whose
/// "Out of bounds values" line is non-zero or FAILED, or whose "#wrong" column is non-zero,
/// and one more for the wrong tables among those not listed.
/// The older "error" column is never judged (see NcclTestsHalf::max_error).
std::vector<Finding> nccl_tests_findings(const NcclTestsImport& import, const std::string& source);

/// The hosts of the ranks of every table ("#  Rank  0 Group  0 Pid ... on HOST device ..."),
/// each once, in first-seen order; empty names skipped. The envelope's `hosts`: the data
/// comes from the nodes of the nccl-tests run, not from the one that imports it.
std::vector<std::string> nccl_tests_hosts(const NcclTestsImport& import);

/// "2.28.3" for NCCL_VERSION_CODE 22803 (codes from 2.9 on: major*10000 + minor*100 + patch;
/// older: major*1000 + minor*100 + patch); empty for a code that is neither.
std::string nccl_version_of_code(int64_t code);

/// Findings on bandwidth against the line rate (import/nccl_tests_context.cpp): a warn
/// `nccl_tests_busbw_below_link` (L1) when a table's best busbw at sizes >= 64 MiB is below 90%
/// of one port's rate, for the collectives whose busbw approaches a port's rate (all_reduce,
/// all_gather, reduce_scatter, broadcast, reduce, sendrecv; not alltoall, whose ceiling is a
/// share of the port when GPUs share NICs). The rate is, in order: `line_rate_gbit_per_s`
/// (--line-rate); the platform's one inter-host link when every rank's GPU is of a known
/// platform and the ranks span >= 2 hosts (NVIDIA GB10, DGX Spark: 200 Gb/s); else a 100 Gb/s
/// floor, the slowest RDMA port of GPU fabrics. Never for a table whose ranks all ran on one
/// host (the network is not involved). nccl-tests does not print the link rate.
std::vector<Finding> nccl_tests_link_findings(const NcclTestsImport& import, const std::string& source,
                                              std::optional<double> line_rate_gbit_per_s = std::nullopt);

/// Findings on the command line of a table: an info `nccl_tests_transport_disabled` (L0) per
/// NCCL_P2P_DISABLE, NCCL_SHM_DISABLE or NCCL_IB_DISABLE set to 1 (the busbw measured is that
/// of the fallback transport, not of the hardware); never worse than info.
std::vector<Finding> nccl_tests_setting_findings(const NcclTestsImport& import, const std::string& source);

}  // namespace fabdiag::baseline
