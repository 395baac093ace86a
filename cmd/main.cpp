// fabdiag: command-line entry point. The only translation unit that includes CLI11 (it costs
// 12-17 s to compile); every subcommand's logic lives in cmd/<name>.cpp and the libraries.
#include <CLI/CLI.hpp>
#include <iostream>

#include "cmd/commands.h"
#include "core/exit_codes.h"
#include "core/version.h"

using namespace fabdiag;
using namespace fabdiag::cmd;

namespace {

void add_global_flags(CLI::App& app, GlobalOptions& g) {
  app.add_option("--format", g.format, "Output format: table, json or md (default: table on a terminal, json otherwise)")
      ->check(CLI::IsMember({"table", "json", "md", "markdown"}));
  app.add_option("-o,--output", g.output, "Write the result to FILE (atomically) instead of stdout");
  app.add_option("--sysfs-root", g.sysfs_root, "Read /sys from DIR (a fixture tree or a `fabdiag gather` capture)");
  app.add_option("--procfs-root", g.procfs_root, "Read /proc from DIR");
  app.add_flag("-v,--verbose", g.verbose, "More detail on stderr (repeat for more)");
  app.add_flag("-q,--quiet", g.quiet, "No progress lines on stderr");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "fabdiag: network diagnostics for GPU clusters (NVLink/NVSwitch, InfiniBand, RoCE).\n"
      "Reads topology and counters, runs collective benchmarks, keeps baselines and names slow\n"
      "nodes and links with their evidence.\n\n"
      "Exit codes: 0 ok, 1 problems found, 2 usage, 3 required capability missing,\n"
      "            4 partial result (something could not be read), 70 internal error.",
      "fabdiag"};
  app.set_version_flag("--version", std::string("fabdiag ") + FABDIAG_VERSION);
  app.require_subcommand(0, 1);
  app.fallthrough();
  GlobalOptions g;
  add_global_flags(app, g);

  // ---- doctor ----
  DoctorOptions doctor_opts;
  auto* doctor = app.add_subcommand("doctor", "Which capabilities this binary has here: MPI, NCCL, CUDA, NVML, ibverbs, netlink");
  (void)doctor;

  // ---- topo ----
  TopoOptions topo_opts;
  auto* topo = app.add_subcommand(
      "topo", "GPU/NIC/CPU/NUMA matrix like `nvidia-smi topo -m`, NIC names, PCIe link speed/width");
  topo->footer(
      "Reads sysfs only (--sysfs-root DIR reads a fixture or a `fabdiag gather` capture).\n"
      "Matrix: X self, PIX one PCIe switch, PXB several switches, PHB through the host bridge,\n"
      "NODE across host bridges of one NUMA node, SYS across NUMA nodes; NV# needs NVML (not\n"
      "loaded by this version, so NVLink shows as unknown).\n"
      "PCIe: a link below the lower max of its two ends is a finding: narrower = error,\n"
      "slower = warn (info for GPUs, which slow their link when idle: re-check under load).\n"
      "Example: fabdiag topo --sysfs-root tests/fixtures/dgx8 --format table\n"
      "Exit: 0 ok, 1 link findings (warn or worse), 2 usage (also --sysfs-root or\n"
      "--procfs-root not a directory), 4 partial (something could not be read).");
  // ---- end topo ----
  // ---- baseline ----
  BaselineOptions baseline_opts;
  auto* baseline = app.add_subcommand(
      "baseline",
      "Keep named baselines of bench/pairwise/triage results and diff new results against them");
  baseline->require_subcommand(1);
  baseline->footer(
      "Store: --store DIR, else $FABDIAG_BASELINE_DIR, else $XDG_DATA_HOME/fabdiag/baselines, else\n"
      "~/.local/share/fabdiag/baselines. Exit codes: 0 ok, 1 regression found, 2 bad name or input\n"
      "file (missing, not JSON, not a bench/pairwise/triage result), unknown baseline, existing name\n"
      "without --force; 4 diff compared only part (sizes, pairs or hosts on one side only);\n"
      "70 a file or the store could not be read or written (permission, I/O).");
  auto add_store = [&](CLI::App* sub) {
    sub->add_option("--store", baseline_opts.store_dir,
                    "Baseline directory (default: $FABDIAG_BASELINE_DIR or ~/.local/share/fabdiag/baselines)")
        ->type_name("DIR");
  };
  auto* baseline_save = baseline->add_subcommand(
      "save", "Save a result file (fabdiag --format json output) as baseline NAME");
  baseline_save->add_option("NAME", baseline_opts.name, "Baseline name: letters, digits, '.', '_', '-' (e.g. nightly)")
      ->required();
  baseline_save->add_option("FILE", baseline_opts.file, "Result JSON of bench, pairwise, triage or import ('-' = stdin)")
      ->required();
  baseline_save->add_flag("--force", baseline_opts.force, "Replace baseline NAME if it exists");
  add_store(baseline_save);
  baseline_save->callback([&] { baseline_opts.action = "save"; });
  auto* baseline_diff = baseline->add_subcommand(
      "diff", "Compare a result file with baseline NAME: busbw per collective and size, bandwidth per host pair");
  baseline_diff->add_option("NAME", baseline_opts.name, "Baseline to compare against")->required();
  baseline_diff->add_option("FILE", baseline_opts.file, "Result JSON to compare ('-' = stdin)")->required();
  baseline_diff->add_option("--tolerance", baseline_opts.tolerance,
                            "Allowed drop as a fraction: 0.10 flags below 90% of the baseline as warn, "
                            "below 80% as error")
      ->capture_default_str();
  add_store(baseline_diff);
  baseline_diff->callback([&] { baseline_opts.action = "diff"; });
  auto* baseline_show = baseline->add_subcommand("show", "List the stored baselines, or show baseline NAME");
  baseline_show->add_option("NAME", baseline_opts.name, "Baseline to show (default: list all)");
  add_store(baseline_show);
  baseline_show->callback([&] { baseline_opts.action = "show"; });

  // ---- import ----
  ImportNcclTestsOptions import_nccl_tests_opts;
  auto* import_cmd = app.add_subcommand(
      "import", "Read other tools' outputs into fabdiag result documents, to save, diff or triage offline");
  import_cmd->require_subcommand(1);
  auto* import_nccl_tests = import_cmd->add_subcommand(
      "nccl-tests",
      "nccl-tests output (all_reduce_perf, alltoall_perf, ...) -> fabdiag.bench/1 (GB/s -> bytes/s, us -> s)");
  import_nccl_tests->add_option("FILE", import_nccl_tests_opts.file, "nccl-tests output, log noise allowed ('-' = stdin)")
      ->required();
  import_nccl_tests->add_option("--collective", import_nccl_tests_opts.collective,
                                "Collective of tables the output does not name (all_reduce, alltoall, ...)");
  import_nccl_tests->footer(
      "One table -> data is its bench data; several tables (concatenated runs) -> data.tables[].\n"
      "Exit codes: 0 ok, 1 nccl-tests reported wrong results, 2 FILE unreadable or without a\n"
      "result table, 4 some rows or tables could not be read (listed under errors).");
  // ---- counters-kb: import of counter tool outputs ----
  ImportCountersOptions import_counters_opts;
  struct CounterImporter {
    const char* name;
    const char* help;
  };
  const CounterImporter counter_importers[] = {
      {"ethtool-s", "`ethtool -S NETDEV` text: one snapshot, or \"###\" sections for a delta"},
      {"ethtool-m", "`ethtool -m NETDEV` text: optical power, bias, temperature against the module's thresholds"},
      {"perfquery", "`perfquery` (-x, -E, -D) text: IB port counters (4-octet data words shown in bytes)"},
      {"ibqueryerrors", "`ibqueryerrors` text: per-port error counters of a fabric (saturated = at least)"},
      {"rdma-statistic", "`rdma statistic show` (default, -p or -j): RDMA hw counters"},
      {"syslog", "syslog/journal/dmesg lines: carrier losses per interface (link flaps)"}};
  for (const auto& ci : counter_importers) {
    auto* sub = import_cmd->add_subcommand(ci.name, std::string(ci.help) + " -> fabdiag.counters/1");
    sub->add_option("FILE", import_counters_opts.file, "The saved output ('-' = stdin)")->required();
    sub->add_option("--interval", import_counters_opts.interval_s,
                    "Seconds between the \"###\" sections (gives rates; default: unknown)")
        ->check(CLI::Range(0.001, 1e9));
    sub->add_flag("--all", import_counters_opts.all, "Also list zero / unmoved counters");
    if (std::string(ci.name) == "ethtool-s" || std::string(ci.name) == "ethtool-m")
      sub->add_option("--netdev", import_counters_opts.netdev,
                      "The netdev the text is about (when no \"### ethtool -S NAME\" title says)");
    sub->footer("Same output and findings as `fabdiag counters --from FILE`. Exit codes: 0 healthy,\n"
                "1 a warn/error/critical finding, 2 FILE missing or not this format, 4 part of the\n"
                "input could not be read (listed under errors).");
    std::string fmt = ci.name;
    sub->callback([&import_counters_opts, fmt] { import_counters_opts.format = fmt; });
  }
  // ---- end counters-kb ----
  // ---- counters ----
  CountersOptions counters_opts;
  auto* counters = app.add_subcommand(
      "counters",
      "RDMA port counters, hw_counters, netdev and ethtool stats: one snapshot, or deltas and "
      "rates over --interval; classified (traffic, pause, ecn, cnp, phy_error, discard, "
      "retransmit, link) and interpreted into findings");
  counters->footer(
      "A single snapshot shows cumulative values since the counters were last reset: it has no\n"
      "time base, so no rates are given and only absolute-count rules apply. Use --interval to\n"
      "measure what moves now. IB counters are read from sysfs (each read is a PMA query).\n"
      "port_xmit_data/port_rcv_data count 4-octet words and are shown in bytes. Driver stats\n"
      "come from the SIOCETHTOOL ioctl on the live host, or from <root>/ethtool/<netdev>\n"
      "(`ethtool -S` text) under a fixture --sysfs-root. A missing --sysfs-root or\n"
      "--after-sysfs-root directory is a usage error (exit 2).\n"
      "Each port gets one line saying what is happening (PFC storm, congestion, lossy RoCE,\n"
      "physical degradation, link flaps, receiver starvation, ECN not enabled, optics);\n"
      "counters not in the knowledge base are listed with category \"unknown\".\n"
      "Examples:\n"
      "  fabdiag counters                     # non-zero counters now\n"
      "  fabdiag counters --interval 10       # what moves during 10 s, with rates\n"
      "  fabdiag counters --interval 10 --only pause --device mlx5_0\n"
      "  fabdiag counters --sysfs-root before/ --after-sysfs-root after/ --interval 60\n"
      "  fabdiag counters --from ethtool-S.txt --from rdma-stat.txt --interval 30");
  auto* counters_interval = counters->add_option(
      "--interval", counters_opts.interval_s,
      "Take two snapshots SECONDS apart and show deltas and per-second rates (0.001-86400)")
      ->check(CLI::Range(0.001, 86400.0));
  counters->add_option("--only", counters_opts.only,
                       "Show only counters of one CATEGORY (findings are never filtered)")
      ->check(CLI::IsMember({"traffic", "pause", "ecn", "cnp", "phy_error", "discard",
                             "retransmit", "link", "other", "unknown"}));
  counters->add_flag("--all", counters_opts.all,
                     "Also list zero (snapshot) or unmoved (--interval) counters; by default "
                     "they are hidden and counted");
  counters->add_option("--after-sysfs-root", counters_opts.after_sysfs_root,
                       "Read the second snapshot from DIR instead of waiting (fixtures, saved "
                       "captures); --interval then gives the assumed window in seconds")
      ->check(CLI::ExistingDirectory)
      ->needs(counters_interval);
  counters->add_option("--device", counters_opts.devices,
                       "Only this device: an ibdev (mlx5_0), a port (mlx5_0/1) or a netdev "
                       "(repeatable)");
  counters->add_flag("--no-ethtool", counters_opts.no_ethtool,
                     "Do not read driver (ethtool -S) statistics");
  // ---- counters-kb: --from saved tool outputs ----
  counters->add_option("--from", counters_opts.from,
                       "Interpret saved tool outputs instead of sysfs: ethtool -S, ethtool -m, "
                       "perfquery, ibqueryerrors, rdma statistic show, syslog (repeatable; "
                       "\"###\" sections are snapshots in time order, the first two give the "
                       "window; --interval gives the seconds between them)")
      ->type_name("FILE");
  counters->add_option("--from-format", counters_opts.from_format,
                       "Format of the --from files (default: detected from each file)")
      ->check(CLI::IsMember({"auto", "ethtool-s", "ethtool-m", "perfquery", "ibqueryerrors",
                             "rdma-statistic", "syslog"}));
  counters->add_option("--netdev", counters_opts.netdev,
                       "Netdev that ethtool -S / ethtool -m text is about, when the text does not "
                       "say (a \"### ethtool -S NAME\" title does)");
  // ---- end counters-kb ----
  // ---- end counters ----

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ExtrasError& e) {
    print_error(std::string("unknown subcommand or argument: ") + e.what() +
                "\nRun 'fabdiag --help' for the list of subcommands.");
    return kExitUsage;
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }
  if (app.get_subcommands().empty()) {
    std::cerr << app.help() << "\nfabdiag: error: a subcommand is required (see the list above)\n";
    return kExitUsage;
  }

  try {
    if (doctor->parsed()) return run_doctor(g, doctor_opts);
    if (topo->parsed()) return run_topo(g, topo_opts);
    if (baseline->parsed()) return run_baseline(g, baseline_opts);
    if (import_nccl_tests->parsed()) return run_import_nccl_tests(g, import_nccl_tests_opts);
    if (!import_counters_opts.format.empty()) return run_import_counters(g, import_counters_opts);
    if (counters->parsed()) return run_counters(g, counters_opts);
  } catch (const std::exception& e) {
    print_error(std::string("internal error: ") + e.what());
    return kExitInternal;
  }
  print_error("no subcommand ran");
  return kExitUsage;
}
