// Port listings cut short (ibstat, ibstatus, ibv_devinfo pasted or saved only in part): a port
// block without lines its tool always prints, a CA that lists fewer port blocks than it says it
// has. Each is a gap (HostFacts::gaps) naming the block, so the fields stay unknown instead of
// reading as a healthy port.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "core/result.h"
#include "probes/check/check_model.h"

namespace fabdiag {

/// The keys of one port block that its tool always prints (as printed: "Physical state"), and
/// those of them read so far.
struct PortBlockLines {
  std::vector<std::string> required;
  std::set<std::string> seen;

  /// Notes `key` as read.
  void saw(const std::string& key) { seen.insert(key); }
  /// The required keys not read, in `required` order.
  std::vector<std::string> missing() const;
};

/// The gap of port `p` whose block lacks `lines.missing()`: kParse, source = p.source ("FILE
/// line N: CA 'mlx5_0' port 1"), naming the missing lines; nothing when none is missing.
std::vector<Error> missing_port_lines_gaps(const std::vector<RdmaPortFacts>& ports,
                                           const std::vector<PortBlockLines>& lines);

/// The gap of a CA (`ca`, declared at `where`, "FILE line N") that says it has `declared` ports
/// ("Number of ports: 2", "phys_port_cnt: 2") but lists `listed` port blocks; nothing when
/// listed >= declared.
std::vector<Error> missing_port_blocks_gap(const std::string& where, const std::string& ca, uint64_t declared,
                                           size_t listed);

}  // namespace fabdiag
