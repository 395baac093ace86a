// Entry points of the subcommands. main.cpp (the only file that includes CLI11) parses flags
// into these option structs and calls run_*; each run_* lives in cmd/<name>.cpp.
#pragma once

#include <string>
#include <vector>

#include "cmd/common.h"

namespace fabdiag::cmd {

/// `fabdiag doctor`: capabilities of this binary on this host.
struct DoctorOptions {};
int run_doctor(const GlobalOptions& g, const DoctorOptions& o);

// ---- counters ----
/// `fabdiag counters`: one snapshot (cumulative values), or two snapshots --interval seconds
/// apart with deltas and per-second rates, classified and interpreted (cmd/counters.cpp).
struct CountersOptions {
  double interval_s = 0;         ///< 0 = single snapshot; > 0 = window between two snapshots.
  std::string only;              ///< Category filter ("pause", "phy_error", ...); empty = all.
  bool all = false;              ///< Also list zero / unmoved counters.
  std::string after_sysfs_root;  ///< Second snapshot from this tree instead of waiting (fixtures).
  std::vector<std::string> devices;  ///< Only these ibdevs, ibdev/port or netdevs.
  bool no_ethtool = false;       ///< Skip driver (ethtool) statistics.
};
int run_counters(const GlobalOptions& g, const CountersOptions& o);
// ---- end counters ----

}  // namespace fabdiag::cmd
