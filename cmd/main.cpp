// fabdiag: command-line entry point. With cmd/baseline.cpp and cmd/accept.cpp (their options) the only
// translation units that include CLI11 (it costs 12-17 s to compile); every subcommand's logic
// lives in cmd/<name>.cpp and the libraries.
#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <vector>

#include "cmd/accept.h"
#include "cmd/commands.h"
#include "cmd/error_document.h"
#include "cmd/cli_validators.h"
#include "cmd/triage_options.h"
#include "cmd/help_text.h"
#include "cmd/import_any.h"
#include "cmd/import_readers.h"
#include "cmd/run_commands_cli.h"
#include "core/atomic_file.h"
#include "core/exit_codes.h"
#include "core/version.h"

using namespace fabdiag;
using namespace fabdiag::cmd;

namespace {

void add_global_flags(CLI::App& app, GlobalOptions& g) {
  app.add_option("--format", g.format,
                 "Output format: table, json, md, html (one self-contained page) or junit (JUnit XML) "
                 "(default: table on a terminal, json otherwise); prometheus (node_exporter textfile) for `counters` and `baseline diff`; "
                 "nccl-tests (the table all_reduce_perf prints) for `bench`")
      ->check(CLI::IsMember({"table", "json", "md", "markdown", "html", "junit", "prometheus", "nccl-tests"}));
  app.add_option("-o,--output", g.output, "Write the result to FILE (atomically) instead of stdout");
  app.add_option("--sysfs-root", g.sysfs_root, "Read /sys from DIR (a fixture tree or a `fabdiag gather` capture)");
  app.add_option("--procfs-root", g.procfs_root,
                 "Read /proc from DIR (default /proc; with --sysfs-root DIR/sys, the sibling DIR/proc if "
                 "present, else none: /proc facts are then unknown, never the live host's)");
  app.add_flag("-v,--verbose", g.verbose, "More detail on stderr (repeat for more)");
  app.add_flag("-q,--quiet", g.quiet, "No progress lines on stderr");
}

// The flags of every subcommand land here; main dispatches on the subcommands' CLI::App.
struct Options {
  GlobalOptions global;
  DoctorOptions doctor;
  TopoOptions topo;
  GatherOptions gather;
  BaselineOptions baseline;
  ImportNcclTestsOptions import_nccl_tests;
  ImportCountersOptions import_counters;
  ImportHostOptions import_host;
  ImportFileOptions import_file;
  ImportAnyOptions import_any;
  CountersOptions counters;
  CheckOptions check;
  TriageOptions triage;
  BenchOptions bench;
  PairwiseOptions pairwise;
  AcceptOptions accept;
  ReportOptions report;
};

// The registered subcommands (not owned: the CLI::App tree owns them).
struct Commands {
  CLI::App* doctor = nullptr;
  CLI::App* topo = nullptr;
  CLI::App* gather = nullptr;
  CLI::App* baseline = nullptr;
  CLI::App* import = nullptr;
  CLI::App* import_nccl_tests = nullptr;
  std::vector<CLI::App*> import_host;
  std::vector<std::pair<CLI::App*, const ImportReader*>> import_readers;  ///< cmd/import_readers.h rows.
  CLI::App* counters = nullptr;
  CLI::App* check = nullptr;
  CLI::App* triage = nullptr;
  CLI::App* bench = nullptr;
  CLI::App* pairwise = nullptr;
  CLI::App* accept = nullptr;
  CLI::App* report = nullptr;
};

CLI::App* add_doctor_command(CLI::App& app) {
  return app.add_subcommand("doctor", "Which capabilities this binary has here: MPI, NCCL, CUDA, NVML, ibverbs, netlink");
}

CLI::App* add_topo_command(CLI::App& app, TopoOptions& o) {
  auto* sub = app.add_subcommand(
      "topo", "GPU/NIC/CPU/NUMA matrix like `nvidia-smi topo -m`, NVLink, rails, PCIe link speed/width, drift");
  sub->add_option("--nvml-lib", o.nvml_lib,
                  "NVML library to dlopen for GPU names and NVLinks (default: $FABDIAG_NVML_LIB, else "
                  "libnvidia-ml.so.1 when reading this machine's /sys; running setuid or setgid the variable is "
                  "ignored and this flag refused)")
      ->type_name("PATH");
  sub->add_option("--against", o.against,
                  "Report what changed since BASELINE, a saved `fabdiag topo --format json` result: lost "
                  "NVLinks, moved NICs, narrower/slower PCIe links, lower port rates, devices gone or added")
      ->type_name("BASELINE.json");
  sub->footer(
      "Reads sysfs (--sysfs-root DIR reads a fixture or a `fabdiag gather` capture) and NVML.\n"
      "Matrix: X self, PIX one PCIe switch, PXB several switches, PHB through the host bridge,\n"
      "NODE across host bridges of one NUMA node, SYS across NUMA nodes, NV# # bonded NVLinks\n"
      "(through NVSwitch: the smaller active switch-link count of the two GPUs). NVML is read\n"
      "on a live /sys; for a fixture or capture only with --nvml-lib (else NVLink is unknown).\n"
      "A GPU with fewer active NVLinks than the other GPUs of the node is a warn.\n"
      "Rails: each GPU's closest RDMA NIC; a warn when GPUs share their local NICs or a GPU\n"
      "has none within PXB (no GPUDirect RDMA by default); info for NICs close to no GPU.\n"
      "PCIe: a link below the lower max of its two ends is a finding: narrower = error,\n"
      "slower = warn (info for GPUs, which slow their link when idle: re-check under load).\n"
      "Examples: fabdiag topo --sysfs-root tests/fixtures/dgx8 --format table\n"
      "          fabdiag topo --format json -o topo-good.json; later: fabdiag topo --against topo-good.json\n"
      "Exit: 0 ok, 1 findings (warn or worse), 2 usage (also --sysfs-root or --procfs-root\n"
      "not a directory, --against missing or not a topo result), 4 partial (something could\n"
      "not be read, also an NVML named by --nvml-lib or FABDIAG_NVML_LIB that does not answer).");
  return sub;
}

CLI::App* add_gather_command(CLI::App& app, GatherOptions& o) {
  auto* sub = app.add_subcommand(
      "gather", "Capture this node's /sys subset (PCI, net, infiniband) as an anonymized fixture directory or .tar.gz");
  sub->add_option("-o,--output", o.out_dir, "Directory to create (must not exist or be empty)")
      ->type_name("DIR");
  sub->add_option("--tar", o.tar_file, "Also (or only) write the capture as a .tar.gz (uses the tar program)")
      ->type_name("FILE");
  sub->footer(
      "Copies what topo, check and counters read: bus/pci/devices/* (attributes, config space),\n"
      "class/net/*, class/infiniband/* (ports, GIDs, counters), NUMA nodes, IOMMU and GPUDirect\n"
      "module presence; links are recreated as relative links. GUIDs, GIDs, MAC addresses,\n"
      "node_desc (host name) and PCIe serial numbers are replaced by stable placeholders.\n"
      "The summary goes to stdout (--format). Example:\n"
      "  fabdiag gather --output node17-sys && fabdiag topo --sysfs-root node17-sys\n"
      "Exit: 0 ok, 2 no --output/--tar, DIR not empty or not writable, 3 no tar program, 4 some\n"
      "files unreadable, or the capture or tar failed to write (I/O).");
  return sub;
}

// --max-findings of the import subcommands: huge inputs give bounded output (core/repeats.h).
void add_max_findings_flag(CLI::App* sub, size_t& max_findings) {
  sub->add_option("--max-findings", max_findings,
                  "List at most N findings of one code, N errors of one kind (and N nccl-tests tables); "
                  "the rest are summarised as \"... and K more like this\" (0 = list all)")
      ->check(number_in(0, 1e9))->capture_default_str();
}

CLI::App* add_import_nccl_tests_command(CLI::App& import_cmd, ImportNcclTestsOptions& o) {
  auto* sub = import_cmd.add_subcommand(
      "nccl-tests",
      "nccl-tests output (all_reduce_perf, alltoall_perf, ...) -> fabdiag.bench/1 (GB/s -> bytes/s, us -> s)");
  sub->add_option("FILE", o.file, "nccl-tests output, log noise allowed ('-' = stdin)")->required();
  sub->add_option("--collective", o.collective,
                  "Collective of tables the output does not name (all_reduce, alltoall, ...)");
  sub->add_option("--line-rate", o.line_rate_gbit_per_s,
                  "One port's rate in Gb/s (400 for NDR): busbw below 90% of it is a warning")->check(number_in(1, 1e6));
  add_max_findings_flag(sub, o.max_findings);
  sub->footer(kImportNcclTestsFooter);
  return sub;
}

void add_import_counters_commands(CLI::App& import_cmd, ImportCountersOptions& o) {
  struct CounterImporter {
    const char* name;
    const char* help;
  };
  const CounterImporter counter_importers[] = {
      {"ethtool-s", "`ethtool -S NETDEV` text: one snapshot, or \"###\" sections for a delta"},
      {"ethtool-m", "`ethtool -m NETDEV` text: optical power, bias, temperature against the module's thresholds"},
      {"ethtool-fec", "`ethtool -I --show-fec NETDEV` text: FEC mode, corrected/uncorrectable blocks per lane"},
      {"perfquery", "`perfquery` (-x, -E, -D) text: IB port counters (4-octet data words shown in bytes)"},
      {"ibqueryerrors", "`ibqueryerrors` text: per-port error counters of a fabric (saturated = at least)"},
      {"rdma-statistic", "`rdma statistic show` (default, -p or -j): RDMA hw counters"},
      {"syslog", "syslog/journal/dmesg lines: carrier losses per interface (link flaps)"}};
  for (const auto& ci : counter_importers) {
    auto* sub = import_cmd.add_subcommand(ci.name, std::string(ci.help) + " -> fabdiag.counters/1");
    sub->add_option("FILE", o.file, "The saved output ('-' = stdin)")->required();
    sub->add_option("--interval", o.interval_s,
                    "Seconds between the \"###\" sections (gives rates; default: unknown)")
        ->check(number_in(0.001, 1e9));
    sub->add_flag("--all", o.all, "Also list zero / unmoved counters");
    add_max_findings_flag(sub, o.max_findings);
    if (std::string(ci.name).rfind("ethtool-", 0) == 0)
      sub->add_option("--netdev", o.netdev,
                      "The netdev the text is about (when no \"### ethtool -S NAME\" title says)");
    sub->footer("Same output and findings as `fabdiag counters --from FILE`. Exit codes: 0 healthy,\n"
                "1 a warn/error/critical finding, 2 FILE missing or not this format, 4 part of the\n"
                "input could not be read (listed under errors).");
    std::string fmt = ci.name;
    sub->callback([&o, fmt] { o.format = fmt; });
  }
}

std::vector<CLI::App*> add_import_host_commands(CLI::App& import_cmd, ImportHostOptions& o) {
  std::vector<CLI::App*> import_host_cmds;
  for (auto [name, what] : {std::pair{"lspci", "lspci -vvv (LnkCap/LnkSta, ACSCtl, bus tree; also lspci -vvv | grep ACSCtl)"},
                            {"ibstat", "ibstat (CA type, port State, Physical state, Rate, Link layer)"},
                            {"ibstatus", "ibstatus (state, phys state, rate, link_layer per port)"},
                            {"ibv-devinfo", "ibv_devinfo [-v] (state, active_mtu, link_layer; -v: width, speed, GIDs)"}}) {
    auto* sub = import_cmd.add_subcommand(name, std::string(what) + " -> the host facts fabdiag check judges");
    sub->add_option("FILE", o.file, "The saved output ('-' = stdin); '### <what>' sections are split")
        ->required();
    add_max_findings_flag(sub, o.max_findings);
    sub->footer("Prints the parsed model (fabdiag.hostfacts/1); run `fabdiag check --from FILE` for the verdict.\n"
                "Exit codes: 0 ok, 2 FILE missing or not in this format, 4 some sections could not be read.");
    sub->callback([&o, n = std::string(name)] { o.format = n; });
    import_host_cmds.push_back(sub);
  }
  return import_host_cmds;
}

// True when a command line may select subcommand `name`: it holds the word, or asks for every
// help page (--help-all). Only then are the subcommand's flags and subcommands built (import's ~40
// format subcommands cost a quarter of every start, 2M instructions; triage, bench, pairwise,
// accept and baseline 1.5M together): another command never reads them. A subcommand is only
// ever selected by its exact name, so one not on the command line cannot run.
bool may_run(int argc, char** argv, const char* name) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], name) == 0 || std::strcmp(argv[i], "--help-all") == 0) return true;
  return false;
}

// `import`, and with `formats` its subcommands, one per format read.
void add_import_commands(CLI::App& app, Options& opts, Commands& cmds, bool formats) {
  auto* import_cmd = app.add_subcommand(
      "import", "Read other tools' outputs into fabdiag result documents, to save, diff or triage offline");
  import_cmd->require_subcommand(0, 1);
  cmds.import = import_cmd;
  import_cmd->add_option("FILES", opts.import_any.paths,
                         "Without a FORMAT: files or directories (walked) of any outputs below; each file's "
                         "tool is detected, or forced with --as");
  import_cmd->add_option("--as", opts.import_any.as, "Read every FILE as this FORMAT (a subcommand name below)");
  import_cmd->add_option("--line-rate", opts.import_any.line_rate_gbit_per_s,
                         "nccl-tests, OSU and IMB files: one port's rate in Gb/s (400 for NDR), as `import nccl-tests --line-rate`")
      ->check(number_in(1, 1e6));
  add_max_findings_flag(import_cmd, opts.import_any.max_findings);
  import_cmd->footer(kImportFooter);
  if (!formats) return;
  cmds.import_nccl_tests = add_import_nccl_tests_command(*import_cmd, opts.import_nccl_tests);
  add_import_counters_commands(*import_cmd, opts.import_counters);
  cmds.import_host = add_import_host_commands(*import_cmd, opts.import_host);
  for (const auto& r : import_readers()) {
    auto* sub = import_cmd->add_subcommand(r.name, r.help);
    sub->add_option("FILE", opts.import_file.file, "The saved output ('-' = stdin)")->required();
    add_max_findings_flag(sub, opts.import_file.max_findings);
    if (r.tool == ToolText::kOsu || r.tool == ToolText::kImb)  // bandwidth vs the line rate, as nccl-tests
      sub->add_option("--line-rate", opts.import_file.line_rate_gbit_per_s,
                      "One port's rate in Gb/s (400 for NDR): best bandwidth from 1 MiB below 90% of it is a warning")
          ->check(number_in(1, 1e6));
    sub->footer(r.footer);
    cmds.import_readers.emplace_back(sub, &r);
  }
}


// --interval, --only, --all, --after-sysfs-root, --device, --no-ethtool, --watch and its flags.
void add_counters_read_flags(CLI::App* counters, CountersOptions& o) {
  auto* counters_interval = counters->add_option(
      "--interval", o.interval_s,
      "Take two snapshots SECONDS apart and show deltas and per-second rates (0.001-86400)")
      ->check(number_in(0.001, 86400.0));
  counters->add_option("--only", o.only,
                       "Show only counters of one CATEGORY (findings are never filtered)")
      ->check(CLI::IsMember({"traffic", "pause", "ecn", "cnp", "phy_error", "discard",
                             "retransmit", "link", "other", "unknown"}));
  counters->add_flag("--all", o.all,
                     "Also list zero (snapshot) or unmoved (--interval) counters; by default "
                     "they are hidden and counted");
  counters->add_option("--after-sysfs-root", o.after_sysfs_root,
                       "Read the second snapshot from DIR instead of waiting (fixtures, saved "
                       "captures); --interval then gives the assumed window in seconds")
      ->check(CLI::ExistingDirectory)
      ->needs(counters_interval);
  counters->add_option("--device", o.devices,
                       "Only this device: an ibdev (mlx5_0), a port (mlx5_0/1) or a netdev "
                       "(repeatable)");
  counters->add_flag("--no-ethtool", o.no_ethtool,
                     "Do not read anything through ethtool: driver (ethtool -S) statistics, "
                     "netlink link facts and statistics, module EEPROM");
  auto* counters_watch = counters->add_flag(
      "--watch", o.watch,
      "Refresh a view of per-second rates and the top movers every --interval seconds "
      "(default 1) until Ctrl-C (exit 0) or --count; plain appended blocks when stdout is not "
      "a terminal");
  counters->add_option("--count", o.count,
                       "With --watch: stop after N refreshes (default: until Ctrl-C)")
      ->check(CLI::Range(1, 1000000))
      ->needs(counters_watch);
  counters->add_option("--top", o.top,
                       "With --watch: show the N counters that moved most (0 = all that moved)")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str()
      ->needs(counters_watch);
  counters->add_flag("--prometheus-all", o.prometheus_all,
                     "With --format prometheus: export every counter, not only the classified "
                     "ones the knowledge table knows (can be thousands of series)");
}

// --from, --from-format, --netdev: saved tool outputs instead of sysfs.
void add_counters_from_flags(CLI::App* counters, CountersOptions& o) {
  counters->add_option("--from", o.from,
                       "Interpret saved tool outputs instead of sysfs: ethtool -S, ethtool -m, "
                       "perfquery, ibqueryerrors, rdma statistic show, syslog (repeatable; "
                       "\"###\" sections are snapshots in time order, the first two give the "
                       "window; --interval gives the seconds between them)")
      ->type_name("FILE");
  counters->add_option("--from-format", o.from_format,
                       "Format of the --from files (default: detected from each file)")
      ->check(CLI::IsMember({"auto", "ethtool-s", "ethtool-m", "perfquery", "ibqueryerrors",
                             "rdma-statistic", "syslog"}));
  counters->add_option("--netdev", o.netdev,
                       "Netdev that ethtool -S / ethtool -m text is about, when the text does not "
                       "say (a \"### ethtool -S NAME\" title does)");
}

CLI::App* add_counters_command(CLI::App& app, CountersOptions& o) {
  auto* counters = app.add_subcommand(
      "counters",
      "RDMA port counters, hw_counters, netdev and ethtool stats: one snapshot, or deltas and "
      "rates over --interval; classified (traffic, pause, ecn, cnp, phy_error, discard, "
      "retransmit, link) and interpreted into findings");
  counters->footer(kCountersFooter);
  add_counters_read_flags(counters, o);
  add_counters_from_flags(counters, o);
  return counters;
}

CLI::App* add_check_command(CLI::App& app, CheckOptions& o) {
  auto* sub = app.add_subcommand(
      "check", "Host data-path lint: PCIe link width/speed, ACS redirect, AER errors, GPUDirect RDMA, "
               "IOMMU mode, RDMA port state/rate, RoCE MTU and GID, ECN");
  sub->footer(kCheckFooter);
  sub->add_option("--from", o.from,
                  "Judge saved outputs instead of this host: lspci -vvv, ibstat, ibstatus, ibv_devinfo, "
                  "NCCL logs ('-' = stdin); several files are merged")
      ->expected(1, 64)
      ->type_name("FILE...");
  sub->add_option("--from-format", o.from_format,
                  "Format of the --from files: auto (detect per '###' section), lspci, ibstat, ibstatus, "
                  "ibv-devinfo, nccl-log")
      ->check(CLI::IsMember({"auto", "lspci", "ibstat", "ibstatus", "ibv-devinfo", "nccl-log"}))
      ->capture_default_str();
  sub->add_option("--expect-rate", o.expect_rates,
                  "Expected port rate in Gb/s, for every port (400) or for one model (MT4129=400, the "
                  "hca_type / CA type); repeatable. Without it ports are compared with their model's majority")
      ->type_name("[MODEL=]GBPS");
  return sub;
}

// Every subcommand, in the order `fabdiag --help` lists them; the flags of the costly ones only
// when the command line may select them (may_run).
Commands add_commands(CLI::App& app, Options& opts, int argc, char** argv) {
  auto named = [&](const char* name) { return may_run(argc, argv, name); };
  Commands cmds;
  cmds.doctor = add_doctor_command(app);
  cmds.topo = add_topo_command(app, opts.topo);
  cmds.gather = add_gather_command(app, opts.gather);
  cmds.baseline = add_baseline_command(app, opts.baseline, named("baseline"));
  add_import_commands(app, opts, cmds, named("import"));
  cmds.counters = add_counters_command(app, opts.counters);
  cmds.check = add_check_command(app, opts.check);
  cmds.triage = add_triage_command(app, opts.triage, named("triage"));
  cmds.bench = add_bench_command(app, opts.bench, named("bench"));
  cmds.pairwise = add_pairwise_command(app, opts.pairwise, named("pairwise"));
  cmds.accept = add_accept_command(app, opts.accept, named("accept"));
  cmds.report = app.add_subcommand("report", "Render saved results (bench, pairwise, triage, baseline diff, accept) as "
                                             "one report: table, md, json, junit or a self-contained html page");
  cmds.report->add_option("FILES", opts.report.files, "Result documents (--format json output); - = stdin")->required();
  cmds.report->add_option("--title", opts.report.title, "Heading of the report (default: from the files)");
  cmds.report->footer(kReportFooter);
  return cmds;
}

// Help and version text go to stdout like any result: a write that fails (`> /dev/full`) is
// an error and exit 4; a closed pipe (`| head`) is quiet.
int exit_after_help(CLI::App& app, const CLI::ParseError& e) {
  int rc = app.exit(e);
  errno = 0;
  std::cout.flush();
  if (std::cout.good()) return rc;
  if (errno == EPIPE) return rc;
  print_error(std::string("writing to stdout: ") + (errno ? std::strerror(errno) : "write failed"));
  return kExitPartial;
}

// Parses argv; the exit code when parsing ends the run (help, version, usage errors).
std::optional<int> parse_args(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return exit_after_help(app, e);
  } catch (const CLI::CallForAllHelp& e) {
    return exit_after_help(app, e);
  } catch (const CLI::CallForVersion& e) {
    return exit_after_help(app, e);
  } catch (const CLI::ExtrasError& e) {
    print_error(std::string("unknown subcommand or argument: ") + e.what() +
                " (run 'fabdiag --help' for the list of subcommands)");
    return kExitUsage;
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    note_error(e.what());
    return kExitUsage;
  }
  return std::nullopt;
}

// A fixture or capture given with --sysfs-root is never judged by this host's /proc.
void default_procfs_root(const CLI::App& app, GlobalOptions& g) {
  if (app.count("--procfs-root") == 0 && g.sysfs_root != "/sys") {
    std::error_code ec;
    auto sibling = std::filesystem::path(g.sysfs_root).lexically_normal().parent_path() / "proc";
    g.procfs_root = std::filesystem::is_directory(sibling, ec) && std::filesystem::path(g.sysfs_root).filename() != ""
                        ? sibling.string()
                        : "";
  }
}

// Every file the parsed command reads by name (the options of the others are empty): -o
// must not be one of them.
std::vector<std::string> named_inputs(const Options& o) {
  std::vector<std::string> in = {o.topo.against, o.baseline.file, o.import_nccl_tests.file, o.import_counters.file,
                                 o.import_host.file, o.import_file.file, o.accept.spec, o.accept.hostfile,
                                 o.accept.mpirun_args_file, o.triage.hostfile, o.triage.mpirun_args_file};
  for (const auto* list : {&o.baseline.files, &o.import_any.paths, &o.counters.from, &o.check.from, &o.triage.from,
                           &o.accept.from, &o.report.files})
    in.insert(in.end(), list->begin(), list->end());
  return in;
}

// Runs the parsed subcommand; the exit code.
int dispatch(const Commands& c, Options& opts) {
  const GlobalOptions& g = opts.global;
  for (const Status& st : {check_output_not_input(g.output, named_inputs(opts)),
                           check_output_outside_trees(g.output, {g.sysfs_root, g.procfs_root})})
    if (!st) {
      print_error(st.error().to_string());
      return kExitUsage;
    }
  try {
    if (c.doctor->parsed()) return run_doctor(g, opts.doctor);
    if (c.topo->parsed()) return run_topo(g, opts.topo);
    if (c.gather->parsed()) return run_gather(g, opts.gather);
    if (c.baseline->parsed()) return run_baseline(g, opts.baseline);
    if (c.import_nccl_tests && c.import_nccl_tests->parsed()) return run_import_nccl_tests(g, opts.import_nccl_tests);
    if (!opts.import_counters.format.empty()) return run_import_counters(g, opts.import_counters);
    if (c.counters->parsed()) return run_counters(g, opts.counters);
    if (c.triage->parsed()) return run_triage(g, opts.triage);
    if (c.bench->parsed()) return run_bench(g, opts.bench);
    if (c.pairwise->parsed()) return run_pairwise(g, opts.pairwise);
    if (c.check->parsed()) return run_check(g, opts.check);
    if (c.accept->parsed()) return run_accept(g, opts.accept);
    if (c.report->parsed()) return run_report(g, opts.report);
    if (c.import->parsed() && c.import->get_subcommands().empty()) {
      if (opts.import_any.paths.empty()) {
        print_error("import: give FILE... (formats detected) or a FORMAT and its FILE; see 'fabdiag import --help'");
        return kExitUsage;
      }
      return run_import_any(g, opts.import_any);
    }
    for (const auto& [sub, reader] : c.import_readers)
      if (sub->parsed()) return run_import_reader(g, *reader, opts.import_file);
    for (auto* sub : c.import_host)
      if (sub->parsed()) return run_import_host(g, opts.import_host);
  } catch (const std::exception& e) {
    print_error(std::string("internal error: ") + e.what());
    return kExitInternal;
  }
  print_error("no subcommand ran");
  return kExitUsage;
}

// Parses and runs one command line; the exit code.
int run(int argc, char** argv) {
  CLI::App app{
      "fabdiag: network diagnostics for GPU clusters (NVLink/NVSwitch, InfiniBand, RoCE).\n"
      "Reads topology and counters, runs collective benchmarks, keeps baselines and names slow\n"
      "nodes and links with their evidence.\n\n"
      "Exit codes: 0 ok, 1 problems found, 2 usage, 3 required capability missing,\n"
      "            4 partial result (something could not be read, or a deadline cut the run),\n"
      "            70 internal error, 130 interrupted (Ctrl-C; 143 for SIGTERM): what finished is printed.",
      "fabdiag"};
  app.set_version_flag("--version", std::string("fabdiag ") + FABDIAG_VERSION);
  app.require_subcommand(0, 1);
  app.fallthrough();
  Options opts;
  add_global_flags(app, opts.global);
  Commands cmds = add_commands(app, opts, argc, argv);
  if (auto rc = parse_args(app, argc, argv)) return *rc;
  GlobalOptions& g = opts.global;
  if (app.count("--output") > 0 && g.output.empty()) {
    print_error("-o/--output: an empty path; give a file name, or '-' for stdout");
    return kExitUsage;
  }
  default_procfs_root(app, g);
  if (app.get_subcommands().empty()) {
    std::cerr << app.help() << "\nfabdiag: error: a subcommand is required (see the list above)\n";
    return kExitUsage;
  }
  if (g.format == "nccl-tests" && !cmds.bench->parsed()) {
    print_error("--format nccl-tests is supported by `fabdiag bench` only; use table, json or md");
    return kExitUsage;
  }
  const bool baseline_diff = cmds.baseline->parsed() && opts.baseline.action == "diff";
  if (g.format == "prometheus" && !cmds.counters->parsed() && !baseline_diff) {
    print_error("--format prometheus is supported by `fabdiag counters` and `fabdiag baseline diff` only; use table, "
                "json or md");
    return kExitUsage;
  }
  return dispatch(cmds, opts);
}

}  // namespace

int main(int argc, char** argv) {
  // A usage error under --format json still prints one document (cmd/error_document.h).
  return finish_run(run(argc, argv), format_in_argv(argc, argv), argc, argv);
}
