// The flags of the commands that run tests across hosts (triage, bench, pairwise): their CLI11
// subcommands, split from cmd/main.cpp (which keeps the others and the dispatch).
#pragma once

#include <CLI/CLI.hpp>

#include "cmd/commands.h"

namespace fabdiag::cmd {

/// `fabdiag triage`: the layered walk's flags (hostfile, sizes, sweeps, deadlines, the decision
/// thresholds of cmd/triage_options.h) into `o`. Returns the subcommand. `with_flags` false: the
/// subcommand alone (its name and description, what `fabdiag --help` lists), no flags, for a
/// command line that does not name it (cmd/main.cpp); the same for the two below.
CLI::App* add_triage_command(CLI::App& app, TriageOptions& o, bool with_flags = true);
/// `fabdiag bench COLL`: the collective sweep's flags (nccl-tests' -b -e -f -w -n ..., backend,
/// -g) into `o`. Returns the subcommand.
CLI::App* add_bench_command(CLI::App& app, BenchOptions& o, bool with_flags = true);
/// `fabdiag pairwise`: the pair matrix's flags (--size, -n, backend, --pair-comm) into `o`.
/// Returns the subcommand.
CLI::App* add_pairwise_command(CLI::App& app, PairwiseOptions& o, bool with_flags = true);

}  // namespace fabdiag::cmd
