// Import of Mellanox's `show_gids` script (the GID table of every RDMA port, from
// /sys/class/infiniband/<ibdev>/ports/<port>/gids and gid_attrs), tab separated:
//    DEV     PORT  INDEX  GID                                      IPv4          VER  DEV
//    ---     ----  -----  ---                                      ------------  ---  ---
//    mlx5_0  1     3      0000:0000:0000:0000:0000:ffff:c0a8:6401  192.168.100.1 v2   ens1f0
//    n_gids_found=4
// Rows without the header (`show_gids | grep v2`) are read too, and pdsh/clush "host: "
// prefixes (import/host_prefix.h). docs/fabric.md#show_gids.
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

/// One GID row.
struct ShowGidsEntry {
  std::string host;     ///< From a "host: " prefix; "" when none.
  std::string ibdev;    ///< "mlx5_0".
  uint32_t port = 0;    ///< 1-based.
  uint32_t index = 0;   ///< The GID index (what NCCL_IB_GID_INDEX and perftest -x name).
  std::string gid;      ///< "0000:0000:0000:0000:0000:ffff:c0a8:6401" as printed.
  std::string ipv4;     ///< "192.168.100.1" for an IPv4-mapped GID; "" otherwise.
  std::string version;  ///< "v1" or "v2" (RoCE version; an InfiniBand port's GIDs read "v1").
  std::string netdev;   ///< "ens1f0"; "" when not printed.
  size_t line = 0;
};

/// What one show_gids output says.
struct ShowGidsImport {
  std::string source;
  bool header = false;                  ///< The "DEV PORT INDEX GID ..." header was seen.
  std::optional<uint64_t> n_gids_found;  ///< The script's last line, when present.
  std::vector<ShowGidsEntry> entries;  ///< One per host, ibdev, port and index: a GID listed again replaces it.
  size_t rows = 0;                      ///< GID rows read (what n_gids_found counts).
  size_t repeated = 0;                  ///< Rows that replaced an earlier one of their GID.
  std::vector<Error> gaps;
};

/// The GIDs of one port, in input order.
struct ShowGidsPort {
  std::string host, ibdev, netdev;
  uint32_t port = 0;
  std::vector<const ShowGidsEntry*> gids;
  bool has_v2 = false;
  std::optional<uint32_t> v2_ipv4_index;  ///< The first RoCE v2 GID with an IPv4: the index for NCCL_IB_GID_INDEX.
  /// True when no GID is IPv4-mapped and the netdev is none or "ib*": an InfiniBand port,
  /// whose GIDs are not RoCE and are not judged.
  bool infiniband = false;
};

/// Reads show_gids text (streamed; a GID listed again keeps its last row). Errors: kParse
/// naming SOURCE:LINE when there is neither the header nor a GID row. A "n_gids_found=N" that differs from the rows read is a gap (a cut or
/// filtered paste); other lines are one gap ("N line(s) not understood").
Result<ShowGidsImport> import_show_gids(LineSource& lines, const std::string& source, const ReadLimits& limits);

/// The same over a text held in memory.
Result<ShowGidsImport> import_show_gids(std::string_view text, const std::string& source);

/// True when `line` is the show_gids header ("DEV PORT INDEX GID IPv4 VER DEV"),
/// "n_gids_found=N" or a GID row ("mlx5_0 1 3 <8 groups of 4 hex digits> [IPv4] v1|v2 [netdev]"):
/// the markers format detection uses.
bool is_show_gids_marker(std::string_view line);

/// The entries grouped per host/ibdev/port, in order of first appearance.
std::vector<ShowGidsPort> show_gids_ports(const ShowGidsImport& imp);

/// Findings (docs/fabric.md#show_gids-findings), per RoCE port: show_gids_roce_v1_only (warn: no
/// RoCE v2 GID: not routable, NCCL cannot use it across subnets), show_gids_no_ipv4_v2 (warn: v2
/// GIDs but none IPv4-mapped: no GID index for NCCL_IB_GID_INDEX on an IPv4 fabric).
std::vector<Finding> show_gids_findings(const ShowGidsImport& imp);

/// The envelope data: {header, n_gids_found, gids_read (rows), gids_distinct, ports[] {host, ibdev, port, netdev,
/// infiniband, nccl_gid_index, gids[] {index, gid, ipv4, version, line}}}.
nlohmann::json show_gids_data(const ShowGidsImport& imp);

}  // namespace fabdiag
