// The CLI11 subcommands of triage, bench and pairwise (cmd/run_commands_cli.h).
#include "cmd/run_commands_cli.h"

#include "cmd/pairwise_rail.h"

#include "cmd/cli_validators.h"
#include "cmd/help_text.h"
#include "cmd/triage_options.h"

namespace fabdiag::cmd {

namespace {

// --checkpoint and --timeout of the runs that wait on other hosts (README "Partial results").
void add_run_control_flags(CLI::App* sub, std::string& checkpoint, double& timeout_s, const std::string& timeout_help) {
  sub->add_option("--checkpoint", checkpoint,
                  "After each finished step, write the result so far (JSON, marked partial) to FILE, "
                  "atomically (a regular file, like -o), so even kill -9 leaves the last step on disk. "
                  "Ctrl-C prints what finished, marked partial (exit 130; 143 for SIGTERM)")
      ->type_name("FILE");
  sub->add_option("--timeout", timeout_s, timeout_help)->check(number_in(0.0, 86400.0))->capture_default_str();
}

}  // namespace

CLI::App* add_triage_command(CLI::App& app, TriageOptions& o, bool with_flags) {
  auto* sub = app.add_subcommand(
      "triage",
      "Find the slow node or link of a cluster: counters on every node, all_reduce and "
      "alltoall sweeps, the pairwise matrix, confirmation with known-good partners, counters "
      "again; then suspects with their evidence chain and the next action");
  if (!with_flags) return sub;
  sub->footer(kTriageFooter);
  sub->add_option("--hostfile", o.hostfile, "Hosts to test (Open MPI or MPICH hostfile); fabdiag runs mpirun")
      ->check(CLI::ExistingFile);
  auto* from = sub->add_option("--from", o.from,
                                "Offline: judge collected outputs instead of running tests (files or directories, "
                                "DIR/<host>/... names the host; formats detected as by `fabdiag import`)");
  from->excludes("--hostfile");
  sub->add_option("--mpirun", o.mpirun, "mpirun program to use with --hostfile");
  sub->add_option("--mpirun-args-file", o.mpirun_args_file,
                  "File of extra mpirun arguments, one per line (emucluster writes STATE/mpirun-args)")
      ->check(CLI::ExistingFile);
  sub->add_option("--mpirun-arg", o.mpirun_args, "One extra mpirun argument (repeatable)")->allow_extra_args(false);
  add_run_control_flags(sub, o.checkpoint, o.timeout_s,
                        "Seconds before the walk is cut (partial result, exit 4); with --hostfile the silent "
                        "host is then named; 0 = no deadline. Default (-1): derived from the nodes, sizes and "
                        "rounds (about 300 s for 10 nodes)");
  sub->add_option("--dead-after", o.dead_after_s,
                  "Seconds after which a pair test that has not completed is given up and its pair named a dead "
                  "link (or its host, when none of its tests completes); 0 = wait forever")
      ->check(number_in(0.0, 86400.0))
      ->capture_default_str();
  sub->add_option("--pair-size", o.pair_size,
                  "Pair test message size per direction (e.g. 1M, 4M); default auto: grown from 1M until the "
                  "rates settle, at most 16M (docs/localization.md#pair-test-size)");
  sub->add_option("--pair-iters", o.pair_iters, "Exchanges per pair test")->check(CLI::Range(1, 1000));
  sub->add_option("--sweep-min", o.sweep_min, "Smallest collective size (-b)");
  sub->add_option("--sweep-max", o.sweep_max, "Largest collective size (-e)");
  sub->add_option("--bench-iters", o.bench_iters, "Timed iterations per collective size")->check(CLI::Range(1, 10000));
  sub->add_flag("--no-sweeps", o.no_sweeps, "Skip the all_reduce/alltoall sweeps");
  sub->add_flag("--full-sweeps", o.full_sweeps,
                "Run every sweep size even when the screen named a fault (default: a sweep stops at the first "
                "size from 1M whose busbw is below 0.5 x the screen's pair reference; "
                "docs/localization.md#sweeps-that-stop-early)");
  sub->add_option("--backend", o.backend, "mpi: sweeps and pair tests in host memory over MPI (default); nccl: on "
                  "one GPU per rank (its local rank's) through NCCL, exit 3 where it cannot run")
      ->check(CLI::IsMember({"mpi", "nccl"}));
  sub->add_flag("--worker", o.worker, "Internal: run as one MPI rank of a --hostfile launch")->group("");
  add_triage_decision_options(sub, o);
  return sub;
}

CLI::App* add_bench_command(CLI::App& app, BenchOptions& o, bool with_flags) {
  auto* sub = app.add_subcommand(
      "bench",
      "Collective benchmark over a size sweep, like nccl-tests: time, algbw, busbw, data check "
      "and per-rank times.\nRun under MPI, e.g.: mpirun -np 8 fabdiag bench all_reduce -b 1M -e 64M");
  if (!with_flags) return sub;
  sub->add_option("collective", o.collective,
                  "all_reduce, all_gather, reduce_scatter, alltoall, broadcast, reduce, "
                  "sendrecv, gather, scatter or hypercube (a power-of-two rank count)")
      ->required()
      ->check(CLI::IsMember({"all_reduce", "all_gather", "reduce_scatter", "alltoall", "broadcast",
                             "reduce", "sendrecv", "gather", "scatter", "hypercube"}));
  sub->add_option("-b,--min-bytes", o.min_bytes,
                  "Smallest message size: bytes with an optional binary suffix K/M/G/T (1K = 1024; KB, KiB too; default 8)");
  sub->add_option("-e,--max-bytes", o.max_bytes,
                  "Largest message size (default 64M); sizes go min, min*f, ... <= max");
  sub->add_option("-f,--step-factor", o.factor,
                  "Multiplication factor between sizes (default 2)")
      ->check(number_in(2, 1099511627776.0));
  sub->add_option("-w,--warmup", o.warmup_iters,
                  "Untimed iterations per size before timing (default 5)");
  sub->add_option("-n,--iters", o.iters,
                  "Timed iterations per size; time = their average, max over ranks (default 20)");
  sub->add_option("--dtype", o.dtype, "Element type: float (default), double, int32, int64, uint8 (not for reductions)")
      ->check(CLI::IsMember({"float", "double", "int32", "int64", "uint8"}));
  sub->add_option("--backend", o.backend, "mpi: host memory, MPI collectives (default); nccl: GPUs through NCCL, "
                  "one process driving -g N GPUs, or one GPU per rank under mpirun/srun; exit 3 where it cannot run")->check(CLI::IsMember({"mpi", "nccl"}));
  sub->add_option("-g,--gpus", o.gpus, "GPUs 0..N-1 one process drives with --backend nccl (default 1)");
  sub->add_option("-r,--root", o.root, "Root rank of broadcast, reduce, gather and scatter (default 0)")
      ->check(CLI::Range(0, 1 << 20));
  sub->add_option("-G,--cuda-graph", o.graph_launches,
                  "--backend nccl: capture the -n calls of each size into a CUDA graph and launch it N "
                  "times (nccl-tests -G N; default 0 = no graph)")
      ->check(CLI::Range(0, 10000));
  sub->add_option("--skew-iters", o.skew_iters,
                  "--backend mpi: after each size's timed loop, N calls each after a host step, stamped at entry "
                  "and exit: per-rank entry_lateness_s and wait_s, a straggler shows (default 0 = none)")
      ->check(CLI::Range(0, 10000));
  add_run_control_flags(sub, o.run.checkpoint, o.run.timeout_s,
                        "Seconds before the sweep is cut: the sizes that finished are printed, marked "
                        "partial, exit 4 (0 = no deadline)");
  return sub;
}

CLI::App* add_pairwise_command(CLI::App& app, PairwiseOptions& o, bool with_flags) {
  auto* sub = app.add_subcommand(
      "pairwise",
      "Node x node bandwidth matrix: round-robin rounds of concurrent bidirectional pairs, then "
      "slow nodes and links.\nRun one rank per node, e.g.: mpirun -np 8 --map-by node fabdiag pairwise");
  if (!with_flags) return sub;
  sub->add_option("--size", o.size, "Bytes sent each way per exchange, binary K/M/G/T suffixes (default 4M)");
  sub->add_option("-n,--iters", o.iters, "Timed exchanges per pair (default 5)");
  sub->add_option("-w,--warmup", o.warmup_iters, "Untimed exchanges per pair before timing (default 1)");
  sub->add_option("--backend", o.backend, "mpi: host memory (default); nccl: one GPU per rank through NCCL (its local rank's GPU), exit 3 where it cannot run")
      ->check(CLI::IsMember({"mpi", "nccl"}));
  sub->add_option("--pair-comm", o.pair_comm, "world: the pairs exchange on one communicator of all ranks (default); "
                  "split: each round splits off one communicator per pair (MPI_Comm_split, ncclCommSplit)")
      ->check(CLI::IsMember({"world", "split"}));
  sub->add_option("--rail", o.rail, "With --backend nccl, one rank per node: every rank drives GPU N, and the "
                  "result names per node that GPU (pci_bdf) and its rail NIC from the node's topology")
      ->check(CLI::Range(0, kMaxRail));
  sub->add_option("--node-ratio", o.node_ratio,
                  "A node whose median over >= 3 partners is below this fraction of the "
                  "fleet median is slow (default 0.5)")
      ->check(number_in(0.0, 1.0));
  sub->add_option("--pair-ratio", o.pair_ratio,
                  "A pair below this fraction of the fleet median, between two healthy "
                  "nodes, is a slow link (default 0.15; 0.6-0.75 on real fabrics)")
      ->check(number_in(0.0, 1.0));
  add_run_control_flags(sub, o.run.checkpoint, o.run.timeout_s,
                        "Seconds before the rounds are cut: the rounds that finished are printed, marked "
                        "partial, exit 4 (0 = no deadline)");
  return sub;
}

}  // namespace fabdiag::cmd
