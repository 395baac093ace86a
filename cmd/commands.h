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

// ---- topo ----
/// `fabdiag topo`: GPU/NIC matrix like `nvidia-smi topo -m`, NIC <-> ibdev <-> netdev, CPU and
/// NUMA affinity, PCIe link speed/width with downgrade findings. Exit codes: 0 ok, 1 a PCIe
/// link finding of warn or worse, 2 usage (also: --sysfs-root/--procfs-root not a directory),
/// 4 partial (something could not be read).
struct TopoOptions {};
int run_topo(const GlobalOptions& g, const TopoOptions& o);
// ---- end topo ----

}  // namespace fabdiag::cmd
