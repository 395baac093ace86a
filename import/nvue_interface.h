// Import of Cumulus Linux NVUE interface outputs (docs.nvidia.com, Cumulus Linux 5.x user
// guide "Monitoring Interfaces and Transceivers with NVUE" and the NVUE command reference):
//  - `nv show interface swp1 counters` / `link stats`: an "operational  applied" key/value table
//    (carrier-transitions, in-bytes "3.37 MB", in-pkts, in-drops, in-errors, out-...), then in
//    5.5+ sections under "=====" titles with "Counter  Receive  Transmit" tables ("FCS Errors
//    0  n/a", "Total Drops  0  0");
//  - `nv show interface swp1 link phy-detail` (5.10+): key/values symbol-errors, effective-errors,
//    phy-raw-errors-laneN, raw-ber "1E-7", effective-ber, symbol-ber, raw-ber-laneN,
//    rs-num-corr-err-binN, time-since-last-clear-min;
//  - `nv show interface --view=counters`: one row per interface (Interface MTU RX_OK RX_ERR
//    RX_DRP RX_OVR TX_OK TX_ERR TX_DRP TX_OVR Flg);
//  - `nv show interface`: Interface State Speed MTU Type ... (the state of every port);
//  - `-o json` of the per-interface commands: a flat object of the same keys, or objects by
//    interface name.
// The per-interface texts do not name the interface: the prompt line before them does
// ("cumulus@leaf01:mgmt:~$ nv show interface swp1 counters"), as do pdsh "host: " prefixes the
// switch. Counts are totals since boot or `nv action clear interface counters`.
// docs/fabric.md#cumulus-nvue-interface-counters.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/finding.h"
#include "core/line_source.h"
#include "core/result.h"
#include "import/input_reader.h"

namespace fabdiag {

/// One switch port as the outputs describe it.
struct NvuePort {
  std::string host;   ///< The switch ("leaf01"); "" when no prompt or prefix names it.
  std::string port;   ///< "swp1"; "(port not named)" for a per-interface output without a prompt.
  std::string state;  ///< "up" / "down" when an output gave it.
  bool state_from_table = false;  ///< The state came from the all-interfaces table (unused ports too).
  /// Counts by key: "carrier-transitions", "in-errors", "effective-errors", "phy-raw-errors-lane3",
  /// "RX_ERR" (--view=counters), "FCS Errors rx" / "Total Drops tx" (Counter Receive Transmit rows).
  std::map<std::string, uint64_t> counts;
  /// Ratios by key: "raw-ber", "effective-ber", "symbol-ber", "raw-ber-lane0" ...
  std::map<std::string, double> bers;
  std::map<std::string, size_t> line_of;  ///< The line each key was read from (0 for JSON).
};

/// What an NVUE output says.
struct NvueImport {
  std::string source;
  std::string format;             ///< "text" or "json".
  std::vector<NvuePort> ports;    ///< In the order first named.
  /// The distinct `nv show ...` commands the prompts name, in first-seen order: a command run
  /// again (a later capture, a loop's pastes) is named once and counted in commands_repeated.
  std::vector<std::string> commands;
  size_t commands_repeated = 0;   ///< Prompts that ran a command already named.
  std::vector<Error> gaps;        ///< Lines not understood, a cut last line.
};

/// True for a line only NVUE's interface outputs print: a prompt running `nv show interface`,
/// the --view=counters header, a "Counter  Receive  Transmit" header, a phy-detail or counters
/// key ("carrier-transitions", "effective-ber", "raw-ber", "phy-raw-errors-lane0"), or its JSON
/// form ("\"effective-ber\":", "\"carrier-transitions\":"); after any "host: " prefix.
bool is_nvue_interface_marker(std::string_view line);

/// Reads the text (streamed) or JSON (first non-blank character '{', held whole, at most 64 MiB).
/// Errors: kParse naming SOURCE:LINE when nothing of an NVUE interface output is found, or the
/// JSON does not parse.
Result<NvueImport> import_nvue_interface(LineSource& lines, const std::string& source, const ReadLimits& limits);

/// The same over a text held in memory.
Result<NvueImport> import_nvue_interface(std::string_view text, const std::string& source);

/// The `-o json` form alone, whole in `text`: a flat object of NVUE keys (one port: `port`, or
/// "(port not named)" when empty) or objects by interface name. Errors: kParse naming SOURCE when
/// it does not parse or holds no NVUE key.
Result<NvueImport> parse_nvue_interface_json(const std::string& text, const std::string& source,
                                             const std::string& host, const std::string& port);

/// Adds a value of `key` read from `value` to `p`: a BER key ("raw-ber", "effective-ber-lane2")
/// as a ratio, "state" as the state, a plain count as a count; other values (bytes with a unit,
/// words) are kept out. `line` is where it was read (0 for JSON).
void nvue_add_value(NvuePort& p, const std::string& key, const std::string& value, size_t line);

/// Findings (docs/fabric.md#nvue-interface-findings), each naming the switch and port:
/// nvue_port_errors (warn), nvue_port_drops (info, warn from kSwitchDropShareWarn of the
/// packets), nvue_carrier_transitions (warn from kSwitchCarrierTransitionsWarn),
/// nvue_effective_errors (post-FEC and symbol errors: warn; effective/symbol BER above
/// kSwitchPostFecBerError: error), nvue_raw_ber (worst of raw-ber and the lanes: warn above
/// kSwitchPreFecBerWarn, error above kSwitchPreFecBerError), nvue_port_down (warn; info for a port
/// of the all-interfaces table). Limits in import/switch_counters.h.
std::vector<Finding> nvue_interface_findings(const NvueImport& imp);

/// The envelope data: {format, commands, ports: [{switch, port, state, counts: {KEY: n},
/// bers: {KEY: ratio}}], summary: {ports, ports_with_errors, ports_down}}; "commands_repeated"
/// (prompts that ran a command already named) when there were any.
nlohmann::json nvue_interface_data(const NvueImport& imp);

}  // namespace fabdiag
