// Import of SONiC `show pfcwd stats` / `pfcwd show stats` (sonic-utilities pfcwd): one tabulate
// table of the PFC watchdog per watched queue,
//          QUEUE       STATUS    STORM DETECTED/RESTORED    TX OK/DROP    RX OK/DROP    TX LAST OK/DROP    RX LAST OK/DROP
//   ------------  -----------  -------------------------  ------------  ------------  -----------------  -----------------
//   Ethernet4:3       stormed                        1/0    0/41507426           0/0         0/41507426                0/0
// STATUS is "operational", "stormed" (the watchdog sees a PFC storm on that queue now and applies
// its action, usually drop) or "N/A" (the watchdog is stopped); the counts are cumulative since
// the watchdog started, the LAST pair is the last storm's. Releases before 2019 print no STATUS
// column. Shell prompt lines ("admin@sw:~$ show pfcwd stats", "$ sudo pfcwd stop") may stand
// between tables; a table seen again is a later sample of the same queues.
// docs/fabric.md#sonic-pfcwd-stats.
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

/// An "OK/DROP" (or "DETECTED/RESTORED") cell: packets forwarded and dropped (nullopt = "N/A").
struct PfcwdPair {
  std::optional<uint64_t> first;   ///< OK (or storms detected).
  std::optional<uint64_t> second;  ///< DROP (or storms restored).
};

/// One watched queue (a switch port and one lossless priority).
struct PfcwdQueue {
  std::string port;   ///< "Ethernet4".
  int queue = 0;      ///< 3: the queue (= the PFC priority on SONiC's lossless maps).
  std::string status;  ///< The last sample's STATUS ("operational", "stormed", "N/A"; "" without the column).
  PfcwdPair storms;    ///< Storms detected / restored (last sample).
  std::optional<uint64_t> first_detected;  ///< The first sample's storms detected.
  PfcwdPair tx, rx, tx_last, rx_last;      ///< Last sample's TX/RX OK/DROP and the last storm's.
  bool stormed_in_a_sample = false;        ///< Some sample showed the queue "stormed".
  size_t samples = 0;
  size_t first_line = 0, last_line = 0;
};

/// What a `show pfcwd stats` text says.
struct SonicPfcwdImport {
  std::string source;
  std::vector<PfcwdQueue> queues;  ///< In the order first listed.
  size_t tables = 0;               ///< Headers read (samples).
  bool stop_command_seen = false;  ///< A "pfcwd stop" command line is in the paste.
  std::vector<Error> gaps;         ///< Cut rows, lines not understood.
};

/// Reads the text (streamed: memory is the queues, not the input). Errors: kParse naming
/// SOURCE:LINE when there is no "QUEUE ... STORM DETECTED/RESTORED" header.
Result<SonicPfcwdImport> import_sonic_pfcwd(LineSource& lines, const std::string& source, const ReadLimits& limits);

/// The same over a text held in memory.
Result<SonicPfcwdImport> import_sonic_pfcwd(std::string_view text, const std::string& source);

/// Findings (docs/fabric.md#sonic-pfcwd-findings): per port, pfc_storm naming each queue with
/// storms: error when a queue is "stormed" in the last sample (a storm now, its traffic dropped),
/// warn when storms were detected and all restored (info when a later sample shows no new
/// storm); and one pfcwd_stopped (warn) naming the queues whose STATUS is "N/A".
std::vector<Finding> sonic_pfcwd_findings(const SonicPfcwdImport& imp);

/// The envelope data: {queues: [{port, queue, status, storms_detected, storms_restored, tx_ok,
/// tx_drop, rx_ok, rx_drop, tx_last_ok, tx_last_drop, rx_last_ok, rx_last_drop, samples,
/// stormed_in_a_sample}], summary: {samples, queues, stormed_now, with_storms, not_watched}}.
nlohmann::json sonic_pfcwd_data(const SonicPfcwdImport& imp);

}  // namespace fabdiag
