// NCCL RAS JSON reports (internal to the nccl-ras import, import/nccl_ras.h): the document
// `ncclras -f json` (or "SET FORMAT json" then "STATUS" on port 28028) prints, NCCL 2.28.7+
// (src/ras/client_support.cc, rasDumpCommsToJSON and the json* writers):
//   {"nccl_version": "2.29.1", "cuda_runtime_version": 13000, "cuda_driver_version": 13000,
//    "timestamp": "2025-12-19 13:06:53", "communicators_count": 1,
//    "communicators": [{"hash": "0xae94...", "secondary_hash": "0x...:0x...", "size": 2,
//      "ranks_count": 1, "missing_ranks_count": 1,
//      "ranks": [{"rank", "host", "pid", "cuda_dev", "nvml_dev", "status": {"init_state",
//                 "async_error", "finalize_called", "destroy_flag", "abort_flag"},
//                 "collective_counts": {"Broadcast": 0, "AllReduce": 640, ...}}],
//      "missing_ranks": [{"rank", "host", "pid", "cuda_dev", "nvml_dev",
//                         "status": {"unresponsive", "considered_dead"}}]}],
//    "ras": {"collection_time_sec": 0.000, "timeouts_count": 0}}
// It is a dump of raw data: the checks RAS's text client makes (nccl_ras_comm.cpp) turn each
// communicator's rank records into the same entries the text form prints.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/line_source.h"
#include "core/result.h"
#include "import/input_reader.h"
#include "import/nccl_ras.h"

namespace fabdiag::detail {

/// True when `line` (trimmed) is a line only a RAS JSON report prints: a "communicators_count",
/// "secondary_hash" or "missing_ranks_count" key, or a one-line document with "nccl_version"
/// and "communicators" keys. nccl-tests' -J document has "nccl_version" but none of these.
bool is_nccl_ras_json_line(std::string_view line);

/// Reads a JSON report from `lines`, whose first lines `head` (numbered from `first_no`, the
/// first starting with '{') the caller read already. Streamed: each rank record is summarised when it
/// closes and each communicator checked and dropped when it closes; values outside rank
/// records are bounded (kParse when a document holds more than 2^20 of them). A document cut
/// short keeps its complete communicators and the complete rank records of the one it ends in,
/// and says so in gaps naming file:line. Errors: kParse naming file:line when the JSON is
/// malformed before the first communicator or is not a RAS report (no "communicators" key).
Result<RasReport> read_nccl_ras_json(LineSource& lines, std::vector<std::string> head, size_t first_no, const std::string& source,
                                     const ReadLimits& limits);

/// What one rank record of a communicator holds (a missing-rank record sets only the identity,
/// `missing`, `unresponsive` and `dead`).
struct RasRankRecord {
  int64_t rank = -1, pid = -1, cuda_dev = -1, nvml_dev = -1;
  std::string host;  ///< "unknown" when RAS could not map the rank to a process (as printed).
  int64_t init_state = 0, async_error = 0;  ///< ncclResult_t values: 0 success, 7 in progress.
  bool finalize_called = false, destroy_flag = false, abort_flag = false;
  bool missing = false, unresponsive = false, dead = false;
  std::vector<uint64_t> counts;  ///< Per collective, in the order of RasCommRecords::ops.
  size_t line = 0;
};

/// One communicator's rank records, as check_ras_comm() takes them.
struct RasCommRecords {
  RasComm comm;
  std::vector<std::string> ops;  ///< Collective names seen in "collective_counts", first seen first.
  std::vector<RasRankRecord> ranks, missing;
};

/// The checks of RAS's text client over one communicator (client_support.cc: rasClientRunComms),
/// appended to `out` as entries named comm.id / comm.hash: INCOMPLETE (error: missing ranks,
/// listed with GPU, process and node), DEAD (error: missing ranks RAS considers dead), ERROR
/// (error: ranks whose init_state or async_error is neither 0 nor 7), MISMATCH (warning: ranks
/// with different status, and one per collective whose counts differ: counts most frequent first,
/// the outliers listed as RAS lists them) and INCONSISTENT (warning: the record contradicts
/// itself: counts that do not add up, a rank twice, a rank outside the communicator). A cut
/// communicator is checked for what its records hold, never for counts that do not add up.
void check_ras_comm(const RasCommRecords& c, std::vector<RasEntry>& out);

}  // namespace fabdiag::detail
