// Import of iproute2's `rdma link show` (the state of every RDMA port, from RDMA netlink),
// text, one record a line, InfiniBand or RoCE:
//    link mlx5_0/1 subnet_prefix fe80:0000:0000:0000 lid 13 sm_lid 1 lmc 0 state ACTIVE physical_state LINK_UP
//    link mlx5_2/1 state DOWN physical_state DISABLED netdev ens2f0np0
// and -j / -jp JSON ([{"ifindex":0,"ifname":"mlx5_0","port":1,"state":"ACTIVE","physical_state":"LINK_UP",...}]).
// Text lines may carry a pdsh/clush "host: " prefix (import/host_prefix.h). docs/fabric.md#rdma-link-show.
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

/// One "link IBDEV/PORT ..." record.
struct RdmaLink {
  std::string host;            ///< From a "host: " prefix; "" when none (always for JSON).
  std::string ibdev;           ///< "mlx5_0".
  uint32_t port = 0;           ///< 1-based.
  std::string state;           ///< "ACTIVE", "DOWN", "INIT", "ARMED", ...; "" when not printed.
  std::string physical_state;  ///< "LINK_UP", "DISABLED", "POLLING", "LINK_ERROR_RECOVERY", ...
  std::string netdev;          ///< "ens1f0np0"; "" when not printed (InfiniBand without IPoIB).
  std::optional<uint64_t> lid, sm_lid;  ///< InfiniBand only.
  std::string subnet_prefix;   ///< InfiniBand only: "fe80:0000:0000:0000".
  size_t line = 0;             ///< Line of the record (JSON: the line the document starts on).
  /// True when state is ACTIVE and physical_state LINK_UP.
  bool up() const;
};

/// What one `rdma link show` output says.
struct RdmaLinkImport {
  std::string source;
  std::string format;  ///< "text" or "json".
  std::vector<RdmaLink> links;  ///< One per host, ibdev and port: a later record of one replaces it.
  size_t repeated = 0;          ///< Text records that replaced an earlier one of their port.
  std::vector<Error> gaps;
};

/// Reads `rdma link show` text or JSON (text streamed: a port listed again keeps its last
/// record, so many captures cost one each; a JSON document is held while parsed, 64 MiB at
/// most). Errors: kParse naming SOURCE:LINE when there is no "link IBDEV/PORT ... state ..."
/// record, or the JSON does not parse or is not an array of links. A text record without state
/// or physical_state, and other lines, are gaps.
Result<RdmaLinkImport> import_rdma_link(LineSource& lines, const std::string& source, const ReadLimits& limits);

/// The same over a text held in memory.
Result<RdmaLinkImport> import_rdma_link(std::string_view text, const std::string& source);

/// True when `line` is an `rdma link show` record: "link IBDEV/PORT" followed by "state" or
/// "subnet_prefix" (`rdma statistic show` records are followed by counter names), or a JSON
/// line holding "physical_state" (-j) or starting with it (-jp): format detection's marker.
bool is_rdma_link_show_line(std::string_view line);

/// Findings (docs/fabric.md#rdma-link-findings): rdma_link_not_active (warn: state not ACTIVE
/// or physical_state not LINK_UP; names host, ibdev, port and netdev).
std::vector<Finding> rdma_link_findings(const RdmaLinkImport& imp);

/// The envelope data: {format, links[] {host, ibdev, port, state, physical_state, netdev, lid,
/// sm_lid, subnet_prefix, up, line}, links_total, links_down}.
nlohmann::json rdma_link_data(const RdmaLinkImport& imp);

}  // namespace fabdiag
