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
/// apart with deltas and per-second rates, classified and interpreted (cmd/counters.cpp).
struct CountersOptions {
  double interval_s = 0;         ///< 0 = single snapshot; > 0 = window between two snapshots.
  std::string only;              ///< Category filter ("pause", "phy_error", ...); empty = all.
  bool all = false;              ///< Also list zero / unmoved counters.
  std::string after_sysfs_root;  ///< Second snapshot from this tree instead of waiting (fixtures).
  std::vector<std::string> devices;  ///< Only these ibdevs, ibdev/port or netdevs.
  bool no_ethtool = false;       ///< Skip driver (ethtool) statistics.
  // ---- counters-kb ----
  std::vector<std::string> from;  ///< Saved tool outputs to read instead of sysfs ("-" = stdin).
  std::string from_format;        ///< Their format (probes/import_counters.h); empty/"auto" = detect.
  std::string netdev;             ///< Netdev name for ethtool -S / -m text that does not say it.
  // ---- end counters-kb ----
};
int run_counters(const GlobalOptions& g, const CountersOptions& o);
// ---- end counters ----
// ---- counters-kb: import of counter tool outputs ----
/// `fabdiag import ethtool-s|ethtool-m|perfquery|ibqueryerrors|rdma-statistic|syslog FILE`:
/// the counters of a saved tool output, interpreted like `fabdiag counters` (same schema
/// fabdiag.counters/1, same findings). Exit codes: 0 healthy, 1 a warn/error/critical finding,
/// 2 FILE missing or not in that format, 4 part of the input could not be read.
struct ImportCountersOptions {
  std::string format;       ///< "ethtool-s", ... (set by the parser).
  std::string file;         ///< The saved output; "-" = stdin.
  std::string netdev;       ///< ethtool-s / ethtool-m: the netdev the text is about.
  double interval_s = 0;    ///< Seconds between "###" sections (0 = unknown: deltas, no rates).
  bool all = false;         ///< Also list zero / unmoved counters.
};
int run_import_counters(const GlobalOptions& g, const ImportCountersOptions& o);
// ---- end counters-kb ----

}  // namespace fabdiag::cmd
