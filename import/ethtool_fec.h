// Import of `ethtool [-I] --show-fec <netdev>` text (FEC mode and FEC statistics) into the
// counter model, under the names the live ethtool netlink source gives them
// (probes/ethtool/ethtool_netlink_messages.cpp), so the same knowledge-base rows judge both.
// Also the JSON form (`ethtool --json [-I] --show-fec <netdev>`, ethtool >= 5.13) and the 6.18
// symbol error histogram (docs/fabric.md#ethtool---show-fec-json-and-histogram).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "import/common.h"
#include "import/input_reader.h"

namespace fabdiag {

/// Reads `ethtool --show-fec` output line by line:
///   FEC parameters for eth0:            starts a snapshot of eth0 (again later: the next one)
///   Configured FEC encodings: None      facts.fec.eth0.configured
///   Active FEC encoding: RS             facts.fec.eth0.active
///   Statistics:                         (ethtool -I, Linux >= 5.13)
///     corrected_blocks: 256             counter "fec-corrected_blocks"
///       Lane 0: 255                     counter "fec-corrected_blocks_lane0" (the line above's lanes)
///     corrected_blocks: 123 [ per_lane:  125, 120 ]      (ethtool 6.18: the lanes on one line)
///     fec_symbol_err_1_to_3: 12 [ per_lane: 6, 6 ]       facts.fec.eth0.hist[] (Linux 6.18 histogram)
/// "Supported/Configured FEC encodings:" (newer ethtool) is read as "Configured". An input whose
/// first line (after "###" titles) starts with '[' or '{' is the JSON form: read_ethtool_fec_json().
/// The netdev is the header's, else a "###" title's ("### ethtool -I --show-fec eth0"), else
/// `device`, else "netdev" (with a note). Several outputs of one netdev are successive
/// snapshots (import/snapshot_series.h). Other lines are one kParse gap naming the first.
/// Errors: kParse naming "SOURCE:LINE" when no "FEC parameters for" header, FEC encoding or
/// counter line is found; the read error of `lines`.
Result<CounterImport> import_ethtool_fec(LineSource& lines, const std::string& source, const std::string& device,
                                         const ReadLimits& limits);

/// A FEC statistic's value as ethtool 6.18 prints it: "123" or "445 [ per_lane:  125, 120 ]".
struct FecStatValue {
  uint64_t total = 0;
  std::vector<uint64_t> lanes;  ///< Per lane, lane 0 first; empty when not printed.
};

/// Parses "123" or "123 [ per_lane: 1, 2 ]"; nullopt for anything else.
std::optional<FecStatValue> parse_fec_stat_value(std::string_view value);

/// The bin of a histogram line's name: "fec_symbol_err_0" -> (0, 0), "fec_symbol_err_1_to_3" ->
/// (1, 3) (also "fec_symbols_err_" and "fec_bit_err_", the spellings of the ethtool patch
/// series); nullopt for another name. Bin = codewords with that many symbol errors corrected.
std::optional<std::pair<uint64_t, uint64_t>> parse_fec_hist_bin_name(std::string_view key);

/// One histogram bin of facts.fec.<netdev>.hist: {bin_low, bin_high, total, lanes?, source}.
nlohmann::json fec_hist_bin_json(uint64_t low, uint64_t high, uint64_t total, const std::vector<uint64_t>& lanes,
                                 const std::string& where);

/// `ethtool --json [-I] --show-fec` (the whole rest of `lines`, after `head`, its first lines):
/// one or more documents "[ {"ifname": "eth0", "config": ["Auto"], "active": ["RS"],
/// "statistics": {"corrected_blocks": {"total": 256, "lanes": [255, 1]}, "uncorrectable_blocks":
/// {...}, "corrected_bits": {...}, "hist": [{"bin_low": 0, "bin_high": 0, "total": 445, "lanes":
/// [...]}]}} ]", several pasted one after the other (each starts a line with '['). Into the same
/// counters and facts as the text. A document that does not parse is a kParse gap naming its
/// first line (a cut paste: what came before is kept). Errors: kParse when no document parses
/// or none holds an "ifname"; more than 64 MiB; the read error of `lines`.
Result<CounterImport> read_ethtool_fec_json(LineSource& lines, const std::string& source, std::string head);

/// True for a line only `ethtool --json --show-fec` prints: "\"active\": [ \"RS\" ]" or
/// "\"config\": [ \"Auto\" ]" whose values are all FEC modes (None, Off, Auto, RS, BaseR, LLRS),
/// "\"corrected_blocks\": {", "\"uncorrectable_blocks\": {". For import/format_detect.
bool is_ethtool_fec_json_line(std::string_view line);

/// The same over a text held in memory, with the default limits.
Result<CounterImport> import_ethtool_fec(std::string_view text, const std::string& source,
                                         const std::string& device);

}  // namespace fabdiag
