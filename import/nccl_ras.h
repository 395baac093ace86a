// Reader of NCCL RAS text reports (NCCL 2.24+: `ncclras`, or `nc localhost 28028` with
// NCCL_RAS_ENABLE=1; NCCL src/ras/client_support.cc): the job summary (nodes, processes per
// node, GPUs), the communicator groups (comms, nodes, ranks, status, errors) and each entry of
// the Errors and Warnings sections:
//   #0-0 (fa93daea854b060b) MISMATCH
//     Communicator ranks have different AllGather operation counts
//     30 ranks have launched up to operation 640
//     2 ranks have launched up to operation 641
//     Rank 12 -- GPU 4 managed by process 323032 on node 192.0.2.1
// RAS sorts the counts most frequent first and lists the ranks of the outlying counts.
// import_nccl_ras() also reads the two other forms of the same client and fills the same model:
// the JSON report (`ncclras -f json`, NCCL 2.28.7+; import/nccl_ras_json.h) and the monitor-mode
// event stream (`ncclras -m`, NCCL 2.29+, text or JSON; import/nccl_ras_monitor.h).
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

/// One communicator of a JSON report as printed and read (NCCL client_support.cc
/// jsonStartCommunicator: "hash", "secondary_hash", "size", "ranks_count", "missing_ranks_count").
struct RasComm {
  std::string id;                  ///< "#3": its 0-based place in the document; entries name it so.
  std::string hash;                ///< "ae94423cfbb2ef4a": "0x..." as 16 hex digits, as the text form prints it.
  std::string secondary_hash;      ///< "0xb7e7187447156001:0xb8242ed28a71381e", as printed.
  int64_t size = -1, ranks_count = -1, missing_count = -1;  ///< As printed; -1: absent.
  int64_t ranks_read = 0, missing_read = 0;                  ///< Rank records read.
  bool cut = false;                ///< The document ends inside this communicator.
  size_t line = 0;                 ///< Line of its '{'.
};

/// One kind of monitor event about one peer, its repeats counted (NCCL rasClientsNotifyEvent:
/// "[2025-12-19 13:07:07] PEER_DEAD: Process 1524345 on node 172.16.64.245 managing GPU 1", or
/// the JSON object {timestamp, group, event, peer {host, pid, cuda_devs, nvml_devs} | {addr}, details}).
struct RasEvent {
  std::string event;               ///< "PEER_DEAD", "PEER_UNRESPONSIVE", ...
  std::string group;               ///< "LIFECYCLE" / "TRACE" (JSON form only; else empty).
  std::string host;                ///< Node address of the peer; empty when only `addr` is known.
  std::string addr;                ///< "172.16.64.245<38741>": the peer's RAS socket when RAS knew no more.
  std::string gpus;                ///< "1" or "0,1 (NVML 2,3)": the GPUs the peer process manages.
  int64_t pid = -1;
  std::string details;             ///< The details text of the last repeat ("peer not responding for 5s ...").
  std::string first_time, last_time;  ///< "2025-12-19 13:07:07": the job's local time, as printed.
  int64_t count = 0;               ///< Repeats of this event for this peer.
  size_t line = 0, last_line = 0;  ///< Lines of the first and last repeat.
};

/// Everything read from one report (text or JSON) or monitor stream.
struct RasReport {
  std::string form = "text";       ///< "text", "json" (a JSON report) or "monitor" (events, either form).
  std::string nccl_version;
  std::string timestamp;           ///< JSON report: "timestamp" (the job's local time).
  std::optional<int64_t> cuda_runtime, cuda_driver;   ///< JSON report: "cuda_runtime_version", ... (13000 = 13.0)
  std::optional<int64_t> communicators_count, timeouts;  ///< JSON report: as printed ("ras" {"timeouts_count"}).
  std::optional<double> collection_s;                    ///< JSON report: "ras" {"collection_time_sec"}, seconds.
  std::vector<RasComm> comms;      ///< JSON report: one per communicator read.
  std::vector<RasEvent> events;    ///< Monitor stream: one per (event, peer), first seen first.
  int64_t event_count = 0;         ///< Monitor stream: events read, repeats included.
  std::optional<int64_t> nodes, processes_per_node, gpus_per_process, processes, gpus;
  std::vector<RasGroup> groups;
  std::vector<RasEntry> entries;
  std::vector<Error> gaps;
};

/// Reads a report or a monitor stream, streamed: the form is chosen by the first 32 lines after
/// the first non-blank one ('{' then a RAS report key: JSON report, lines before the '{' such
/// as a shell prompt passed over; '{' then an event key, "RAS Monitor Mode" or "[time] PEER_...:"
/// lines: monitor events; else the text report). A JSON report is read record by record (memory: one
/// communicator's rank summaries, never the whole document). Errors: kParse naming `source`
/// and its first line when the text is none of these forms (not a RAS report) or the JSON is
/// malformed before its first communicator; a cut or bad record later is a gap naming file:line.
Result<RasReport> import_nccl_ras(LineSource& lines, const std::string& source, const ReadLimits& limits);
Result<RasReport> import_nccl_ras(std::string_view text, const std::string& source);

/// The fabdiag.ncclras/1 data: {form, nccl_version, job {nodes, processes_per_node,
/// gpus_per_process, processes, gpus}, groups[], entries[] {section, comm, hash, kind, what,
/// counts[] {ranks, op, listed[]}, ranks[] {rank, gpu, pid, node}, ahead[], lagging_ranks,
/// text[]}}; a JSON report adds {timestamp, cuda_runtime, cuda_driver, communicators_count,
/// collection_s, timeouts, comms[]}; a monitor stream adds {event_count, events[]}.
nlohmann::json nccl_ras_data(const RasReport& r);

/// One finding per entry: `nccl_ras_mismatch` warn for a MISMATCH of operation counts (one
/// snapshot; the same spread across polls is the problem), naming who is ahead and how many
/// lag without blaming the listed ranks' node; `nccl_ras_<kind>` error for an Errors entry
/// (INCOMPLETE, DEAD, ERROR, ...) naming the ranks with their GPU, process and node, warn for
/// another Warnings entry (INCONSISTENT: a JSON report that contradicts itself). Monitor events:
/// `nccl_ras_peer_dead` error per peer declared dead (PEER_DEAD, PEER_TIMEOUT_DEAD),
/// `nccl_ras_peer_unreachable` warn per peer that stopped answering (PEER_UNRESPONSIVE,
/// PEER_KEEPALIVE_TIMEOUT, PEER_SEND_STUCK, PEER_INIT_TIMEOUT, PEER_DISCONNECTED) and was not
/// seen again after (PEER_RECOVERED / PEER_CONNECTED later: info); each names host, process,
/// GPUs, first and last time and the repeat count.
std::vector<Finding> nccl_ras_findings(const RasReport& r, const std::string& source);

}  // namespace fabdiag
