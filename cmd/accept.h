// `fabdiag accept --spec SPEC.yaml`: sign off nodes and links against what the SKU promises
// (accept/spec.h, accept/evaluate.h; docs/accept.md). The options and their registration live in
// cmd/accept.cpp so that main.cpp only names them.
#pragma once

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
};

/// Registers `accept` on `app`, writing into `o`.
CLI::App* add_accept_command(CLI::App& app, AcceptOptions& o);

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

}  // namespace fabdiag::cmd
