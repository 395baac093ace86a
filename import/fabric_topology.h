// The fabric topology of `fabdiag triage --topology FILE`: which leaf switch each host hangs
// from and which spines each leaf has uplinks to (docs/localization.md#uplinks-and-leaves).
// Read from what sites have, the format detected by content:
//   - a simple text file, one host a line: `host leaf [spine]` or `host -> leaf -> spine`;
//   - a Slurm topology.conf (`SwitchName=leaf1 Nodes=node[01-04]`, `SwitchName=spine Switches=leaf[1-2]`);
//   - ibnetdiscover output (import/ibnetdiscover.h): hosts' HCAs -> leaf switch -> spine.
// The readers hold nothing but the text they are given; cmd/ opens the file.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/result.h"

namespace fabdiag {

/// Host -> leaf -> spines, as read. Host names as the file spells them (short names and FQDNs
/// are matched by the triage, see triage/uplink.h).
struct FabricTopology {
  std::string source;                                          ///< File name, for messages.
  std::string format;                                          ///< "text", "slurm" or "ibnetdiscover".
  std::map<std::string, std::string> leaf_of_host;             ///< host -> its leaf switch.
  std::map<std::string, std::vector<std::string>> spines_of_leaf;  ///< leaf -> spines (may be empty).
  std::vector<std::string> notes;  ///< What was skipped (a host under two leaves: the first kept).
};

/// Reads a topology file of any of the three formats, detected by content: an ibnetdiscover node
/// header or port line (is_ibnetdiscover_line) -> ibnetdiscover; a `SwitchName=` line -> Slurm;
/// else the simple text. Errors: as the chosen reader's, and kParse naming the source when the
/// file names no host under a leaf.
Result<FabricTopology> read_fabric_topology(std::string_view text, const std::string& source);

/// The simple text format: per line `HOST LEAF [SPINE]`, or the same joined by `->`
/// (`node01 -> leaf1 -> spine1`); '#' starts a comment, blank lines are skipped. A host may appear
/// once (twice with the same leaf is fine); a leaf may list several spines on several lines.
/// Errors: kParse with source "FILE:LINE" for a line of 1 or more than 3 names, a name with
/// characters other than letters, digits and "._-:", or a host given under two leaves.
Result<FabricTopology> read_topology_text(std::string_view text, const std::string& source);

/// A Slurm topology.conf (topology/tree plugin): `SwitchName=NAME [Nodes=HOSTLIST]
/// [Switches=HOSTLIST] [LinkSpeed=N]`, keys case-insensitive, '#' comments. A switch with Nodes
/// is the leaf of those hosts; a switch with Switches is the spine of those switches. Hostlists
/// are expanded (expand_hostlist). Errors: kParse with "FILE:LINE" for a line without SwitchName,
/// a bad hostlist, a host under two switches.
Result<FabricTopology> read_slurm_topology(std::string_view text, const std::string& source);

/// The topology of an ibnetdiscover output (plain or -p form): each CA's host (the first word of
/// its node description, "node01 mlx5_0" -> node01) hangs from the switch its first cable goes to
/// (its leaf); a switch cabled to a leaf that has no CAs itself is one of that leaf's spines.
/// Errors: the reader's (import_ibnetdiscover), kParse when no CA is cabled to a switch.
Result<FabricTopology> read_ibnetdiscover_topology(std::string_view text, const std::string& source);

/// Expands a Slurm/pdsh hostlist: comma-separated names, each with any number of bracket ranges
/// `node[01-04,07]`, `rack[1-2]-n[1-3]`; the width of a zero-padded lower bound is kept. At most
/// `max_names` names (a guard against `n[0-99999999]`). Errors: kParse (message only, no source)
/// for an unbalanced bracket, a range whose bounds are not numbers or run backwards, or too many names.
Result<std::vector<std::string>> expand_hostlist(std::string_view list, size_t max_names = 65536);

/// JSON of a topology: {source, format, hosts, leaves[] {leaf, hosts[], spines[]}, notes[]}.
nlohmann::json fabric_topology_json(const FabricTopology& t);

}  // namespace fabdiag
