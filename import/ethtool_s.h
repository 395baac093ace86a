// Import of `ethtool -S <netdev>` text (driver statistics) into the counter model.
#pragma once

#include <string>
#include <string_view>

#include "import/common.h"

namespace fabdiag {

/// Reads `ethtool -S` output. The text is one snapshot, or several "###" sections in time order
/// (the first two give the window of the deltas; later ones are kept). Each section: an optional
/// "NIC statistics:" (or "Standard stats for <if>:") header, then "<name>: <u64>" lines (names
/// may hold '.', '[', ']'; `ethtool -S <if> | grep prio` output works too). A section made of
/// sysfs "path:value" lines (`grep "" /sys/class/infiniband/.../hw_counters/*`) is read as such
/// (import_common.h) into its own series.
/// The netdev is named by a section title ("### ethtool -S enp178s0f0 ..."), else `device`,
/// else "netdev" (with a note). A section whose counter names are a strict prefix of the previous
/// section's (a capture cut short) is marked truncated: its missing counters are unknown, not zero,
/// and a kParse gap says where it ends. Lines that are not "name: number" become one kParse gap
/// per section listing their line numbers; the rest is kept.
/// Errors: kParse when no section holds a single counter.
Result<CounterImport> import_ethtool_s(std::string_view text, const std::string& source,
                                       const std::string& device);

}  // namespace fabdiag
