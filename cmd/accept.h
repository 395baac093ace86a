// `fabdiag accept --spec SPEC.yaml`: sign off nodes and links against what the SKU promises
// (accept/spec.h, accept/evaluate.h; docs/accept.md). The options and their registration live in
// cmd/accept.cpp so that main.cpp only names them.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "accept/evaluate.h"
#include "cmd/common.h"

namespace CLI {
class App;
}

namespace fabdiag::cmd {

/// Options of `fabdiag accept`.
struct AcceptOptions {
  std::string spec;               ///< --spec SPEC.yaml (required).
  std::vector<std::string> from;  ///< --from FILE|DIR...: saved results and collected outputs; empty = live.
  std::string nvml_lib;           ///< --nvml-lib: as `topo --nvml-lib` (live mode).
  double duration_s = 10;         ///< --duration: the soak between the two counter snapshots (live).
  int gpus = 0;                   ///< --gpus: local GPUs the live bench drives (0 = as many as topo found).
  // ---- the cluster (--hostfile; docs/accept.md#a-cluster-live) ----
  std::string hostfile;                  ///< --hostfile H: one rank per host under mpirun; empty = this host.
  std::string mpirun = "mpirun";         ///< --mpirun: the launcher program.
  std::vector<std::string> mpirun_args;  ///< --mpirun-arg (repeatable), after --mpirun-args-file's.
  std::string mpirun_args_file;          ///< --mpirun-args-file: one mpirun argument per line.
  std::string backend = "mpi";           ///< --backend: mpi (host memory) or nccl (one GPU per rank).
  std::string pair_size = "4M";          ///< --pair-size: bytes each way per pair exchange.
  int pair_iters = 5;                    ///< --pair-iters: timed exchanges per pair.
  int bench_iters = 20;                  ///< --bench-iters: timed calls per bench size.
  double timeout_s = -1;                 ///< --timeout: the launch's deadline; < 0 = derived, 0 = none.
  std::string save;                      ///< --save DIR: the collected results as a --from folder.
  bool worker = false;                   ///< --worker (internal): one MPI rank of a --hostfile launch.
};

/// Registers `accept` on `app`, writing into `o`. `with_flags` false: the subcommand alone (its name
/// and description, what `fabdiag --help` lists), for a command line that does not name it.
CLI::App* add_accept_command(CLI::App& app, AcceptOptions& o, bool with_flags = true);

/// Registers the cluster options of `accept` (--hostfile, --mpirun*, --backend, --pair-size,
/// --pair-iters, --bench-iters, --timeout, --save, --worker) on `sub`.
void add_accept_cluster_options(CLI::App* sub, AcceptOptions& o);

/// Runs it. Exit codes: 0 every check passed; 1 a check failed; 4 nothing failed but a check
/// could not be checked (its input missing); 2 usage (spec missing, or a spec error naming
/// FILE:LINE:COLUMN and the key; no --from file readable); 3 built without yaml-cpp.
int run_accept(const GlobalOptions& g, const AcceptOptions& o);

/// One input of an acceptance run and what it was used as ("topo of node01", "not used: ...").
struct AcceptInputFile {
  std::string path;
  std::string used_as;
};

/// --from: every FILE|DIR read into the evaluation's inputs. fabdiag result documents (JSON with
/// a "schema": "fabdiag.*" member; fabdiag.import/1 and fabdiag.triage/1 parts unwrapped) are
/// taken as they are; other files are read as `fabdiag import` reads them (cmd/import_any.h).
/// A node document's host: its envelope's one host (saved documents) or its DIR/<host>/ folder
/// (raw outputs first by folder). nullopt with `in` filled, or the exit code (printed) when
/// nothing could be read.
std::optional<int> read_accept_inputs(const GlobalOptions& g, const std::vector<std::string>& paths,
                                      accept::Inputs& in, std::vector<AcceptInputFile>& files);

/// Live mode on this host: `fabdiag topo`, `fabdiag check`, and a counters window of --duration
/// seconds around a local NCCL bench of the spec's collectives and sizes (when the topology has
/// GPUs and NCCL runs here; otherwise the busbw checks are not checked, with the reason).
/// nullopt with `in` filled, or the exit code of a step that could not start (printed).
std::optional<int> collect_live_inputs(const GlobalOptions& g, const AcceptOptions& o, const accept::Spec& spec,
                                       accept::Inputs& in, std::vector<AcceptInputFile>& files);

/// The collected results of a cluster run (`accept --worker` rank 0's stream): a
/// fabdiag.import/1 `data` whose parts[] {schema, host, source, data} are the node documents
/// (topo, check, counters per host) and the cluster's (bench, pairwise). Filed into `in` exactly
/// as --from files them, each part listed in `files` as "SOURCE" used as "topo of node01".
void file_collected_parts(const nlohmann::json& data, accept::Inputs& in, std::vector<AcceptInputFile>& files);

/// `accept --spec S --worker`: one rank of the cluster run under mpirun. Every rank reads its
/// topo, check and a first counter snapshot; then, all ranks together inside the counter window,
/// one bench per busbw item of the spec (MPI on host memory, or NCCL with --backend nccl), the
/// pairwise matrix (when the spec has `deliver.pair`) and --duration seconds of soak; then the
/// second snapshot. Rank 0 gathers the documents (MPI_Gatherv of JSON) and writes on stdout one
/// JSON line, a fabdiag.import/1 envelope of the parts (file_collected_parts()), after each step
/// (marked partial) and at the end. Exit 0 unless MPI could not start (3) or the job failed (4).
int run_accept_worker(const GlobalOptions& g, const AcceptOptions& o, const accept::Spec& spec);

/// `accept --spec S --hostfile H`: composes the mpirun job (triage/launcher.h, one rank per
/// host running run_accept_worker), watches it under the deadline and judges the last collected
/// parts with the same verdict as --from. A host the launch names as not answering is dropped,
/// the job relaunched on the rest and that host's node checks not_checked (its name in errors[]).
/// Ctrl-C or the deadline: what was collected is judged and marked partial (exit 130/143/4).
/// Exit 2 for a bad hostfile (FILE:LINE:COLUMN) or fewer than 2 hosts; 3 without mpirun.
int run_accept_cluster(const GlobalOptions& g, const AcceptOptions& o, const accept::Spec& spec);

/// What a run adds to its fabdiag.accept/1 result beside the verdict.
struct AcceptRun {
  nlohmann::json params = nlohmann::json::object();  ///< Extra members of params (the cluster run's flags).
  std::vector<Error> errors;                         ///< Added to errors[] (a dropped host, the launch's failure).
  std::optional<Cut> cut;                            ///< Set: the run was cut; the result is marked partial.
  ErrorCode cut_code = ErrorCode::kTimeout;          ///< The cut's errors[] code (mark_cut).
  int cut_exit = 0;                                  ///< Exit code of the cut when no check failed (130, 143, 4).
};

/// Judges `in` by `spec` (accept::evaluate, the verdict --from gives) and writes the
/// fabdiag.accept/1 result (--format; -o atomically) with `run`'s additions. Returns the
/// verdict's exit code (accept::verdict_exit_code), or `run.cut_exit` when cut and no check
/// failed, or the writer's (2, 4) when the result could not be written.
int judge_and_write(const GlobalOptions& g, const AcceptOptions& o, const accept::Spec& spec, const accept::Inputs& in,
                    const std::vector<AcceptInputFile>& files, const AcceptRun& run,
                    std::chrono::steady_clock::time_point started);

}  // namespace fabdiag::cmd
