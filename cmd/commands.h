// Entry points of the subcommands. main.cpp (the only file that includes CLI11) parses flags
// into these option structs and calls run_*; each run_* lives in cmd/<name>.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cmd/common.h"
#include "cmd/import_readers.h"

namespace fabdiag::cmd {

/// `fabdiag doctor`: capabilities of this binary on this host.
struct DoctorOptions {};
int run_doctor(const GlobalOptions& g, const DoctorOptions& o);

// ---- topo ----
/// `fabdiag topo`: GPU/NIC matrix like `nvidia-smi topo -m` (NV# from NVML), NIC <-> ibdev <->
/// netdev, CPU/NUMA affinity, GPU NUMA ID, rails, PCIe link speed/width with downgrade
/// findings, and with --against the drift from a saved result. Exit codes: 0 ok, 1 a finding
/// of warn or worse, 2 usage (also: --sysfs-root/--procfs-root not a directory, --against
/// missing or not a fabdiag.topo/1 result), 4 partial (something could not be read, also an
/// NVML asked for with --nvml-lib / FABDIAG_NVML_LIB that does not answer).
struct TopoOptions {
  std::string nvml_lib;  ///< --nvml-lib PATH; empty = $FABDIAG_NVML_LIB, else libnvidia-ml.so.1 on a live /sys.
  std::string against;   ///< --against FILE: a saved `fabdiag topo --format json` result.
};
int run_topo(const GlobalOptions& g, const TopoOptions& o);
/// run_topo() without printing: nullopt with `out` filled, or the exit code of a run that could
/// not start (its error printed: bad roots, --nvml-lib refused, --against unusable).
std::optional<int> topo_output(const GlobalOptions& g, const TopoOptions& o, ImportOutput& out);
// ---- end topo ----
// ---- gather ----
/// `fabdiag gather`: copies the /sys subset topo, check and counters read into --output DIR
/// (new or empty) and/or --tar FILE (.tar.gz through the system tar), with GUIDs, GIDs, MACs,
/// node descriptions and PCIe serial numbers replaced (probes/capture/sysfs_capture.h). Exit codes: 0
/// ok, 2 neither --output nor --tar, DIR not empty, --sysfs-root not a sysfs tree; 3 no tar
/// program; 4 some files could not be read; 70 DIR or FILE cannot be written.
struct GatherOptions {
  std::string out_dir;   ///< --output DIR.
  std::string tar_file;  ///< --tar FILE.
};
int run_gather(const GlobalOptions& g, const GatherOptions& o);
// ---- end gather ----
// ---- baseline ----
/// `fabdiag baseline save|diff|show|fleet`: named result baselines with history (baseline/store.h,
/// history.h, diff.h, rollup.h, fleet.h). Exit codes: 0 ok; 1 diff found a regression or drift
/// at warn; 4 diff compared only part (sizes, pairs or hosts on one side only); 2 bad NAME, FILE
/// missing / not JSON / not a baselinable fabdiag result, unknown baseline, NAME exists without
/// --append or --force, bad --tolerance, --last, --spread-k or --keep; 70 the store cannot be
/// written.
struct BaselineOptions {
  std::string action;       ///< "save" | "diff" | "show" | "fleet" (set by the parser).
  std::string store_dir;    ///< --store DIR; empty = $FABDIAG_BASELINE_DIR, XDG default.
  std::string name;         ///< Baseline name ([A-Za-z0-9._-]+); optional for show.
  std::string file;         ///< Result JSON to save or diff; "-" = stdin.
  std::vector<std::string> files;  ///< fleet: the nodes' result files.
  bool force = false;       ///< save, fleet: replace an existing baseline (history restarted).
  bool append = false;      ///< save: add the run to NAME's history.
  size_t keep = 30;         ///< save: runs kept per key (retention), >= 1.
  double tolerance = 0.10;  ///< diff: relative drop that counts as a regression.
  size_t last_runs = 7;     ///< diff: K, runs of the history compared with.
  double spread_k = 3.5;    ///< diff: k, a drop within k x spread (1.4826 x MAD) is noise.
};
}  // namespace fabdiag::cmd
namespace CLI {
class App;
}
namespace fabdiag::cmd {
/// Registers `baseline` and its subcommands on `app`, writing into `o` (cmd/baseline.cpp).
/// `with_flags` false: `baseline` alone (its name and description, what `fabdiag --help` lists),
/// without its subcommands and flags, for a command line that does not name it.
CLI::App* add_baseline_command(CLI::App& app, BaselineOptions& o, bool with_flags = true);
int run_baseline(const GlobalOptions& g, const BaselineOptions& o);

// ---- report ----
/// `fabdiag report FILE...`: renders saved results (fabdiag.bench/1, pairwise/1, triage/1,
/// baseline_diff/1, accept/1, import/1 part by part) as one report: pass/fail per node, link
/// and check, pairwise heatmap, busbw curves, findings, evidence chains (docs/report.md).
/// --format html gives one self-contained page, junit a JUnit XML. Exit codes: 0 everything
/// passed; 1 a node, link or check failed (a finding at warn or above counts); 2 a FILE is not
/// JSON, not a fabdiag result or of a schema not rendered; 4 a FILE could not be read (the
/// rest is rendered, the gap named).
struct ReportOptions {
  std::vector<std::string> files;  ///< Result documents; "-" = stdin.
  std::string title;               ///< --title: the report's heading; empty = from the files.
};
int run_report(const GlobalOptions& g, const ReportOptions& o);
// ---- end report ----

// ---- import ----
/// `fabdiag import nccl-tests FILE`: nccl-tests output -> one fabdiag.bench/1 envelope
/// (data = the bench data of the one table, or {"tables": [...]} for several).
/// Exit codes: 0 ok; 1 nccl-tests reported wrong results; 4 some rows or tables could not
/// be read; 2 FILE missing or holds no nccl-tests table, bad --collective.
struct ImportNcclTestsOptions {
  std::string file;        ///< nccl-tests output; "-" = stdin.
  std::string collective;  ///< Collective of tables the output does not name.
  size_t max_findings = 200;  ///< Tables, findings and errors of one kind listed; 0 = all.
  std::optional<double> line_rate_gbit_per_s;  ///< --line-rate: one port's rate, Gb/s.
};
int run_import_nccl_tests(const GlobalOptions& g, const ImportNcclTestsOptions& o);
/// run_import_nccl_tests() without printing. Errors: as fail_input() takes them (FILE
/// missing, no result table, bad --collective).
Result<ImportOutput> nccl_tests_output(const ImportNcclTestsOptions& o);
// ---- counters ----
/// `fabdiag counters`: one snapshot (cumulative values), or two snapshots --interval seconds
/// apart with deltas and per-second rates, classified and interpreted (cmd/counters.cpp);
/// --watch refreshes a top-movers view (cmd/counters_watch.cpp); --format prometheus writes
/// the node_exporter textfile format (metrics/counter_metrics.h).
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
  /// With interval_s > 0 and no after_sysfs_root: run after the first snapshot, before the wait
  /// (`accept` runs its bench inside the window); the window is then the bench plus interval_s.
  std::function<void()> during_window;
  // ---- counters-kb ----
  std::vector<std::string> from;  ///< Saved tool outputs to read instead of sysfs ("-" = stdin).
  std::string from_format;        ///< Their format (import/counter_formats.h); empty/"auto" = detect.
  std::string netdev;             ///< Netdev name for ethtool -S / -m text that does not say it.
  size_t max_findings = 200;      ///< --from: findings of one code, errors of one kind listed; 0 = all.
  // ---- end counters-kb ----
};
int run_counters(const GlobalOptions& g, const CountersOptions& o);
/// run_counters() without printing, the data always built (for `fabdiag import FILE...`,
/// which joins several results): nullopt with `out` filled, or the exit code of a run that
/// could not start (its error printed: a bad flag, a --from file missing or unreadable).
std::optional<int> counters_output(const GlobalOptions& g, const CountersOptions& o, ImportOutput& out);
// ---- end counters ----
// ---- counters-kb: import of counter tool outputs ----
/// `fabdiag import ethtool-s|ethtool-m|ethtool-fec|perfquery|ibqueryerrors|rdma-statistic|syslog FILE`:
/// the counters of a saved tool output, interpreted like `fabdiag counters` (same schema
/// fabdiag.counters/1, same findings). Exit codes: 0 healthy, 1 a warn/error/critical finding,
/// 2 FILE missing or not in that format, 4 part of the input could not be read.
struct ImportCountersOptions {
  std::string format;       ///< "ethtool-s", ... (set by the parser).
  std::string file;         ///< The saved output; "-" = stdin.
  std::string netdev;       ///< ethtool-s / ethtool-m: the netdev the text is about.
  double interval_s = 0;    ///< Seconds between "###" sections (0 = unknown: deltas, no rates).
  bool all = false;         ///< Also list zero / unmoved counters.
  size_t max_findings = 200;  ///< Findings of one code and errors of one kind listed; 0 = all.
};
int run_import_counters(const GlobalOptions& g, const ImportCountersOptions& o);
// ---- end counters-kb ----
// ---- check ----
/// `fabdiag check`: host data-path lint (rules/check_run.h) over this host's sysfs/procfs, or
/// over saved tool outputs (--from). Exit codes: 0 nothing at warn or above, 1 findings at warn
/// or above, 2 usage (bad --expect-rate, --from file missing or not recognized, bad roots),
/// 4 partial (something could not be read).
struct CheckOptions {
  std::vector<std::string> from;          ///< --from FILE...: saved outputs instead of sysfs.
  std::string from_format = "auto";       ///< --from-format: auto, lspci, ibstat, ibstatus, ibv-devinfo, nccl-log.
  std::vector<std::string> expect_rates;  ///< --expect-rate GBPS or MODEL=GBPS (repeatable).
};
int run_check(const GlobalOptions& g, const CheckOptions& o);
/// run_check() without printing: nullopt with `out` filled, or the exit code of a run that
/// could not start (its error printed).
std::optional<int> check_output(const GlobalOptions& g, const CheckOptions& o, ImportOutput& out);

/// `fabdiag import lspci|ibstat|ibstatus|ibv-devinfo FILE`: the parsed host facts as a
/// fabdiag.hostfacts/1 envelope (no judgement; `check --from` judges). Exit codes: 0 ok,
/// 2 FILE missing or not in that format, 4 some sections or lines could not be read.
struct ImportHostOptions {
  std::string format;  ///< "lspci", "ibstat", "ibstatus", "ibv-devinfo" (set by the parser).
  std::string file;    ///< The saved output; "-" = stdin.
  size_t max_findings = 200;  ///< Errors of one kind listed; 0 = all.
};
int run_import_host(const GlobalOptions& g, const ImportHostOptions& o);
// ---- end check ----

// ---- long runs: checkpoint and deadline ----
/// Flags of the runs that wait on other hosts (bench, pairwise): where their progress is kept
/// and when they are cut. Cut by Ctrl-C (exit 130), SIGTERM (143) or the deadline (exit 4),
/// they print what finished, marked partial (cmd/partial_run.h).
struct RunControlOptions {
  std::string checkpoint;  ///< --checkpoint FILE: the result so far, rewritten after each step.
  double timeout_s = 600;  ///< --timeout: seconds before the run is cut; 0 = no deadline.
};

// ---- triage ----
/// `fabdiag triage`: the layered walk on a cluster; names slow nodes and links.
struct TriageOptions {
  std::string hostfile;                  ///< Launcher mode: compose and run mpirun over these hosts.
  std::string mpirun = "mpirun";         ///< Launcher program.
  std::string mpirun_args_file;          ///< Extra mpirun arguments, one per line.
  std::vector<std::string> mpirun_args;  ///< Extra mpirun arguments (repeatable --mpirun-arg).
  double timeout_s = -1;                 ///< Deadline for the whole walk (launcher or rank 0); < 0: derived (triage/deadline.h).
  double dead_after_s = 30;              ///< --dead-after: a pair test not complete after this is given up, named dead.
  std::string checkpoint;                ///< --checkpoint FILE: the walk so far, after each step.
  std::string pair_size = "auto";        ///< Pair test message size per direction; "auto": adapts (triage/pair_sizing.h).
  int pair_iters = 3;                    ///< Exchanges per pair test.
  std::string sweep_min = "1M";          ///< Collective sweep -b.
  std::string sweep_max = "4M";          ///< Collective sweep -e.
  int bench_iters = 5;                   ///< Timed iterations per size.
  bool no_sweeps = false;                ///< Skip the collective sweeps.
  bool full_sweeps = false;              ///< --full-sweeps: no early stop (triage/sweep_early_stop.h).
  std::string backend = "mpi";           ///< --backend mpi|nccl: host memory or one GPU per rank.
  bool worker = false;                   ///< Internal: running as an MPI rank under the launcher.
  std::vector<std::string> from;         ///< --from DIR|FILE...: the offline walk over collected outputs.
  double node_ratio = 0;                 ///< --node-ratio: node median / reference below this = slow; 0: adaptive (triage/threshold.h).
  double pair_ratio = 0.15;              ///< --pair-ratio: pair / pair reference below this = slow.
  double expected_rate = 0;              ///< --expected-rate: reference bytes/s per pair direction; 0 = none.
  std::string topology;                  ///< --topology FILE: host -> leaf -> spine (import/fabric_topology.h).
  double oversubscription = 1;           ///< --oversubscription R: the fabric is R:1 (host bandwidth of a leaf / its uplinks); 1 = non-blocking.
};
int run_triage(const GlobalOptions& g, const TriageOptions& o);
/// `triage --from`: collected outputs read as `fabdiag import FILE...` reads them, every finding
/// given its host, joined into one fabdiag.triage/1 verdict (data.source "files": systemic[],
/// suspects[], fabric[], cleared[]; triage/offline.h). Exit codes: 0 no fault, 1 a finding at
/// warn or above, 2 nothing readable, 4 some files could not be read (cmd/triage_from.cpp).
int run_triage_from(const GlobalOptions& g, const TriageOptions& o);
// ---- end triage ----
// ---- bench ----
/// `fabdiag bench COLL`: one collective over a size sweep, nccl-tests style (run under mpirun,
/// one rank per node or GPU; only rank 0 prints). Sizes stay text here: run_bench parses the
/// K/M/G suffixes so that a bad size is a usage error (exit 2) naming the flag.
struct BenchOptions {
  std::string collective;         ///< all_reduce, all_gather, reduce_scatter, alltoall, ...
  std::string min_bytes = "8";    ///< -b
  std::string max_bytes = "64M";  ///< -e
  uint64_t factor = 2;            ///< -f
  int warmup_iters = 5;           ///< -w
  int iters = 20;                 ///< -n
  std::string dtype = "float";    ///< --dtype
  std::string backend = "mpi";    ///< --backend mpi|nccl
  std::optional<int> gpus;        ///< -g: local GPUs of --backend nccl (not given: 1)
  int root = 0;                   ///< -r: root of broadcast, reduce, gather, scatter
  int graph_launches = 0;         ///< -G: CUDA graph launches per size (--backend nccl; 0 = none)
  int skew_iters = 0;             ///< --skew-iters: skew-probe calls per size (perf::BenchOptions)
  RunControlOptions run;          ///< --checkpoint, --timeout
};
int run_bench(const GlobalOptions& g, const BenchOptions& o);

// ---- pairwise ----
/// `fabdiag pairwise`: node x node bandwidth matrix from round-robin rounds of concurrent
/// bidirectional pairs (run under mpirun with one rank per node; only rank 0 prints).
struct PairwiseOptions {
  std::string size = "4M";     ///< --size: bytes each way per exchange
  int iters = 5;               ///< -n
  int warmup_iters = 1;        ///< -w
  std::string backend = "mpi"; ///< --backend mpi|nccl
  std::string pair_comm = "world";  ///< --pair-comm world|split: one shared communicator, or one per pair.
  int rail = -1;               ///< --rail N: GPU N of every node and its rail NIC (nccl only); -1 = local rank's GPU
  double node_ratio = 0.5;     ///< --node-ratio: slow node below this x reference
  double pair_ratio = 0.15;    ///< --pair-ratio: slow pair below this x reference
  RunControlOptions run;       ///< --checkpoint, --timeout
};
int run_pairwise(const GlobalOptions& g, const PairwiseOptions& o);

}  // namespace fabdiag::cmd
