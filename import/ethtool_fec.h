// Import of `ethtool [-I] --show-fec <netdev>` text (FEC mode and FEC statistics) into the
// counter model, under the names the live ethtool netlink source gives them
// (probes/ethtool/ethtool_netlink_messages.cpp), so the same knowledge-base rows judge both.
#pragma once

#include <string>
#include <string_view>

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
/// The netdev is the header's, else a "###" title's ("### ethtool -I --show-fec eth0"), else
/// `device`, else "netdev" (with a note). Several outputs of one netdev are successive
/// snapshots (import/snapshot_series.h). Other lines are one kParse gap naming the first.
/// Errors: kParse naming "SOURCE:LINE" when no "FEC parameters for" header, FEC encoding or
/// counter line is found; the read error of `lines`.
Result<CounterImport> import_ethtool_fec(LineSource& lines, const std::string& source, const std::string& device,
                                         const ReadLimits& limits);

/// The same over a text held in memory, with the default limits.
Result<CounterImport> import_ethtool_fec(std::string_view text, const std::string& source,
                                         const std::string& device);

}  // namespace fabdiag
