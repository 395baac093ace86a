#include "rules/check_port_rules.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "core/text.h"
#include "rules/counter_rules.h"
#include "probes/counters/sysfs_counters.h"

namespace fabdiag {

namespace {

std::string gbps_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g Gb/s", v);
  return buf;
}

// The rate as the tool printed it, plus Gb/s when it printed a bare number (ibstat "Rate: 400").
std::string rate_text(const RdmaPortFacts& p) {
  if (p.rate.find("Gb") != std::string::npos || !p.rate_gbps) return p.rate;
  return gbps_text(*p.rate_gbps);
}

// "4X" of "400 Gb/sec (4X NDR)": the IB width, or 0.
int lanes_of(const std::string& rate) {
  auto open = rate.find('(');
  if (open == std::string::npos) return 0;
  auto x = rate.find('X', open);
  if (x == std::string::npos) return 0;
  auto v = parse_u64(rate.substr(open + 1, x - open - 1));
  return v && *v <= 32 ? static_cast<int>(*v) : 0;
}

// Ports compared with each other: same model (or board) and link layer. Returned as the
// phrase the messages use: "MT4129 Ethernet ports", "Ethernet ports of unknown model".
std::string group_name(const RdmaPortFacts& p) {
  std::string layer = p.link_layer.empty() ? "" : p.link_layer + " ";
  if (!p.model.empty()) return p.model + " " + layer + "ports";
  if (!p.board_id.empty()) return p.board_id + " " + layer + "ports";
  return layer + "ports of unknown model";
}

const char* kRateAction =
    "Check the cable or optic and the far-end switch port speed (ethtool <netdev>, mlxlink -d "
    "<ibdev>), reseat or replace it; if the port belongs to a different NIC (a frontend port), "
    "leave it out of NCCL_IB_HCA.";

Evidence rate_evidence(const RdmaPortFacts& p, double threshold, std::string threshold_text) {
  Evidence e = Evidence::number("rate", p.rate_gbps, "Gb/s", p.source).expect(threshold, std::move(threshold_text));
  e.value_text = p.rate;
  return e;
}

std::string layer_note(const RdmaPortFacts& p, const std::string& peer_rate) {
  if (p.link_layer == "Ethernet" && p.rate.find('(') != std::string::npos)
    return "; on RoCE (link layer Ethernet) the text in parentheses is mlx5's InfiniBand-style name "
           "of the Ethernet mode, not a lane width";
  if (p.link_layer == "InfiniBand") {
    int mine = lanes_of(p.rate), theirs = lanes_of(peer_rate);
    if (mine > 0 && theirs > 0 && mine < theirs)
      return "; it trained " + std::to_string(mine) + "X instead of " + std::to_string(theirs) + "X lanes";
  }
  return "";
}

}  // namespace

bool port_is_up(const RdmaPortFacts& p) {
  auto st = parse_numbered_state(p.state);
  return st && (st->number == 4 || st->number == 5) && !phys_state_is_down(p.phys_state);
}

std::vector<Finding> port_state_rule(const RdmaPortFacts& p) {
  auto out = port_state_findings(to_port_info(p));
  // Imported ports have no sysfs directory: "FILE line 3: CA 'x' port 1/state" -> "..., state".
  if (!p.from_sysfs)
    for (auto& f : out)
      for (auto& e : f.evidence)
        if (starts_with(e.source, p.source + "/")) e.source = p.source + ", " + e.source.substr(p.source.size() + 1);
  return out;
}

std::optional<RateExpectation> parse_rate_expectation(const std::string& text) {
  RateExpectation r;
  std::string t = trim(text);
  auto eq = t.find('=');
  if (eq != std::string::npos) {
    r.model = trim(t.substr(0, eq));
    if (r.model.empty()) return std::nullopt;
    t = trim(t.substr(eq + 1));
  }
  auto v = parse_double(t);
  if (!v || !(*v > 0) || *v > 1e6) return std::nullopt;
  r.rate_gbps = *v;
  return r;
}

namespace {

// The --expect-rate entry for a port: its model's, else the model-less one, else none.
const RateExpectation* expectation_for(const RdmaPortFacts& p, const std::vector<RateExpectation>& expected) {
  const RateExpectation* any = nullptr;
  for (const auto& e : expected) {
    if (!e.model.empty() && (e.model == p.model || e.model == p.board_id)) return &e;
    if (e.model.empty()) any = &e;
  }
  return any;
}

Finding below_expected_finding(const RdmaPortFacts& p, const RateExpectation& e) {
  Finding f;
  f.severity = Severity::kError;
  f.layer = Layer::kPhysical;
  f.code = "port_rate_below_expected";
  f.subject = p.device;
  f.message = p.device + (p.netdev.empty() ? "" : " (" + p.netdev + ")") + " runs at " + rate_text(p) +
              ", below the expected " + gbps_text(e.rate_gbps) + (e.model.empty() ? "" : " for " + e.model) +
              layer_note(p, "");
  f.evidence.push_back(
      rate_evidence(p, e.rate_gbps, "--expect-rate " + (e.model.empty() ? "" : e.model + "=") + gbps_text(e.rate_gbps)));
  f.action = kRateAction;
  return f;
}

// One group of same-model ports, its ports bucketed by rate (0.1 Gb/s).
struct RateGroup {
  const std::string& key;
  const std::vector<const RdmaPortFacts*>& ports;
  std::map<double, std::vector<const RdmaPortFacts*>> by_rate;
  bool unknown_model = false;
  std::string ask;  ///< What to look up when the model is unknown ("" otherwise).
};

// Ports slower than the group's majority rate: one warning each, with a majority port as evidence.
void below_majority_findings(const RateGroup& g, const std::vector<const RdmaPortFacts*>& majority,
                             double majority_rate, std::vector<Finding>& out) {
  std::vector<std::string> peers;
  for (const auto* q : majority) peers.push_back(q->device);
  const RdmaPortFacts& ref = *majority.front();
  for (const auto* p : g.ports) {
    if (*p->rate_gbps >= majority_rate - 1e-9) continue;
    Finding f;
    f.severity = Severity::kWarn;
    f.layer = Layer::kPhysical;
    f.code = "port_rate_below_peers";
    f.subject = p->device;
    f.message = p->device + (p->netdev.empty() ? "" : " (" + p->netdev + ")") + " runs at " + rate_text(*p) +
                " while " + std::to_string(majority.size()) + " of the " + std::to_string(g.ports.size()) +
                " active " + g.key + (p->from_sysfs ? "" : " listed") + " (" + join(peers) + ") run at " +
                rate_text(ref) + layer_note(*p, ref.rate) + g.ask;
    f.evidence.push_back(rate_evidence(*p, majority_rate, "rate of the majority of active " + g.key));
    Evidence peer = rate_evidence(ref, majority_rate, "");
    peer.metric = "rate of " + ref.device + " (majority)";
    f.evidence.push_back(peer);
    f.action = std::string(g.unknown_model
                               ? "Find the model of " + p->ibdev + " first (ibv_devinfo -d " + p->ibdev + " board_id). "
                               : "") +
               kRateAction;
    out.push_back(std::move(f));
  }
}

// Rates that differ with no majority: one warning for the whole group.
Finding no_majority_finding(const RateGroup& g) {
  Finding f;
  f.severity = Severity::kWarn;
  f.layer = Layer::kPhysical;
  f.code = "port_rate_mismatch";
  std::vector<std::string> devices, readings;
  for (const auto* p : g.ports) {
    devices.push_back(p->device);
    readings.push_back(p->device + " " + rate_text(*p));
    f.evidence.push_back(rate_evidence(*p, g.by_rate.rbegin()->first, "highest rate among active " + g.key));
  }
  f.subject = join(devices);
  f.message = "active " + g.key + " run at different rates with no majority: " + join(readings) + g.ask;
  f.action = kRateAction;
  return f;
}

void peer_rate_findings(const std::string& key, const std::vector<const RdmaPortFacts*>& ports,
                        std::vector<Finding>& out) {
  if (ports.size() < 2) return;
  RateGroup g{key, ports, {}, false, ""};
  for (const auto* p : ports) g.by_rate[std::round(*p->rate_gbps * 10) / 10].push_back(p);
  if (g.by_rate.size() < 2) return;
  g.unknown_model = ports.front()->model.empty() && ports.front()->board_id.empty();
  if (g.unknown_model)
    g.ask = ". The output does not name the device model, so it cannot tell a rail that "
            "came up slow from a different NIC (for example a frontend port): look up the "
            "model (ibv_devinfo board_id, or lspci) to decide";
  for (const auto& [rate, list] : g.by_rate)
    if (list.size() * 2 > ports.size()) return below_majority_findings(g, list, rate, out);
  out.push_back(no_majority_finding(g));
}

}  // namespace

std::vector<Finding> port_rate_findings(const std::vector<RdmaPortFacts>& ports,
                                        const std::vector<RateExpectation>& expected) {
  std::vector<Finding> out;
  std::map<std::string, std::vector<const RdmaPortFacts*>> groups;
  std::vector<std::string> order;
  for (const auto& p : ports) {
    if (!port_is_up(p) || !p.rate_gbps) continue;
    if (const RateExpectation* e = expectation_for(p, expected)) {
      // The inventory decides; no peer comparison for this port.
      if (*p.rate_gbps + 1e-9 < e->rate_gbps) out.push_back(below_expected_finding(p, *e));
      continue;
    }
    std::string key = group_name(p);
    if (!groups.count(key)) order.push_back(key);
    groups[key].push_back(&p);
  }
  for (const auto& key : order) peer_rate_findings(key, groups[key], out);
  return out;
}

int roce_mtu_from_netdev_mtu(int netdev_mtu_bytes) {
  int payload = netdev_mtu_bytes - 96;  // GRH 40 + UDP 8 + BTH 12 + XRC 4 + AtomicETH 28 + ICRC 4
  for (int m : {4096, 2048, 1024, 512, 256})
    if (payload >= m) return m;
  return 0;
}

std::vector<Finding> roce_mtu_findings(const RdmaPortFacts& p) {
  std::vector<Finding> out;
  if (p.link_layer != "Ethernet") return out;
  std::optional<int> active = p.active_mtu_bytes;
  bool derived = false;
  if (!active && p.netdev_mtu_bytes) {
    active = roce_mtu_from_netdev_mtu(*p.netdev_mtu_bytes);
    derived = true;
  }
  if (!active || *active >= 4096) return out;
  Finding f;
  f.severity = Severity::kWarn;
  f.layer = Layer::kTransport;
  f.code = "roce_mtu_low";
  f.subject = p.device;
  f.message = "RoCE path MTU of " + p.device + " is " + std::to_string(*active) + " bytes" +
              (p.netdev_mtu_bytes ? " (netdev " + (p.netdev.empty() ? std::string("?") : p.netdev) + " MTU " +
                                        std::to_string(*p.netdev_mtu_bytes) + ")"
                                  : "") +
              ", below 4096: RDMA messages travel in small packets and lose bandwidth to headers";
  f.evidence.push_back(Evidence::number(derived ? "RoCE active MTU (derived from the netdev MTU)" : "active_mtu",
                                        *active, "bytes", p.source)
                           .expect(4096, ">= 4096 (netdev MTU >= 4200, usually 9000)"));
  if (p.netdev_mtu_bytes)
    f.evidence.push_back(Evidence::number("netdev mtu", *p.netdev_mtu_bytes, "bytes",
                                          "/sys/class/net/" + p.netdev + "/mtu")
                             .expect(4200, ""));
  f.action = "Set the netdev MTU to 9000 (ip link set dev " + (p.netdev.empty() ? std::string("<netdev>") : p.netdev) +
             " mtu 9000, and in the network configuration) and check that the switch ports allow 9216.";
  out.push_back(std::move(f));
  return out;
}

std::vector<Finding> roce_gid_findings(const RdmaPortFacts& p) {
  std::vector<Finding> out;
  if (p.link_layer != "Ethernet" || !p.rocev2_gids || !p.rocev2_gids->empty() || !port_is_up(p)) return out;
  Finding f;
  f.severity = Severity::kError;
  f.layer = Layer::kTransport;
  f.code = "rocev2_gid_missing";
  f.subject = p.device;
  f.message = p.device + (p.netdev.empty() ? "" : " (" + p.netdev + ")") +
              " has no RoCE v2 GID: RDMA CM and NCCL (RoCE v2 by default) cannot use this port for routed "
              "RoCE traffic; a RoCE v2 GID appears when the netdev has an IP address";
  f.evidence.push_back(Evidence::number("GIDs of type RoCE v2 with a non-zero address", 0, "count",
                                        p.from_sysfs ? p.source + "/gid_attrs/types" : p.source)
                           .expect(1, ">= 1"));
  f.action = "Give " + (p.netdev.empty() ? std::string("the netdev") : p.netdev) +
             " its IP address (ip addr show; the network configuration), then check with show_gids or "
             "ibv_devinfo -v that a RoCE v2 GID appears.";
  out.push_back(std::move(f));
  return out;
}

std::vector<Finding> ecn_findings(const std::vector<CounterChange>& counters) {
  std::vector<Finding> out;
  for (auto& f : counter_findings(counters, std::nullopt))
    if (f.code == "ecn_not_enabled") out.push_back(std::move(f));
  return out;
}

}  // namespace fabdiag
