// Import of `ethtool -S <netdev>` text (driver statistics) into the counter model.
#pragma once

#include <string>
#include <string_view>

#include "import/common.h"
#include "import/input_reader.h"

namespace fabdiag {

/// Reads `ethtool -S` output line by line (memory: the snapshots kept, never the input).
/// The text is one snapshot, or several in time order: "###" sections, or repeated headers
/// ("NIC statistics:" again after counters) in one paste. Successive snapshots of one netdev
/// form its series (import/snapshot_series.h): the first two give the window of the deltas,
/// the latest is kept as the last absolute values, those between are counted only.
/// Each snapshot: an optional "NIC statistics:" (or "Standard stats for <if>:") header, then
/// "<name>: <u64>" lines (names may hold '.', '[', ']'; `ethtool -S <if> | grep prio` output
/// works too). Sysfs "path:value" lines (`grep "" /sys/class/infiniband/.../hw_counters/*`)
/// are read as such (import/common.h) into their own series.
/// The netdev is named by a section title ("### ethtool -S enp178s0f0 ..."), or by a shell
/// prompt line of the paste ("root@h:~# ethtool -S eth1": the snapshots after it are eth1's),
/// else `device`, else "netdev" (with a note). A snapshot whose counter names are a strict
/// prefix of the previous one's (a capture cut short) is marked truncated: its missing counters
/// are unknown, not zero, and a kParse gap says where it ends. Lines that are not "name: number"
/// become one kParse gap per snapshot naming the first 8 line numbers; the rest is kept. Gaps of
/// one kind past `limits.max_listed` are summarised (core/repeats.h).
/// Errors: kParse naming "SOURCE:LINE" of the first line that is not a counter when no line is
/// one ("expected `ethtool -S` output ..."); the read error of `lines`.
Result<CounterImport> import_ethtool_s(LineSource& lines, const std::string& source, const std::string& device,
                                       const ReadLimits& limits);

/// The same over a text held in memory, with the default limits.
Result<CounterImport> import_ethtool_s(std::string_view text, const std::string& source,
                                       const std::string& device);

}  // namespace fabdiag
