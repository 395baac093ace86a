// The evidence a triage suspect carries: its counter findings, its confirmation tests, its screen
// value against the threshold (docs/localization.md). Built by the
// walk (triage/walk.cpp) for node, counter-fault and screen-only suspects.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/finding.h"
#include "triage/localize.h"
#include "triage/walk.h"

namespace fabdiag::triage {

/// Node index -> its counter findings over a window (subjects prefixed with the host).
using NodeFindings = std::map<int, std::vector<Finding>>;

/// "hostA<->hostB" for nodes `a` and `b` (indices into `hosts`).
std::string link_name(const std::vector<std::string>& hosts, int a, int b);

/// Appends node `node`'s counter findings at warn and up to `s.evidence` (metric prefixed with
/// the finding's subject), raises `s.layer` to the deepest of them and takes an action (a
/// physical finding's first). Nothing when the node has no findings.
void add_counter_evidence(TriageSuspect& s, const NodeFindings& node_findings, int node);

/// One confirmation or re-test pair test as evidence: bytes/s, its ratio to the round's
/// reference, the round (1-based) and the pair; `what` leads the metric name.
Evidence pair_evidence(const TriageReport& rep, const PairSample& t, double ratio, const std::string& what);

/// Fills a confirmed slow node's evidence: its screen median against tau x the reference
/// (fixed or adaptive, triage/threshold.h), each confirmation test, its counter findings, and
/// the action. `ts.hosts[0]` must be the node's host.
void fill_node_suspect(TriageSuspect& ts, const Suspect& sp, const TriageReport& rep, const Screen& screen,
                       const NodeFindings& node_findings);

/// A node suspect for hardware counter faults in the window while its bandwidth was normal:
/// its counter evidence and the confirmation tests that cleared it (loc.cleared).
TriageSuspect counter_fault_suspect(const TriageReport& rep, int node, const NodeFindings& node_findings,
                                    const Localization& loc);

/// The screen ratio of a suspect without confirmation tests (2-3 node clusters, the whole
/// cluster) as evidence named "bandwidth ratio of <what>".
Evidence ratio_evidence(const Suspect& sp, const std::string& what);

}  // namespace fabdiag::triage
