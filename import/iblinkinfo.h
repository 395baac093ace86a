// Import of infiniband-diags `iblinkinfo` output: one "Switch: 0x<guid> <description>:" (or
// "CA: <description>:") header per node, then one line per port:
//   "<lid> <port>[<ext>] ==( <width> <speed> <state>/<physstate>)==>  <lid> <port>[<ext>] "<peer>" (<max msg>)"
// (docs/fabric.md#iblinkinfo). Older releases print "Switch 0x<guid> <description>:" and a width and
// speed on down ports too (not a link rate: C14-24.2.1 says a down port's rate is invalid);
// `-l` (line mode) prints the node GUID and description on each port line; `-p` adds
// "(HOQ:n VL_Stall:n)"; newer releases end a link with "( Could be 4X Could be 10.0 Gbps)" when
// both ends support more. "###" lines start a new section (another run, another HCA port).
#pragma once

#include <cstddef>
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

/// One port line of iblinkinfo.
struct IbLinkPort {
  size_t node = 0;           ///< Index of its node in IbLinkInfoImport::nodes.
  int lid = 0;               ///< The node's LID (a switch's port 0 LID) as printed.
  int port = 0;              ///< Port number on the node.
  std::string width;         ///< "4X", "1X", ...; empty when not printed (a down port, new releases).
  std::optional<double> lane_gbps;  ///< Per-lane signalling rate, Gb/s ("5.0 Gbps" -> 5.0); nullopt when not printed.
  std::string speed_text;    ///< As printed: "10.0 Gbps (FDR10)", "14.0625 Gbps".
  std::string state;         ///< Logical state: "Active", "Down", "Init", "Armed".
  std::string phys_state;    ///< Physical state: "LinkUp", "Polling", "Disabled", ...
  std::optional<int> peer_lid, peer_port;  ///< The far end; nullopt on a port without a link.
  std::string peer;          ///< The far end's node description: "node01 HCA-1"; empty without a link.
  std::string max_msg;       ///< The closing "( ... )" text: "Could be 4X Could be 10.0 Gbps"; empty when "( )".
  size_t line = 0;           ///< 1-based line number in the input.

  /// True when the port's logical state is not Down (its width and speed are a link rate).
  bool up() const { return !state.empty() && state != "Down"; }
};

/// One node header (switch, CA or router) and its ports.
struct IbLinkNode {
  std::string type;          ///< "Switch", "CA", "Router".
  std::string guid;          ///< "0x0000000000000001"; empty when not printed (CA headers).
  std::string description;   ///< "IBM HSSM", "Topspin Switch", "node01 HCA-1".
  size_t section = 0;        ///< Index of the "###" section it was read in (0 before any).
  std::string section_title; ///< That section's "###" title, without the "###".
  std::vector<size_t> ports; ///< Indexes into IbLinkInfoImport::ports, in input order.
  size_t line = 0;           ///< Line of the header.
};

/// What an iblinkinfo text says.
struct IbLinkInfoImport {
  std::string source;                ///< The file ("-" = stdin).
  std::vector<IbLinkNode> nodes;
  std::vector<IbLinkPort> ports;
  std::vector<Error> gaps;           ///< Lines not understood, a cut last line (exit 4).
};

/// The IBTA name of a per-lane rate: 2.5 "SDR", 5.0 "DDR", 10.0 "QDR" (or "FDR10" when the
/// speed text says so), 14.0625 "FDR", 25.78125 "EDR", 53.125 "HDR", 106.25 "NDR", 212.5 "XDR";
/// empty for another rate.
std::string ib_speed_generation(double lane_gbps, std::string_view speed_text = {});

/// True for an empty description or the default one of an HCA nobody named
/// ("MT25204 InfiniHostLx Mellanox Technologies", "MT4123 ConnectX6 Mellanox Technologies").
bool ib_default_description(std::string_view description);

/// The host in a node description: its first word ("node01 HCA-1" -> "node01",
/// "gpu07 mlx5_0" -> "gpu07"); empty for the default description of an HCA nobody named
/// (ib_default_description()) and for a switch's ("MF0;leaf01:MQM8790/U1": "<n>;<name>:<model>/U1").
std::string ib_host_of_description(std::string_view description);

/// Reads iblinkinfo text (streamed: memory is the ports kept, not the input). Errors: kParse
/// naming SOURCE:LINE when no line is an iblinkinfo port line ("==(...)==>") — another tool's
/// output or an empty input. Port lines before any header go under a node "(no header)".
Result<IbLinkInfoImport> import_iblinkinfo(LineSource& lines, const std::string& source, const ReadLimits& limits);

/// The same over a text held in memory, with the default limits.
Result<IbLinkInfoImport> import_iblinkinfo(std::string_view text, const std::string& source);

/// Findings (docs/fabric.md#iblinkinfo-findings): ib_link_below_switch (warn: an active link to a named
/// host or switch runs a slower lane speed or a narrower width than the fastest active link of
/// the same switch in the same section, or iblinkinfo says "Could be"; info when the far end is
/// an unnamed stock HCA whose own capability this output does not show), ib_port_not_active
/// (warn: LinkUp but Init/Armed, the subnet manager has not activated it), ib_switch_old_generation
/// (info: every active link of a switch runs SDR or DDR). Down ports (Polling, Disabled) are
/// unused ports, never a finding.
std::vector<Finding> iblinkinfo_findings(const IbLinkInfoImport& imp);

/// The envelope data: {nodes: [{type, guid, description, section, active_links, down_ports,
/// fastest_lane_gbps, widest}], links: [{node, port, width, lane_gbps, generation, state,
/// phys_state, peer, peer_host, peer_port, line}] (active ports only), summary: {active_links,
/// down_ports, hosts, links_by_generation}}.
nlohmann::json iblinkinfo_data(const IbLinkInfoImport& imp);

}  // namespace fabdiag
