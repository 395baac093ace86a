#include "triage/suspect_findings.h"

#include <string>

namespace fabdiag::triage {

Finding suspect_finding(const TriageSuspect& s) {
  Finding f;
  f.severity = Severity::kError;
  f.layer = s.layer;
  f.code = s.kind == "link" ? "slow_link" : (s.layer == Layer::kLocalization ? "slow_node" : "node_fault");
  f.subject = s.hosts.size() == 2 ? s.hosts[0] + "<->" + s.hosts[1] : s.hosts[0];
  f.message = s.kind == "link" ? "the link between " + s.hosts[0] + " and " + s.hosts[1] + " is slow; both ends are fine with other partners"
                               : s.hosts[0] + " is a suspect (" + std::string(to_string(s.layer)) + ")";
  if (s.kind == "pair") {
    f.code = "slow_pair";
    f.message = "one of " + s.hosts[0] + " and " + s.hosts[1] + " is slow";
  }
  if (s.kind == "leaf_uplink" || s.kind == "spine") {
    f.code = s.kind == "spine" ? "slow_spine" : "slow_leaf_uplink";
    f.subject = s.subject;
    f.message = s.kind == "spine" ? "every cross-leaf test is slow while each leaf is fine inside"
                                  : "tests across the uplink of " + s.subject + " are slow; its " +
                                        std::to_string(s.hosts.size()) + " hosts are fine with each other";
  }
  if (s.no_completion_s > 0) {
    f.code = s.kind == "node" ? "dead_host" : "dead_link";
    f.message = s.evidence.empty() ? "no completion" : s.evidence[0].value_text;
  }
  if (s.kind == "cluster") {
    f.code = "slow_cluster";
    f.subject = "cluster";
    f.message = "all " + std::to_string(s.hosts.size()) + " nodes are slow against the reference";
  }
  f.evidence = s.evidence;
  f.action = s.action;
  return f;
}

void add_findings(TriageReport& rep, const std::map<int, std::vector<Finding>>& node_findings) {
  for (const auto& s : rep.suspects) rep.findings.push_back(suspect_finding(s));
  for (const auto& [i, fs] : node_findings)
    for (const auto& f : fs)
      if (f.severity >= Severity::kWarn) rep.findings.push_back(f);
}

}  // namespace fabdiag::triage
