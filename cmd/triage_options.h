// The options of `fabdiag triage` that set its decision rule (docs/localization.md#rules-for-deciding-under-noise).
// Header-only and included by cmd/main.cpp alone, the one translation unit that pays for CLI11.
#pragma once

#include <CLI/CLI.hpp>

#include "cmd/cli_validators.h"
#include "cmd/commands.h"

namespace fabdiag::cmd {

/// Adds --node-ratio, --pair-ratio, --expected-rate (bytes/s per direction; 0 = no external
/// reference), --topology FILE and --oversubscription R to the triage subcommand; cmd/triage.cpp
/// turns them into LocalizeParams and WalkParams::topology.
inline void add_triage_decision_options(CLI::App* sub, TriageOptions& o) {
  sub->add_option("--node-ratio", o.node_ratio,
                  "Slow node: median pair rate below this x the reference. Default: adaptive, 1 - 4 x the robust "
                  "spread of the screen's node medians, within [0.5, 0.88] (docs/localization.md#the-node-threshold)")
      ->check(number_in(0.01, 1.0));
  sub->add_option("--pair-ratio", o.pair_ratio, "Slow pair: rate below this x the pair reference (default 0.15; 0.6 on a real fabric)")
      ->check(number_in(0.01, 1.0));
  sub->add_option("--expected-rate", o.expected_rate,
                  "Reference pair rate, bytes/s per direction (a baseline or the link's spec); catches a "
                  "whole-cluster slowdown and judges 2-node clusters. Default: none (a high quantile of the screen)")
      ->check(number_in(0.0, 1e15));
  sub->add_option("--topology", o.topology,
                  "Fabric topology: `host leaf [spine]` lines, a Slurm topology.conf or ibnetdiscover output "
                  "(detected by content). Prefers intra-leaf pairs and names a slow leaf uplink "
                  "(docs/localization.md#uplinks-and-leaves); rank 0 reads it too");
  sub->add_option("--oversubscription", o.oversubscription,
                  "With --topology: the fabric is R:1 oversubscribed (hosts' bandwidth under a leaf / its uplinks' "
                  "bandwidth). Cross-leaf pairs are expected down to 1/R of intra-leaf ones when every host of a leaf "
                  "sends across at once; below node ratio x that they are dark. Default 1 (non-blocking, as AI "
                  "back-end fabrics are built); a 2:1 fabric without it is called a spine fault "
                  "(docs/localization.md#oversubscribed-fabrics)")
      ->check(number_in(1.0, 64.0));
}

}  // namespace fabdiag::cmd
