// Reader of PyTorch ProcessGroupNCCL watchdog lines: the log of a training job whose
// collective hung (torch.distributed with the NCCL backend), any PyTorch version from 1.13 on:
//   [rank1]:[E626 06:24:44.903 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective
//     operation timeout: WorkNCCL(SeqNum=808, OpType=ALLREDUCE, NumelIn=9801523,
//     NumelOut=9801523, Timeout(ms)=600000) ran for 600020 milliseconds before timing out.
//   [PG ID 0 PG GUID 0(default_pg) Rank 1] Exception (either an error or timeout) detected by
//     watchdog at work: 808, last enqueued NCCL work: 811, last completed NCCL work: 807.
//   [PG 0 (default_pg) Rank 1] Timeout at NCCL work: 6463, last enqueued NCCL work: 6463, ...
//   [Rank 4] Received a dump signal due to a collective timeout from rank 7 ... Last enqueued
//     NCCL work: 56118, last completed NCCL work: 56118.   (a rank that did not time out)
//   [PG ID 0 PG GUID 0(default_pg) Rank 118]  failure detected by watchdog at work sequence id:
//     2398459 PG status: last enqueued work: 2398578, last completed work: 2398458  (2.6+)
//   [Rank 1] Work WorkNCCL(SeqNum=2521, OpType=ALLREDUCE, ...) timed out in blocking wait.
// and torchrun's failure summary ("host : node01" / "rank : 2 (local_rank: 2)") for hosts.
// Other lines (NCCL INFO, tracebacks, training output) are passed over.
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

/// What one rank of one process group says about its NCCL work.
struct WatchdogRank {
  int64_t rank = -1;
  std::string pg;                     ///< "0 (default_pg)"; empty when its lines name none.
  std::optional<int64_t> seq;         ///< SeqNum of the work that timed out; nullopt: status only.
  std::string op;                     ///< "ALLREDUCE", "_REDUCE_SCATTER_BASE", ...
  std::optional<int64_t> numel_in, numel_out;  ///< Elements in and out of that work.
  std::optional<int64_t> timeout_ms, ran_for_ms;
  std::optional<int64_t> last_enqueued, last_completed;  ///< SeqNums.
  std::string host;                   ///< From torchrun's failure summary; may be empty.
  size_t line = 0;                    ///< 1-based line of its first watchdog line.
};

/// What one process group's ranks did, and the verdict.
struct WatchdogGroup {
  std::string pg;
  std::vector<WatchdogRank> ranks;           ///< In rank order.
  std::vector<int64_t> timed_out;            ///< Ranks whose watchdog fired.
  std::optional<int64_t> stuck_seq;          ///< Lowest SeqNum a rank timed out at.
  std::vector<int64_t> stuck;                ///< Ranks that timed out at stuck_seq.
  std::vector<int64_t> moved_on;             ///< Ranks that got past stuck_seq (completed it, or timed out later).
  std::vector<int64_t> not_launched;         ///< Ranks whose last enqueued work is before stuck_seq.
  std::vector<int64_t> not_in_log;           ///< Ranks below the highest seen that report nothing.
  bool same_op_everywhere = false;           ///< Every reporting rank timed out on stuck_seq.
};

/// Everything read from one log.
struct WatchdogImport {
  std::vector<WatchdogGroup> groups;  ///< In first-seen order.
  std::vector<Error> gaps;            ///< Cut or unreadable watchdog lines ("FILE:LINE").
};

/// Reads a log, streamed (memory: one record per rank and group, bounded). `source` names it.
/// Errors: kParse naming `source` and its first line when no watchdog line is found (not a
/// PyTorch watchdog log); the read error of `lines`.
Result<WatchdogImport> import_pytorch_watchdog(LineSource& lines, const std::string& source, const ReadLimits& limits);

/// The same over a text held in memory.
Result<WatchdogImport> import_pytorch_watchdog(std::string_view text, const std::string& source);

/// The data of the fabdiag.torchwatchdog/1 envelope: {groups: [{pg, stuck_seq, stuck,
/// moved_on, not_launched, not_in_log, same_op_everywhere, ranks: [{rank, seq, op, numel_in,
/// numel_out, timeout_ms, ran_for_ms, last_enqueued, last_completed, host, line}]}]}.
nlohmann::json pytorch_watchdog_data(const WatchdogImport& imp);

/// One error `pytorch_collective_timeout` (L0) per group with a timed-out rank: its verdict
/// ("all reporting ranks timed out on the same op" -> a missing rank or the network; or "ranks
/// X stuck at SeqNum N; the others moved on" / "rank Y never launched it" -> those ranks),
/// with the op, SeqNum, timeout, elements and the last enqueued / completed work as evidence.
std::vector<Finding> pytorch_watchdog_findings(const WatchdogImport& imp, const std::string& source);

}  // namespace fabdiag
