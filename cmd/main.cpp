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
  } catch (const std::exception& e) {
    print_error(std::string("internal error: ") + e.what());
    return kExitInternal;
  }
  print_error("no subcommand ran");
  return kExitUsage;
}
