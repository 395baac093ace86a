// Import of infiniband-diags' `ibnetdiscover` (the subnet's topology as the SM sees it): the
// plain topology file, one block per node
//    Switch  36 "S-0002c9030000104a"   # "leaf01" enhanced port 0 lid 2 lmc 0
//    [1]     "H-0002c903000010f8"[1](2c903000010f9)   # "node01 mlx5_0" lid 3 4xNDR
//    Ca      1 "H-0002c903000010f8"    # "node01 mlx5_0"
//    [1](2c903000010f9)  "S-0002c9030000104a"[1]    # lid 3 lmc 0 "leaf01" lid 2 4xNDR
// and the -p/--ports form, one line per port
//    SW     2    19 0x0002c9030000104a 4x NDR - CA     3     1 0x0002c903000010f9 ( 'leaf01' - 'node01 mlx5_0' )
// into a graph: nodes (switches, CAs, routers) and links (each once, with width and speed).
// docs/fabric.md#ibnetdiscover.
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

/// One node of the fabric.
struct IbnetNode {
  std::string guid;  ///< Node GUID, 16 lower-case hex digits ("0002c9030000104a"); -p: the port GUID of a CA.
  std::string type;  ///< "switch", "ca" or "router".
  std::string desc;  ///< Node description ("leaf01", "node01 mlx5_0").
  std::optional<uint64_t> lid;  ///< A switch's LID (port 0); a CA's first port LID.
  uint32_t ports = 0;           ///< Port count from the block header; 0 in -p form.
};

/// One end of a link.
struct IbnetEnd {
  std::string guid;  ///< The node's GUID (as in IbnetNode::guid).
  uint32_t port = 0;
};

/// One cable: both ends, as read (each link once, whichever end printed it first).
struct IbnetLink {
  IbnetEnd a, b;
  uint32_t lanes = 0;  ///< 1, 2, 4, 8, 12; 0 when not printed.
  std::string speed;   ///< "SDR", "DDR", "QDR", "FDR10", "FDR", "EDR", "HDR", "NDR", "XDR"; "" when not printed.
  size_t line = 0;
};

/// What one ibnetdiscover output says.
struct IbnetImport {
  std::string source;
  std::string format;  ///< "topology" (plain) or "ports" (-p).
  std::vector<IbnetNode> nodes;
  std::vector<IbnetLink> links;
  std::vector<Error> gaps;
  /// The node with `guid`, or nullptr.
  const IbnetNode* node(const std::string& guid) const;
};

/// The order of InfiniBand speed names, slowest first: SDR 0, DDR 1, QDR 2, FDR10 3, FDR 4,
/// EDR 5, HDR 6, NDR 7, XDR 8; -1 for anything else ("???").
int ib_speed_rank(std::string_view speed);

/// Reads ibnetdiscover plain or -p text (streamed). Errors: kParse naming SOURCE:LINE when there
/// is no node block header ("Switch N \"S-...\"", "Ca N \"H-...\"") and no -p port line.
/// Port lines that do not parse, and other lines, are gaps.
Result<IbnetImport> import_ibnetdiscover(LineSource& lines, const std::string& source, const ReadLimits& limits);

/// The same over a text held in memory.
Result<IbnetImport> import_ibnetdiscover(std::string_view text, const std::string& source);

/// True when `line` is an ibnetdiscover node header ("Switch 36 \"S-...\"", "Ca 1 \"H-...\"",
/// "Rt N \"R-...\""), a "switchguid=0x..."/"caguid=0x..." line or a -p port line ("SW|CA|RT
/// LID PORT 0xGUID WIDTH SPEED - ..."): format detection's marker.
bool is_ibnetdiscover_line(std::string_view line);

/// Findings (docs/fabric.md#ibnetdiscover-findings): ibnetdiscover_link_degraded (warn: a link
/// with fewer lanes or a slower speed than most links of its kind, switch-switch or
/// switch-CA; names both ends by description, GUID and port).
std::vector<Finding> ibnetdiscover_findings(const IbnetImport& imp);

/// The envelope data (the shape docs/fabric.md#ibnetdiscover-graph documents): {format,
/// switches[] {guid, desc, lid, ports, role, hcas[] {guid, desc, port, peer_port},
/// uplinks[] {guid, desc, links, ports[]}}, cas[] {guid, desc, lid, switches[]}, links[]
/// {a {guid, type, desc, port}, b {...}, kind, lanes, speed, line}, majority {kind: {lanes, speed}}}.
nlohmann::json ibnetdiscover_data(const IbnetImport& imp);

}  // namespace fabdiag
