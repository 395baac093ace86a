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

  // ---- bench ----
  BenchOptions bench_opts;
  auto* bench = app.add_subcommand(
      "bench",
      "Collective benchmark over a size sweep, like nccl-tests: time, algbw, busbw, data check "
      "and per-rank times.\nRun under MPI, e.g.: mpirun -np 8 fabdiag bench all_reduce -b 1M -e 64M");
  bench->add_option("collective", bench_opts.collective,
                    "all_reduce, all_gather, reduce_scatter, alltoall, broadcast, reduce or "
                    "sendrecv")
      ->required()
      ->check(CLI::IsMember({"all_reduce", "all_gather", "reduce_scatter", "alltoall",
                             "broadcast", "reduce", "sendrecv"}));
  bench->add_option("-b,--min-bytes", bench_opts.min_bytes,
                    "Smallest message size: bytes with optional K/M/G suffix (default 8)");
  bench->add_option("-e,--max-bytes", bench_opts.max_bytes,
                    "Largest message size (default 64M); sizes go min, min*f, ... <= max");
  bench->add_option("-f,--step-factor", bench_opts.factor,
                    "Multiplication factor between sizes (default 2)");
  bench->add_option("-w,--warmup", bench_opts.warmup_iters,
                    "Untimed iterations per size before timing (default 5)");
  bench->add_option("-n,--iters", bench_opts.iters,
                    "Timed iterations per size; time = their average, max over ranks (default 20)");
  bench->add_option("--dtype", bench_opts.dtype, "Element type: float (default), double, int32, int64, uint8 (not for reductions)")
      ->check(CLI::IsMember({"float", "double", "int32", "int64", "uint8"}));
  bench->add_option("--backend", bench_opts.backend,
                    "mpi: host memory and MPI collectives (default); nccl: GPU memory (not in "
                    "this build: exits 3)")
      ->check(CLI::IsMember({"mpi", "nccl"}));

  // ---- pairwise ----
  PairwiseOptions pairwise_opts;
  auto* pairwise = app.add_subcommand(
      "pairwise",
      "Node x node bandwidth matrix: round-robin rounds of concurrent bidirectional pairs, then "
      "slow nodes and links.\nRun one rank per node, e.g.: mpirun -np 8 --map-by node fabdiag pairwise");
  pairwise->add_option("--size", pairwise_opts.size,
                       "Bytes sent each way per exchange, K/M/G suffixes (default 4M)");
  pairwise->add_option("-n,--iters", pairwise_opts.iters, "Timed exchanges per pair (default 5)");
  pairwise->add_option("-w,--warmup", pairwise_opts.warmup_iters,
                       "Untimed exchanges per pair before timing (default 1)");
  pairwise->add_option("--backend", pairwise_opts.backend, "mpi (default) or nccl (not in this build: exits 3)")
      ->check(CLI::IsMember({"mpi", "nccl"}));
  pairwise->add_option("--node-ratio", pairwise_opts.node_ratio,
                       "A node whose median over >= 3 partners is below this fraction of the "
                       "fleet median is slow (default 0.5)")
      ->check(CLI::Range(0.0, 1.0));
  pairwise->add_option("--pair-ratio", pairwise_opts.pair_ratio,
                       "A pair below this fraction of the fleet median, between two healthy "
                       "nodes, is a slow link (default 0.15; 0.6-0.75 on real fabrics)")
      ->check(CLI::Range(0.0, 1.0));

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
    if (bench->parsed()) return run_bench(g, bench_opts);
    if (pairwise->parsed()) return run_pairwise(g, pairwise_opts);
  } catch (const std::exception& e) {
    print_error(std::string("internal error: ") + e.what());
    return kExitInternal;
  }
  print_error("no subcommand ran");
  return kExitUsage;
}
