// Reader of NCCL RAS text reports (NCCL 2.24+: `ncclras`, or `nc localhost 28028` with
// NCCL_RAS_ENABLE=1; NCCL src/ras/client_support.cc): the job summary (nodes, processes per
// node, GPUs), the communicator groups (comms, nodes, ranks, status, errors) and each entry of
// the Errors and Warnings sections:
//   #0-0 (fa93daea854b060b) MISMATCH
//     Communicator ranks have different AllGather operation counts
//     30 ranks have launched up to operation 640
//     2 ranks have launched up to operation 641
//     Rank 12 -- GPU 4 managed by process 323032 on node 192.0.2.1
// RAS sorts the counts most frequent first and lists the ranks of the outlying counts. The
// JSON form (`-f json`, NCCL 2.28.7+) is not read here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/finding.h"
#include "core/line_source.h"
#include "core/result.h"
#include "import/input_reader.h"

namespace fabdiag {

/// One "N ranks have launched up to operation X" (or "Rank R has launched up to operation X").
struct RasOpCount {
  int64_t ranks = 0;
  int64_t op = 0;                ///< -1: "have not launched any operations".
  std::vector<int64_t> listed;   ///< The ranks RAS names under it (the outliers).
};

/// One rank line: "Rank 12 -- GPU 4 managed by process 323032 on node 192.0.2.1".
struct RasRank {
  int64_t rank = -1;
  std::string gpu, node;
  int64_t pid = -1;
};

/// One entry of the Errors or Warnings section.
struct RasEntry {
  bool error = false;            ///< Under "Errors" (else "Warnings").
  std::string comm;              ///< "#0-0"
  std::string hash;              ///< "fa93daea854b060b"
  std::string kind;              ///< "MISMATCH", "INCOMPLETE", "DEAD", ...
  std::string what;              ///< Its first line: "Communicator ranks have different AllGather operation counts".
  std::vector<RasOpCount> counts;
  std::vector<RasRank> ranks;
  std::vector<std::string> text; ///< Its other lines, as printed.
  size_t line = 0;
};

/// One row of the communicators table.
struct RasGroup {
  int64_t group = -1, comms = 0, nodes_per_comm = 0, ranks_per_node = 0, ranks_per_comm = 0, ranks_in_group = 0;
  std::string status, errors;
  size_t line = 0;
};

/// Everything read from one report.
struct RasReport {
  std::string nccl_version;
  std::optional<int64_t> nodes, processes_per_node, gpus_per_process, processes, gpus;
  std::vector<RasGroup> groups;
  std::vector<RasEntry> entries;
  std::vector<Error> gaps;
};

/// Reads a report, streamed. Errors: kParse naming `source` and its first line when the text
/// holds neither the "Job summary" nor the "Communicators" table (not a RAS report).
Result<RasReport> import_nccl_ras(LineSource& lines, const std::string& source, const ReadLimits& limits);
Result<RasReport> import_nccl_ras(std::string_view text, const std::string& source);

/// The fabdiag.ncclras/1 data: {nccl_version, job {nodes, processes_per_node,
/// gpus_per_process, processes, gpus}, groups[], entries[] {section, comm, hash, kind, what,
/// counts[] {ranks, op, listed[]}, ranks[] {rank, gpu, pid, node}, ahead[], lagging_ranks,
/// text[]}}.
nlohmann::json nccl_ras_data(const RasReport& r);

/// One finding per entry: `nccl_ras_mismatch` warn for a MISMATCH of operation counts (one
/// snapshot; the same spread across polls is the problem), naming who is ahead and how many
/// lag without blaming the listed ranks' node; `nccl_ras_<kind>` error for an Errors entry
/// (INCOMPLETE, DEAD, ...), warn for another Warnings entry.
std::vector<Finding> nccl_ras_findings(const RasReport& r, const std::string& source);

}  // namespace fabdiag
