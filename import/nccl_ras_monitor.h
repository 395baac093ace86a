// NCCL RAS monitor-mode events (internal to the nccl-ras import, import/nccl_ras.h): what
// `ncclras -m [GROUPS]` (the "MONITOR [lifecycle,trace,all]" command, NCCL 2.29+) prints until
// interrupted. NCCL src/ras/client_support.cc rasClientsNotifyEvent writes each event as
//   [2025-12-19 13:07:07] PEER_DEAD: Process 1524345 on node 172.16.64.245 managing GPU 1 <details>
//   [2025-12-19 13:07:07] PEER_UNRESPONSIVE: 172.16.64.245<38741> peer not responding for 5s ...
// (the peer as src/ras/peers.cc rasPeerInfoToString words it, or its socket address when RAS
// knows no more), or with `-f json` as one multi-line object per event:
//   {"timestamp": "...", "group": "LIFECYCLE", "event": "PEER_DEAD",
//    "peer": {"host": "...", "pid": 1524345, "cuda_devs": [1], "nvml_devs": [1]}, "details": ""}
// ("peer" is {"addr": "..."} or absent when RAS knows no more). The client's banner ("RAS
// Monitor Mode - watching for peer changes (Ctrl+C to exit)...") goes to stderr, so a capture
// may or may not hold it. Event names: PEER_NEW, PEER_DEAD (lifecycle, peers.cc); PEER_CONNECTING,
// PEER_CONNECTED, PEER_RECOVERED, PEER_RETRY, PEER_UNRESPONSIVE, PEER_TIMEOUT_DEAD,
// PEER_KEEPALIVE_TIMEOUT, PEER_SEND_STUCK, PEER_INIT_TIMEOUT, PEER_DISCONNECTED (trace; ras.cc,
// rasnet.cc).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/line_source.h"
#include "core/result.h"
#include "import/input_reader.h"
#include "import/nccl_ras.h"

namespace fabdiag::detail {

/// True when `line` (trimmed) is a line only the monitor mode prints: the banner, a text event
/// ("[YYYY-MM-DD HH:MM:SS] PEER_...: "), or a JSON event's "event": "PEER_..." key.
bool is_nccl_ras_monitor_line(std::string_view line);

/// Reads a monitor stream from `lines`, whose first lines `head` (numbered from `first_no`) the
/// caller read already. Streamed: memory is one JSON event (at most 64 KiB: a longer one is
/// a gap) and one RasEvent per (event, peer), at most 4096 (later ones counted in a gap).
/// Events are counted, repeats merged: first and last time and line. A JSON event cut at the end
/// or malformed is a gap naming its first line. Errors: kParse naming `source` and its first
/// line when no event and no banner is found (not a monitor stream).
Result<RasReport> read_nccl_ras_monitor(LineSource& lines, std::vector<std::string> head, size_t first_no,
                                        const std::string& source, const ReadLimits& limits);

}  // namespace fabdiag::detail
