// Import of infiniband-diags `ibportstate <lid|guid|dr_path> <port> [query]` output (and of
// `smpquery portinfo`, which prints the same "# Port info:" block): per queried port its
// logical and physical state and the link width and per-lane speed supported, enabled and
// active, so a link that trained narrower or slower than both ends allow is told apart from a
// port configured that way. ibportstate (infiniband-diags ibportstate.c) prints
//   Switch PortInfo:                      (or "CA/RT PortInfo:", "Initial ... PortInfo:" for a set)
//   # Port info: Lid 3 port 1             (or "DR path slid 14; dlid 65535; 0,1 port 1")
//   LinkState:.......................Active
//   PhysLinkState:...................LinkUp
//   LinkWidthSupported:..............1X or 4X
//   LinkSpeedExtActive:..............14.0625 Gbps    ("No Extended Speed" when not in use)
//   # MLNX ext Port info: Lid 3 port 1    (hex fields, not read)
//   Peer PortInfo:                        (a switch port: the far end's block follows)
//   ibwarn: [1234] validate_width: Peer ports operating at active width 1 rather than 2 (4x)
// docs/fabric.md#ibportstate.
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

/// One "# Port info:" block.
struct IbPortInfo {
  std::string role;       ///< "port" (the queried port), "peer" (after "Peer PortInfo:"), "after_set".
  /// "Switch", "CA/RT" or "" (unknown). The queried port's and an after_set block's come from the
  /// title ("Switch PortInfo:"); a peer's from its own block: ibportstate.c's show_port_info()
  /// prints Mkey, MkeyLeasePeriod and ProtectBits only for a CA/router port (or switch port 0,
  /// never a link's far end), so a peer block with them is "CA/RT", a whole one without them
  /// "Switch", a cut one without them "".
  std::string node_kind;
  std::string host;       ///< pdsh/clush "host: " prefix, or "".
  std::string portid;     ///< "Lid 3", "DR path slid 14; dlid 65535; 0,1".
  int port = -1;          ///< The port number of the "# Port info:" line.
  std::optional<uint64_t> lid;           ///< The "Lid:" field.
  std::string link_state;                ///< "Active", "Down", "Initialize", "Armed".
  std::string phys_state;                ///< "LinkUp", "Polling", "Disabled".
  std::vector<int> width_supported;      ///< Lanes: 1, 2, 4, 8, 12.
  std::vector<int> width_enabled;
  std::optional<int> width_active;
  /// Per lane, Gb/s, ascending: base (2.5/5/10), extended (14.0625, 25.78125, 53.125, ...) and
  /// FDR10 (10.3125, kFdr10LaneGbps) when the "# MLNX ext Port info:" block sets bit 0x01.
  std::vector<double> speed_supported_gbps;
  std::vector<double> speed_enabled_gbps;
  /// The fastest active speed: the extended one when in use, FDR10 (10.3125) when the MLNX ext
  /// block's LinkSpeedActive has bit 0x01 (PortInfo's own LinkSpeedActive then says 10.0), else the base.
  std::optional<double> speed_active_gbps;
  bool mlnx_ext = false;  ///< A "# MLNX ext Port info:" block followed (an after_set block takes the Initial's).
  bool fdr10_supported = false, fdr10_enabled = false, fdr10_active = false;  ///< Its LinkSpeed* bit 0x01.
  size_t line = 0;  ///< The "# Port info:" line.
};

/// A warning ibportstate printed itself ("ibwarn: [pid] validate_width: Peer ports ...").
struct IbportstateWarning {
  std::string host;
  std::string text;  ///< After "ibwarn: [pid] ".
  size_t line = 0;
};

/// What an ibportstate output says. A block read again (same host, role, port id and port: a
/// later capture in the same file, a loop's pastes) replaces the earlier one in its place, as a
/// warning of the same host and text does: memory follows the distinct ports, not the captures,
/// and the port's latest state is the one judged (import/latest_records.h).
struct IbportstateImport {
  std::string source;
  std::vector<IbPortInfo> ports;  ///< In the order first printed, each the latest capture.
  std::vector<IbportstateWarning> warnings;  ///< Per host and text the latest.
  size_t repeated = 0;            ///< Blocks and warnings that replaced an earlier one.
  std::vector<Error> gaps;        ///< Lines not understood, a cut last line.
};

/// FDR10's lane rate, Gb/s: Mellanox's pre-IBTA speed, 10.3125 Gb/s a lane with 64b/66b
/// encoding (40 Gb/s at 4X; NVIDIA/Mellanox switch manuals, e.g. the MSB7890's "Speed"
/// section), told only by the vendor's MLNX ext PortInfo (infiniband-diags' FDR10 bit 0x01).
inline constexpr double kFdr10LaneGbps = 10.3125;

/// The key under which a block read again replaces the earlier one: "host|role|portid|port".
std::string ibportstate_block_key(const IbPortInfo& p);

/// True for a line only ibportstate / smpquery portinfo print: "# Port info: ... port N",
/// "Switch PortInfo:", "CA/RT PortInfo:", "Initial Switch PortInfo:", "Peer PortInfo:", also
/// behind a pdsh/clush "host: " prefix ("node07: Switch PortInfo:").
bool is_ibportstate_marker(std::string_view line);

/// Per-lane Gb/s of "2.5 Gbps or 5.0 Gbps or 10.0 Gbps" (one value per speed; "No Extended
/// Speed", "Extended speed" and values that are not "<n> Gbps" give none).
std::vector<double> ibportstate_speeds_gbps(std::string_view value);

/// Lanes of "1X or 4X" (one per width).
std::vector<int> ibportstate_widths(std::string_view value);

/// Reads the text (streamed). Errors: kParse naming SOURCE:LINE when there is no "# Port info:"
/// block; the read error of `lines`.
Result<IbportstateImport> import_ibportstate(LineSource& lines, const std::string& source, const ReadLimits& limits);

/// The same over a text held in memory.
Result<IbportstateImport> import_ibportstate(std::string_view text, const std::string& source);

/// Findings (docs/fabric.md#ibportstate-findings): ib_port_width_degraded / ib_port_speed_degraded
/// (warn: an Active port with a "Peer PortInfo:" block runs fewer lanes or a slower lane speed
/// than the widest / fastest its enabled set and the peer's both hold, ibportstate's own
/// validate_width/validate_speed rule), ib_port_width_below_enabled / ib_port_speed_below_enabled
/// (info: the same against the port's own enabled set when the peer's is not in the output, a
/// CA port: the far end may enable no more, as an FDR10 or QDR switch does),
/// ib_port_not_active (warn: LinkState not Active), ib_port_enabled_below_supported (info: the
/// enabled set was narrowed below what the port supports), ibportstate_warning (warn: the tool's
/// own "Peer ports operating at ..." warning). The subject names host, node kind, LID and port.
std::vector<Finding> ibportstate_findings(const IbportstateImport& imp);

/// The envelope data: {ports: [{role, node, host, portid, lid, port, link_state, phys_state,
/// width: {supported, enabled, active}, speed_gbps: {supported, enabled, active}, fdr10:
/// {supported, enabled, active} or null (no MLNX ext block), line}],
/// warnings: [{host, text, line}], summary: {ports, active, degraded}}; "records_repeated" (blocks
/// and warnings that replaced an earlier one) when there were any.
nlohmann::json ibportstate_data(const IbportstateImport& imp);

}  // namespace fabdiag
