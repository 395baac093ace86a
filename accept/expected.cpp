// Derived expectations (docs/accept.md#derived-expectations). Rates stay bytes/s inside; the
// formula text shows GB/s (1e9 bytes/s, as nccl-tests prints) for people.
#include "accept/expected.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include <nlohmann/json.hpp>

namespace fabdiag::accept {

namespace {

std::string gbyte(double bytes_per_s) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g GB/s", bytes_per_s / 1e9);
  return buf;
}

std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

bool is_ring_collective(const std::string& c) {
  return c == "all_reduce" || c == "all_gather" || c == "reduce_scatter" || c == "broadcast" || c == "reduce";
}

}  // namespace

std::optional<NodeNetwork> node_network(const nlohmann::json& topo, const std::string& source) {
  if (!topo.is_object() || !topo.contains("devices") || !topo["devices"].is_array()) return std::nullopt;
  std::set<std::string> far;
  if (topo.contains("rails") && topo["rails"].is_object() && topo["rails"].contains("far_nics"))
    for (const auto& n : topo["rails"]["far_nics"])
      if (n.is_string()) far.insert(n.get<std::string>());
  NodeNetwork net;
  for (const auto& d : topo["devices"]) {
    const std::string kind = d.value("kind", "");
    if (kind == "gpu") ++net.gpus;
    if (kind != "nic" || !d.value("rdma", false) || far.count(d.value("name", ""))) continue;
    if (!d.contains("ports") || !d["ports"].is_array()) continue;
    for (const auto& p : d["ports"]) {
      if (p.value("state", "") != "4: ACTIVE" || !p.contains("rate_bits_per_s") || !p["rate_bits_per_s"].is_number()) continue;
      const double bytes = p["rate_bits_per_s"].get<double>() / 8;
      ++net.rails;
      net.rail_bytes_per_s += bytes;
      net.fastest_port_bytes_per_s = std::max(net.fastest_port_bytes_per_s, bytes);
    }
  }
  net.source = source + ": " + std::to_string(net.rails) + " rail port(s), " + gbyte(net.rail_bytes_per_s) + " in all";
  return net;
}

Derived derive_busbw(const std::string& collective, int ranks, int nodes, const std::optional<NodeNetwork>& slowest,
                     double efficiency) {
  Derived d;
  if (nodes < 2) {
    d.reason = "single node: the traffic never crosses the network (NVLink or shared memory, whose rate the topology "
               "does not carry); give min_busbw_gbyte_per_s for single-node floors";
    return d;
  }
  if (!slowest) {
    d.reason = "no topology of the nodes the run used: nothing to derive the floor from";
    return d;
  }
  if (slowest->rails == 0) {
    d.reason = "no active RDMA port in the topology (" + slowest->source + "); give min_busbw_gbyte_per_s";
    return d;
  }
  if (ranks < 2) {
    d.reason = "fewer than 2 ranks";
    return d;
  }
  const double rails = slowest->rail_bytes_per_s;
  if (is_ring_collective(collective)) {
    d.bytes_per_s = efficiency * rails;
    d.formula = num(efficiency) + " x " + gbyte(rails) + " (" + std::to_string(slowest->rails) +
                " rails of the slowest node; one ring per rail)";
    return d;
  }
  if (collective == "alltoall") {
    const int g = std::max(1, ranks / nodes);
    if (ranks <= g) {
      d.reason = "alltoall with every rank on one node";
      return d;
    }
    const double share = rails / g;
    const double factor = static_cast<double>(ranks - 1) / static_cast<double>(ranks - g);
    d.bytes_per_s = efficiency * share * factor;
    d.formula = num(efficiency) + " x " + gbyte(rails) + " / " + std::to_string(g) + " ranks per node x (" +
                std::to_string(ranks) + "-1)/(" + std::to_string(ranks) + "-" + std::to_string(g) +
                ") (alltoall: each rank's off-node share through its share of the rails)";
    return d;
  }
  d.reason = collective + ": no derivation (busbw = algbw of one pair); give min_busbw_gbyte_per_s";
  return d;
}

Derived derive_pair(const std::optional<NodeNetwork>& a, const std::optional<NodeNetwork>& b, double efficiency) {
  Derived d;
  if (!a || !b) {
    d.reason = "no topology of " + std::string(!a && !b ? "either node" : "one of the nodes") +
               ": nothing to derive the pair floor from";
    return d;
  }
  const double port = std::min(a->fastest_port_bytes_per_s, b->fastest_port_bytes_per_s);
  if (port <= 0) {
    d.reason = "no active RDMA port in the topology; give deliver.pair.min_gbyte_per_s";
    return d;
  }
  d.bytes_per_s = efficiency * port;
  d.formula = num(efficiency) + " x " + gbyte(port) + " (one rank per node: one rail port, the slower end's)";
  return d;
}

}  // namespace fabdiag::accept
