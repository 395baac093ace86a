// The findings of a triage: one per named suspect, then the nodes' counter findings.
#pragma once

#include <map>
#include <vector>

#include "core/finding.h"
#include "triage/walk.h"

namespace fabdiag::triage {

/// The finding of one suspect: severity error, its layer, a code by kind (slow_node, node_fault,
/// slow_link, slow_pair, slow_leaf_uplink, slow_spine, dead_host, dead_link, slow_cluster), the
/// subject (host, `a<->b`, leaf or "cluster"), a one-line message, the suspect's evidence and
/// action.
Finding suspect_finding(const TriageSuspect& s);

/// Appends to rep.findings one finding per rep.suspects entry, then every counter finding at
/// warn or above of `node_findings` (node index -> its findings, subjects already host-prefixed).
void add_findings(TriageReport& rep, const std::map<int, std::vector<Finding>>& node_findings);

}  // namespace fabdiag::triage
