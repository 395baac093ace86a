// Import of infiniband-diags' node lists: `ibhosts`, `ibswitches` and `ibnodes` (scripts over
// ibnetdiscover's cache) print one node a line,
//   Ca	: 0x7cfe900300a66ca0 ports 2 "node41 HCA-1"
//   Switch	: 0x0010e08028c7a0a0 ports 36 "SUN DCS 36P QDR scas22sw-iba0 10.133.45.66" enhanced port 0 lid 3 lmc 0
// (Router lines alike). They hold no links, so they add no leaf or spine to the fabric topology
// (import/fabric_topology.h): they say which nodes the subnet manager sees, under which name.
// docs/fabric.md#ibhosts-ibswitches-ibnodes.
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

/// One node of the list.
struct IbNode {
  std::string type;         ///< "Ca", "Switch" or "Router".
  std::string guid;         ///< Node GUID as printed ("0x7cfe900300a66ca0").
  int ports = 0;            ///< Ports of the node.
  std::string description;  ///< Node description ("node41 HCA-1").
  std::string host;         ///< The host in the description (ib_host_of_description), "" for none.
  std::optional<uint64_t> lid;  ///< Switches: the "lid N" of port 0.
  std::string from_host;    ///< pdsh/clush "host: " prefix of the line, or "".
  size_t line = 0;
};

/// What a node list says.
struct IbNodesImport {
  std::string source;
  std::vector<IbNode> nodes;  ///< In the order listed; a GUID listed twice is kept once.
  std::vector<Error> gaps;    ///< Lines not understood, a cut last line, ibnetdiscover's ibwarn/iberror lines.
};

/// Parses one node line ("Ca\t: 0x... ports 2 \"desc\"..."); nullopt for any other line.
std::optional<IbNode> parse_ibnodes_line(std::string_view line);

/// Reads the list (streamed). Errors: kParse naming SOURCE:LINE when no line is a node line.
Result<IbNodesImport> import_ibnodes(LineSource& lines, const std::string& source, const ReadLimits& limits);

/// The same over a text held in memory.
Result<IbNodesImport> import_ibnodes(std::string_view text, const std::string& source);

/// Findings (docs/fabric.md#ibnodes-findings): ib_node_duplicate_description (warn: two node
/// GUIDs carry the same description: a host named twice, or a node whose description was copied;
/// a fabric map keyed by name mixes them up), ib_node_default_description (info: a CA whose
/// description is the vendor's default ("MT4123 ConnectX6 Mellanox Technologies"): no host
/// name to find it by). The subject names the node by description and GUID.
std::vector<Finding> ibnodes_findings(const IbNodesImport& imp);

/// The envelope data: {nodes: [{type, guid, ports, description, host, lid, line}], summary:
/// {cas, switches, routers, hosts}}.
nlohmann::json ibnodes_data(const IbNodesImport& imp);

}  // namespace fabdiag
