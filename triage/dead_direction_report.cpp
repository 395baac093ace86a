#include "triage/dead_direction_report.h"

#include <utility>

namespace fabdiag::triage {

TriageSuspect dead_suspect(const DeadSuspect& d, const std::vector<std::string>& hosts) {
  TriageSuspect ts;
  ts.kind = d.kind;
  for (int x : d.nodes) ts.hosts.push_back(static_cast<size_t>(x) < hosts.size() ? hosts[static_cast<size_t>(x)] : std::to_string(x));
  ts.layer = Layer::kLocalization;
  ts.no_completion_s = d.no_completion_s;
  Evidence e;
  e.metric = d.kind == "node" ? "pair tests of " + ts.hosts[0] + " that completed" : "pair test " + ts.hosts[0] + "<->" + ts.hosts[1];
  e.value = d.no_completion_s;
  e.unit = "s";
  e.value_text = dead_text(d, hosts);
  e.source = "pairwise MPI_Isend/MPI_Irecv, given up after --dead-after seconds (" + std::to_string(d.dead_tests) + " test(s))";
  ts.evidence.push_back(e);
  ts.action = d.kind == "node"
                  ? "No exchange with " + ts.hosts[0] + " completed: check that its NIC port is up and passes traffic "
                    "(`fabdiag check`, `fabdiag counters`, dmesg), then drain it."
                  : "Only this pair never completes; both ends work with other partners. Check the path between " +
                        ts.hosts[0] + " and " + ts.hosts[1] +
                        " (routes, MTU, ACLs, a shaper or a flapping switch port); later rounds did not test it again.";
  return ts;
}

void add_direction(TriageSuspect& ts, const NodeDirection& dir) {
  if (dir.direction.empty()) return;
  const bool pair = ts.hosts.size() == 2;
  NodeDirection d = dir;
  if (pair && d.direction == "recv") {  // a pair is written slow end first: hosts[0] -> hosts[1] is slow
    std::swap(ts.hosts[0], ts.hosts[1]);
    std::swap(d.send_bytes_per_s, d.recv_bytes_per_s);
    d.direction = "send";
  }
  ts.direction = d.direction;
  const std::string from = ts.hosts[0], to = pair ? ts.hosts[1] : "its partners";
  Evidence e;
  e.metric = pair ? "rate " + from + " -> " + to + " against " + to + " -> " + from
                  : "median send rate of " + from + " against its receive rate";
  e.value = d.send_bytes_per_s;
  e.unit = "bytes/s";
  e.threshold = d.recv_bytes_per_s;
  e.threshold_text = "the other direction, over " + std::to_string(d.tests) + " test(s)";
  e.value_text = "direction: " + d.direction;
  e.source = "pairwise, each direction timed on its receiver";
  ts.evidence.push_back(e);
  if (d.direction == "both") return;
  const bool send = d.direction == "send";
  if (pair) {
    ts.action = "Only " + (send ? from + " -> " + to : to + " -> " + from) + " is slow: " +
                (send ? from : to) + "'s transmit side or " + (send ? to : from) +
                "'s receive side. Test each with a third, known-good node. " + ts.action;
  } else {
    ts.action = send ? "Only traffic out of " + from + " is slow: check its transmit side first (TX pause frames it "
                       "receives, egress shaping or QoS, the NIC's TX lanes and the cable towards the switch). " + ts.action
                     : "Only traffic into " + from + " is slow: check its receive side first (rx drops and discards, "
                       "PFC pause it sends, the switch port's egress towards it). " + ts.action;
  }
}

}  // namespace fabdiag::triage
