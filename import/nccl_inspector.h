// Reader of NCCL Inspector output (the profiler plugin of NCCL plugins/profiler/inspector):
// its JSON records, one object per record, on one line or pretty-printed, in the
// inspector_output_format_version v4.x form:
//   {"header": {"id", "rank", "n_ranks", "nnodes"}, "metadata": {"inspector_output_format_version",
//    "hostname", "pid", "dump_timestamp_us", ...}, "dump_stats": {"coll_records",
//    "coll_dropped_total", "coll_dropped_since_last_dump", "p2p_*", "proxy_*", ...}}   (a marker)
//   {"coll_perf": {"coll", "coll_algo", "coll_proto", "coll_sn", "coll_msg_size_bytes",
//    "coll_exec_time_us", "coll_algobw_gbs", "coll_busbw_gbs", ...}}
// and its Prometheus textfile lines (nccl_bus_bandwidth_gbs{...,collective="AllReduce",nranks="4"} 678.263).
// A collective record belongs to the rank of the last marker before it (or after it, when the
// output starts with records).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/finding.h"
#include "core/line_source.h"
#include "core/result.h"
#include "import/input_reader.h"

namespace fabdiag {

/// One dump_stats marker: the rank and its record counts.
struct InspectorDump {
  std::optional<int64_t> rank, n_ranks, nnodes;
  std::string hostname, format_version;
  std::map<std::string, int64_t> stats;  ///< dump_stats as written ("coll_records": 1024, ...).
  size_t line = 0;
};

/// One coll_perf record.
struct InspectorColl {
  std::optional<int64_t> rank, n_ranks;  ///< From its marker; nullopt when none.
  std::string coll, algo, proto;
  std::optional<int64_t> sn, msg_size_bytes;
  std::optional<double> exec_time_s, algbw_bytes_per_s, busbw_bytes_per_s;
  size_t line = 0;
};

/// One Prometheus line.
struct InspectorMetric {
  std::string name;                            ///< "nccl_bus_bandwidth_gbs"
  std::map<std::string, std::string> labels;
  double value = 0;
  size_t line = 0;
};

struct InspectorImport {
  std::vector<InspectorDump> dumps;
  std::vector<InspectorColl> colls;     ///< Bounded (ReadLimits x 16); `colls_total` counts all.
  size_t colls_total = 0;
  std::vector<InspectorMetric> metrics;  ///< Bounded likewise.
  std::vector<Error> gaps;
};

/// Reads an Inspector output, streamed (one JSON record at a time, up to kMaxLineBytes).
/// Errors: kParse naming `source` and its first line without any Inspector record or metric.
Result<InspectorImport> import_nccl_inspector(LineSource& lines, const std::string& source, const ReadLimits& limits);
Result<InspectorImport> import_nccl_inspector(std::string_view text, const std::string& source);

/// fabdiag.ncclinspector/1 data: {dumps[] {rank, n_ranks, nnodes, hostname, format_version,
/// stats{}, dropped_pct_this_dump, line}, colls[] {rank, n_ranks, coll, algo, proto, sn,
/// msg_size_bytes, exec_time_s, algbw_bytes_per_s, busbw_bytes_per_s, busbw_factor_observed,
/// busbw_factor_expected, line}, colls_total, metrics[] {name, labels{}, value, line}}.
nlohmann::json nccl_inspector_data(const InspectorImport& imp);

/// A warn `nccl_inspector_records_dropped` (L0) per marker with records dropped since the
/// last dump (the statistics are incomplete), and a warn `nccl_inspector_busbw_factor` when a
/// record's busbw/algbw is not the factor of its collective for its rank count (never when
/// it is).
std::vector<Finding> nccl_inspector_findings(const InspectorImport& imp, const std::string& source);

}  // namespace fabdiag
