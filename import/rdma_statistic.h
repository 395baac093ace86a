// Import of iproute2 `rdma statistic show` output (RDMA netlink hw counters, including the
// optional counters that sysfs does not show) into the counter model.
#pragma once

#include <string>
#include <string_view>

#include "import/common.h"
#include "import/input_reader.h"

namespace fabdiag {

/// Reads `rdma statistic show` in any of its forms, with identical results:
///  - default: one record per link, "link mlx5_0/1 name value name value ...", which may be
///    wrapped over several lines (a continuation line never starts a record: only a "link"
///    token does, and a name and its value may sit on different lines);
///  - `-p`: "link mlx5_0/1" then one "name value" per line;
///  - `-j`: a JSON array of {"ifname", "port", counters...}.
/// Device "<ibdev>/<port>", group ib_hw_counters, widths by the ibdev name (mlx5 Q counters
/// 32-bit). "###" sections are snapshots in time order. A name without a number, or a number
/// without a name, is a kParse gap naming the line.
/// Errors: kParse when there is no "link" record.
/// Streams `lines`: the text forms token by token, a JSON section (one record: `rdma -j` prints
/// one array) held while it is parsed.
Result<CounterImport> import_rdma_statistic(LineSource& lines, const std::string& source, const ReadLimits& limits);

/// The same over a text held in memory, with the default limits.
Result<CounterImport> import_rdma_statistic(std::string_view text, const std::string& source);

}  // namespace fabdiag
