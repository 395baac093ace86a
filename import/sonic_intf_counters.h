// Import of SONiC `show interfaces counters` (sonic-utilities scripts/portstat,
// utilities_common/portstat.py): tabulate tables with one row per switch port,
//       IFACE    STATE    RX_OK        RX_BPS    RX_UTIL    RX_ERR    RX_DRP    RX_OVR    TX_OK  ...
//   ---------  -------  -------  ------------  ---------  --------  --------  --------  -------
//   Ethernet0        D        8  2000.00 MB/s     64.00%        10       100       N/A       10  ...
// and the variants of the same script: `-a`/`--printall` (RX_PPS, TX_PPS, TRIM columns),
// `counters errors` (RX_ERR ... TX_OVR), `counters rates` (RX_BPS, RX_PPS, RX_UTIL ...),
// `counters fec-stats` (FEC_CORR FEC_UNCORR FEC_SYMBOL_ERR, newer: FEC_PRE_BER FEC_POST_BER
// FEC_PRE_BER_MAX "FLR(O)" "FLR(P) (Accuracy)"), `counters fec-histogram` (BIN0..BIN15), and
// `counters detailed Ethernet4` ("Jabbers Received............................... 0" lines).
// Counts carry thousands commas and are totals since boot or since `sonic-clear counters`
// ("Last cached time was ..."), or over N seconds with `-p N` ("The rates are calculated within
// N seconds period"). "N/A" is a counter the ASIC or the platform does not give (unknown). Byte
// rates are the switch's own (RATES table of COUNTERS_DB): "B/s", "KB/s", "MB/s" of 1000.
// STATE: U up, D admin up but oper down, X admin down, N/A unknown. pdsh/clush "host: " prefixes
// and a shell prompt ("admin@leaf01:~$ show interfaces counters ...") name the switch.
// docs/fabric.md#sonic-show-interfaces-counters.
#pragma once

#include <cstdint>
#include <map>
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

/// One counter of one port over the tables that listed it.
struct SonicCounter {
  uint64_t first = 0, last = 0;  ///< The first and the last table's value.
  size_t samples = 0;            ///< Tables (or detailed blocks) that gave it.
  size_t first_line = 0, last_line = 0;
};

/// One switch port.
struct SonicIntfPort {
  std::string host;   ///< The switch ("leaf01", from a "host: " prefix or the prompt); "" unknown.
  std::string port;   ///< "Ethernet0"; "(port not named)" for a detailed block without a prompt.
  std::string state;  ///< The last STATE cell: "U", "D", "X", "N/A"; "" when no table gave one.
  size_t state_line = 0;
  /// Counts by column ("RX_ERR", "FEC_UNCORR", "BIN3") or detailed label ("Jabbers Received").
  std::map<std::string, SonicCounter> counters;
  /// The last rate or ratio by column: RX_BPS/TX_BPS bytes/s, RX_PPS/TX_PPS packets/s,
  /// RX_UTIL/TX_UTIL percent of the port speed, FEC_PRE_BER/FEC_POST_BER/FEC_PRE_BER_MAX, FLR(O).
  std::map<std::string, double> rates;
};

/// What a `show interfaces counters` text says.
struct SonicIntfImport {
  std::string source;
  std::vector<SonicIntfPort> ports;  ///< In the order first listed.
  size_t tables = 0;                 ///< IFACE tables read.
  size_t detailed_blocks = 0;        ///< `counters detailed` blocks read.
  std::optional<int> period_s;       ///< `-p N`: counts are over N seconds, not totals.
  std::string cached_time;           ///< "Last cached time was ..." / "Time Since Counters Last Cleared".
  std::vector<Error> gaps;           ///< Cut rows, cells not understood, a cut last line.
};

/// True for a line only portstat prints: an "IFACE  STATE ..." (or "IFACE  BIN0 ...") header,
/// or the first lines of a detailed block ("Packets Received 64 Octets.....",
/// "Total Packets Received Without Errors...."), after any "host: " prefix.
bool is_sonic_intf_counters_marker(std::string_view line);

/// Reads the text (streamed: memory is the ports). Errors: kParse naming SOURCE:LINE when there
/// is neither an IFACE table nor a detailed block.
Result<SonicIntfImport> import_sonic_intf_counters(LineSource& lines, const std::string& source,
                                                   const ReadLimits& limits);

/// The same over a text held in memory.
Result<SonicIntfImport> import_sonic_intf_counters(std::string_view text, const std::string& source);

/// Findings (docs/fabric.md#sonic-interface-counters-findings), each naming the switch and port:
/// sonic_port_down (warn: STATE D), sonic_port_errors (RX_ERR/TX_ERR or detailed jabbers,
/// fragments, undersize: warn, error when a later table shows them rising),
/// sonic_port_overruns (RX_OVR/TX_OVR: warn), sonic_port_drops (RX_DRP/TX_DRP, WRED: info, warn
/// from kSwitchDropShareWarn of the packets), sonic_fec_uncorrectable (FEC_UNCORR: warn, error
/// when rising), sonic_fec_pre_ber (warn > kSwitchPreFecBerWarn, error > kSwitchPreFecBerError),
/// sonic_fec_post_ber (error > kSwitchPostFecBerError; limits in import/switch_counters.h). One snapshot's counts are totals since
/// clear: the message says so and never calls them a rate.
std::vector<Finding> sonic_intf_counters_findings(const SonicIntfImport& imp);

/// The envelope data: {ports: [{switch, port, state, counters: {COLUMN: count},
/// deltas: {COLUMN: last-first} (only with two samples), rates: {COLUMN: value}}],
/// summary: {ports, tables, detailed_blocks, period_s, since, ports_down, ports_with_errors,
/// ports_with_fec_uncorrectable}}.
nlohmann::json sonic_intf_counters_data(const SonicIntfImport& imp);

}  // namespace fabdiag
