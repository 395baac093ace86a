// The other ways an operator pastes sysfs counter files than `grep "" FILES` ("path:value"):
// a loop that prints each file's name before its value,
//   /sys/class/infiniband/mlx5_1/ports/1/counters$ for f in $(find . -type f); do echo "=== $f ==="; cat "$f"; done
//   === ./link_downed ===
//   255
// and `head FILES` / `tail FILES` ("==> /sys/class/net/eth0/statistics/rx_errors <==" then the
// value). The file name is relative to the prompt's directory (or a `cd DIR` before it). Read by
// the `ethtool -S` / sysfs counter reader (import/ethtool_s.h), which turns each name and value
// into the "path:value" line it already reads.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace fabdiag {

/// The file a dump title names: "=== ./link_downed ===" -> "./link_downed",
/// "==> /sys/class/net/eth0/statistics/rx_errors <==" -> that path; nullopt for other lines.
std::optional<std::string> dump_title_file(std::string_view line);

/// The directory a shell prompt or a `cd` names: "/sys/class/infiniband/mlx5_1/ports/1/counters$ for ...",
/// "root@node01:/sys/class/net/eth0/statistics# grep . *", "cd /sys/class/infiniband/mlx5_0/ports/1/counters"
/// -> that directory (a sysfs directory only: it starts with /sys/); nullopt otherwise.
std::optional<std::string> prompt_sysfs_dir(std::string_view line);

/// A shell line of the loop around the dump ("for f in ...; do", "echo ...", "cat \"$f\"", "done").
bool is_shell_loop_line(std::string_view line);

/// `file` relative to `dir` ("./link_downed" in "/sys/.../counters" -> "/sys/.../counters/link_downed");
/// an absolute `file` is returned as it is.
std::string dump_file_path(const std::string& dir, const std::string& file);

}  // namespace fabdiag
