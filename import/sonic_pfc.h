// Import of SONiC `show pfc counters` (sonic-utilities scripts/pfcstat): two tabulate tables,
//       Port Rx    PFC0    PFC1    PFC2    PFC3    PFC4    PFC5    PFC6    PFC7
//   -----------  ------  ------  ------  ------  ------  ------  ------  ------
//     Ethernet0       0       0       0  93,845       0       0       0       0
// then the same with "Port Tx": per switch port the PFC pause frames received (Rx: the link
// partner paused the switch) and sent (Tx: the switch paused the partner) on each priority
// 0..7, cumulative since boot or since `sonic-clear pfccounters` ("Last cached time was ..."
// then). Numbers carry thousands commas; "N/A" is a counter the ASIC does not have (unknown).
// A table seen again (a later sample, after a "###" title or not) makes the counts a delta.
// docs/fabric.md#sonic-show-pfc-counters.
#pragma once

#include <array>
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

/// PFC frames of one direction of one port, per priority 0..7 (nullopt = "N/A" or not listed).
struct PfcCounts {
  std::array<std::optional<uint64_t>, 8> first;  ///< The first sample's values.
  std::array<std::optional<uint64_t>, 8> last;   ///< The last sample's values (== first with one sample).
  size_t samples = 0;      ///< Tables of this direction that listed the port.
  size_t first_line = 0, last_line = 0;
};

/// One switch port of the tables.
struct PfcPort {
  std::string port;  ///< "Ethernet6".
  PfcCounts rx;      ///< Pause frames received.
  PfcCounts tx;      ///< Pause frames sent.
};

/// What a `show pfc counters` text says.
struct SonicPfcImport {
  std::string source;
  std::vector<PfcPort> ports;     ///< In the order first listed.
  size_t rx_tables = 0, tx_tables = 0;
  size_t rx_rows = 0, tx_rows = 0;  ///< Rows read in the first table of each direction.
  std::string cached_time;        ///< "Last cached time was ..." value: counts since then.
  std::vector<Error> gaps;        ///< Cut rows and tables, lines not understood.
};

/// Reads the text (streamed: memory is the ports, not the input). Errors: kParse naming
/// SOURCE:LINE when there is no "Port Rx|Tx  PFC0 ... PFC7" header.
Result<SonicPfcImport> import_sonic_pfc(LineSource& lines, const std::string& source, const ReadLimits& limits);

/// The same over a text held in memory.
Result<SonicPfcImport> import_sonic_pfc(std::string_view text, const std::string& source);

/// Findings (docs/fabric.md#sonic-pfc-findings), one per port and direction with pause frames:
/// pfc_pause_received / pfc_pause_sent, naming the port and each priority with its count.
/// warn when a priority holds at least kPfcPauseWarn frames (one snapshot: no rate), error when
/// a later sample shows it still rising, info below kPfcPauseWarn or when a later sample shows
/// no new frames. Zero ports and ports not listed give nothing.
std::vector<Finding> sonic_pfc_findings(const SonicPfcImport& imp);

/// Frames on one priority from which a port is a warning (cumulative, one snapshot).
inline constexpr uint64_t kPfcPauseWarn = 1000;

/// The envelope data: {ports: [{port, rx: [8 x count|null], tx: [...], rx_delta?, tx_delta?}],
/// summary: {rx_ports_listed, tx_ports_listed, ports_with_rx_pfc, ports_with_tx_pfc, samples}}.
nlohmann::json sonic_pfc_data(const SonicPfcImport& imp);

}  // namespace fabdiag
