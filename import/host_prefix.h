// The "host: " prefix that pdsh, clush and `ansible -m shell` style fan-out tools put before
// every line of a command's output ("node07: mlx5_0 port 1 ==> ib0 (Up)"), so one file holds
// the output of many hosts. Used by the per-host RDMA readers (ibdev2netdev, show_gids,
// rdma link show).
#pragma once

#include <string>
#include <string_view>

namespace fabdiag {

/// One line split into its host prefix and the tool's text.
struct HostPrefixed {
  std::string host;  ///< "node07", or "" when the line has no prefix.
  std::string text;  ///< The rest of the line, as the tool printed it (not trimmed).
};

/// Splits "HOST: text" where HOST is one word of letters, digits, '-', '_' and '.' that holds
/// a letter and ends at the first ": " of the line; any other line is returned whole with an
/// empty host ("0000:17:00.0 mlx5_0 ..." and "DEV\tPORT ..." have no prefix).
HostPrefixed split_host_prefix(std::string_view line);

}  // namespace fabdiag
