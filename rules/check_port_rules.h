// RDMA port rules of `fabdiag check`: state and physical state (the rules of
// rules/counter_rules.h, reused), rate against the node's other ports of the same model and
// against an expected rate, RoCE active MTU, RoCE v2 GID, and ECN (rp_cnp_ignored, again the
// existing counter rule). Each rule is a function over probes/check/check_model.h structs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/finding.h"
#include "probes/check/check_model.h"
#include "probes/counters/counter_model.h"

namespace fabdiag {

/// True when the port is up: state ACTIVE (4) or ACTIVE_DEFER (5) and a phys_state that is not
/// an IBTA "down" value (a non-standard text such as "4: ACTIVE" does not count as down).
bool port_is_up(const RdmaPortFacts& p);

/// port_state_findings() (rules/counter_rules.h) for one port: port_down (error),
/// port_not_active / phys_state_not_linkup (warn). The rate of a port that is not up is shown
/// as "not a link speed" (mlx5 prints "40 Gb/sec (4X QDR)" when there is no link); lid is never
/// judged (0 is normal on RoCE).
std::vector<Finding> port_state_rule(const RdmaPortFacts& p);

/// An expected port rate: for ports of `model` ("MT4129"), or for every port when model is "".
struct RateExpectation {
  std::string model;
  double rate_gbps = 0;
};
/// Parses "400" or "MT4129=400" (Gb/s). nullopt for anything else (non-positive, junk).
std::optional<RateExpectation> parse_rate_expectation(const std::string& text);

/// Rate findings (layer L4). Only up ports with a parsed rate are compared.
///  - An expectation applies (the model's, else the catch-all): rate below it = error
///    "port_rate_below_expected"; such a port is not compared with its peers.
///  - Peers: ports are grouped by (model or board_id, link_layer), so a 100G frontend NIC is
///    never compared with 400G rails. In a group of 2+ up ports, a rate held by more than half
///    is the majority: a port below it = warn "port_rate_below_peers" naming both readings;
///    without a majority and differing rates = warn "port_rate_mismatch" listing all of them.
///    When the model is unknown (ibstatus), the message asks for it, because a slower port may
///    be a different NIC rather than a degraded rail.
/// On Ethernet (RoCE) the "(4X HDR)" part of a rate is mlx5's IB-style name of the Ethernet
/// mode, never read as lanes; on InfiniBand a lower lane count is named.
std::vector<Finding> port_rate_findings(const std::vector<RdmaPortFacts>& ports,
                                        const std::vector<RateExpectation>& expected);

/// The RoCE path MTU the kernel derives from a netdev MTU (iboe_get_mtu in
/// include/rdma/ib_addr.h: netdev MTU minus 96 bytes of GRH/UDP/BTH/extension/ICRC headers,
/// rounded down to 4096/2048/1024/512/256). 0 when below 256.
int roce_mtu_from_netdev_mtu(int netdev_mtu_bytes);

/// RoCE MTU (link layer Ethernet only; layer L3): active MTU (ibv_devinfo) or the one derived
/// from the netdev MTU below 4096 = warn "roce_mtu_low". Unknown MTU: no finding.
std::vector<Finding> roce_mtu_findings(const RdmaPortFacts& p);

/// RoCE v2 GID (link layer Ethernet, port up, GIDs known; layer L3): no non-zero GID of type
/// "RoCE v2" = error "rocev2_gid_missing" (usually no IP address on the netdev).
std::vector<Finding> roce_gid_findings(const RdmaPortFacts& p);

/// ECN: the counter rule for rp_cnp_ignored (rules/counter_rules.h, "ecn_not_enabled",
/// warn at >= 1 on one snapshot) applied to `counters`; other counter rules are left to
/// `fabdiag counters`.
std::vector<Finding> ecn_findings(const std::vector<CounterChange>& counters);

}  // namespace fabdiag
