#include "triage/suspect_evidence.h"

namespace fabdiag::triage {

std::string link_name(const std::vector<std::string>& hosts, int a, int b) {
  return hosts[static_cast<size_t>(a)] + "<->" + hosts[static_cast<size_t>(b)];
}

// The node's counter findings (warn and up) as evidence of `s`, with the deepest layer and an
// action (a physical finding's first).
void add_counter_evidence(TriageSuspect& s, const NodeFindings& node_findings, int node) {
  auto it = node_findings.find(node);
  if (it == node_findings.end()) return;
  for (const auto& f : it->second) {
    if (f.severity < Severity::kWarn) continue;
    for (auto e : f.evidence) {
      e.metric = f.subject + " " + e.metric;
      s.evidence.push_back(e);
    }
    if (f.layer > s.layer) s.layer = f.layer;
    if (!f.action.empty() && (s.action.empty() || f.layer == Layer::kPhysical)) s.action = f.action;
  }
}

Evidence pair_evidence(const TriageReport& rep, const PairSample& t, double ratio, const std::string& what) {
  Evidence e;
  e.metric = what + " " + link_name(rep.hosts, t.a, t.b) + " (confirmation round " + std::to_string(t.round + 1) + ")";
  e.value = t.bytes_per_s;
  e.unit = "bytes/s";
  e.value_text = "ratio " + std::to_string(ratio).substr(0, 5) + " of the round's reference";
  e.source = "pair test: each direction alone, timed on its receiver (the slower direction)";
  return e;
}

// A slow node confirmed with known-good partners, with its counter evidence.
void fill_node_suspect(TriageSuspect& ts, const Suspect& sp, const TriageReport& rep, const Screen& screen,
                       const NodeFindings& node_findings) {
  int x = sp.nodes[0];
  Evidence e;
  e.metric = "median pair bandwidth of " + ts.hosts[0] + " over " + std::to_string(screen.partners[static_cast<size_t>(x)]) + " partners";
  e.value = screen.node_median_bytes_per_s[static_cast<size_t>(x)];
  e.unit = "bytes/s";
  const double tau = screen.node_threshold.ratio;  // fixed or adaptive (triage/threshold.h)
  e.threshold = tau * screen.node_ref_bytes_per_s;
  e.threshold_text = std::to_string(tau).substr(0, 5) + " x the reference (" + screen.node_threshold.source + ")";
  e.source = "pairwise screen (round-robin)";
  ts.evidence.push_back(e);
  for (size_t k = 0; k < sp.tests.size(); ++k)
    ts.evidence.push_back(pair_evidence(rep, sp.tests[k], sp.test_ratios[k], "confirmation with a known-good partner"));
  ts.action = "Slow against most peers, confirmed with known-good partners: check " + ts.hosts[0] +
              "'s NICs (port state and rate, PCIe width and speed, GDR) with `fabdiag check` and "
              "`fabdiag counters`, then drain it from jobs until fixed.";
  add_counter_evidence(ts, node_findings, x);
}

// A node with hardware counter faults whose bandwidth is normal (evidence: its counters, and the
// confirmation tests that cleared it).
TriageSuspect counter_fault_suspect(const TriageReport& rep, int node, const NodeFindings& node_findings,
                                    const Localization& loc) {
  TriageSuspect ts;
  ts.kind = "node";
  ts.hosts = {rep.hosts[static_cast<size_t>(node)]};
  ts.layer = Layer::kTransport;
  add_counter_evidence(ts, node_findings, node);
  for (const auto& [cleared, reason] : loc.cleared)
    if (cleared == node) {
      Evidence e;
      e.metric = "bandwidth with known-good partners";
      e.value_text = "normal: " + name_nodes(reason, rep.hosts);
      e.source = "confirmation rounds";
      ts.evidence.push_back(e);
    }
  if (ts.action.empty()) ts.action = "Counters show a hardware fault in the test window: inspect the port named in the evidence.";
  return ts;
}

// The screen ratio of a suspect that has no confirmation tests (small clusters, the whole cluster).
Evidence ratio_evidence(const Suspect& sp, const std::string& what) {
  Evidence e;
  e.metric = "bandwidth ratio of " + what;
  e.value = sp.screen_ratio;
  e.unit = "ratio";
  e.source = "pairwise screen";
  return e;
}

}  // namespace fabdiag::triage
