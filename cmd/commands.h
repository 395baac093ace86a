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
// ---- baseline ----
/// `fabdiag baseline save|diff|show`: named result baselines (baseline/store.h, diff.h).
/// Exit codes: 0 ok; 1 diff found a regression; 4 diff compared only part (sizes, pairs or
/// hosts on one side only); 2 bad NAME, FILE missing / not JSON / not a baselinable fabdiag
/// result, unknown baseline, NAME exists without --force, bad --tolerance; 70 the store
/// cannot be written.
struct BaselineOptions {
  std::string action;       ///< "save" | "diff" | "show" (set by the parser).
  std::string store_dir;    ///< --store DIR; empty = $FABDIAG_BASELINE_DIR, XDG default.
  std::string name;         ///< Baseline name ([A-Za-z0-9._-]+); optional for show.
  std::string file;         ///< Result JSON to save or diff; "-" = stdin.
  bool force = false;       ///< save: replace an existing baseline.
  double tolerance = 0.10;  ///< diff: relative drop that counts as a regression.
};
int run_baseline(const GlobalOptions& g, const BaselineOptions& o);

// ---- import ----
/// `fabdiag import nccl-tests FILE`: nccl-tests output -> one fabdiag.bench/1 envelope
/// (data = the bench data of the one table, or {"tables": [...]} for several).
/// Exit codes: 0 ok; 1 nccl-tests reported wrong results; 4 some rows or tables could not
/// be read; 2 FILE missing or holds no nccl-tests table, bad --collective.
struct ImportNcclTestsOptions {
  std::string file;        ///< nccl-tests output; "-" = stdin.
  std::string collective;  ///< Collective of tables the output does not name.
};
int run_import_nccl_tests(const GlobalOptions& g, const ImportNcclTestsOptions& o);
// ---- counters ----
/// `fabdiag counters`: one snapshot (cumulative values), or two snapshots --interval seconds
/// apart with deltas and per-second rates, classified and interpreted (cmd/counters.cpp);
/// --watch refreshes a top-movers view (cmd/counters_watch.cpp); --format prometheus writes
/// the node_exporter textfile format (cmd/counters_prometheus.cpp).
struct CountersOptions {
  double interval_s = 0;         ///< 0 = single snapshot; > 0 = window between two snapshots.
  std::string only;              ///< Category filter ("pause", "phy_error", ...); empty = all.
  bool all = false;              ///< Also list zero / unmoved counters.
  std::string after_sysfs_root;  ///< Second snapshot from this tree instead of waiting (fixtures).
  std::vector<std::string> devices;  ///< Only these ibdevs, ibdev/port or netdevs.
  bool no_ethtool = false;       ///< Skip everything ethtool: driver stats, netlink link facts, module EEPROM.
  bool watch = false;            ///< Refreshing view of per-second rates until Ctrl-C or --count.
  int count = 0;                 ///< --watch: stop after this many refreshes (0 = until Ctrl-C).
  int top = 20;                  ///< --watch: show this many top movers (0 = all that moved).
  bool prometheus_all = false;   ///< --format prometheus: every counter, not only classified ones.
};
int run_counters(const GlobalOptions& g, const CountersOptions& o);
// ---- end counters ----

}  // namespace fabdiag::cmd
