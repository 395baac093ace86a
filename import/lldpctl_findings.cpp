// Findings and JSON data of an lldpctl import (import/lldpctl.h; docs/fabric.md#lldpctl-findings).
#include <map>
#include <set>

#include "core/text.h"
#include "import/lldpctl.h"

namespace fabdiag {
namespace {

constexpr int kJumboFrame = 9000;

std::string chassis_name(const LldpNeighbor& n) { return n.sysname.empty() ? n.chassis_id : n.sysname; }

template <typename T>
nlohmann::json opt(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace

std::vector<Finding> lldpctl_findings(const LldpImport& imp) {
  std::vector<Finding> out;
  std::map<std::pair<std::string, std::string>, std::vector<const LldpNeighbor*>> by_far_port;
  for (const auto& n : imp.neighbors)
    if (!n.chassis_id.empty() && !n.port_id.empty()) by_far_port[{n.chassis_id, n.port_id}].push_back(&n);
  for (const auto& [key, ns] : by_far_port) {
    if (ns.size() < 2) continue;
    std::vector<std::string> locals;
    for (const auto* n : ns) locals.push_back(n->local_port);
    Finding f;
    f.severity = Severity::kWarn;
    f.layer = Layer::kPhysical;
    f.code = "lldp_same_neighbor_port";
    f.subject = chassis_name(*ns[0]) + " " + key.second;
    f.message = "Local ports " + join_prose(locals) + " all hear " + chassis_name(*ns[0]) + " port " + key.second +
                ": one far port cannot be cabled to two local ports (a loop, a hub or a cabling mistake)";
    for (const auto* n : ns) f.evidence.push_back(Evidence::text("neighbor of " + n->local_port, f.subject, imp.source));
    f.action = "Trace the cables of " + join_prose(locals) + " to the switch";
    out.push_back(std::move(f));
  }
  for (const auto& n : imp.neighbors) {
    if (!n.mfs || *n.mfs >= kJumboFrame) continue;
    Finding f;
    f.severity = Severity::kInfo;
    f.layer = Layer::kPhysical;
    f.code = "lldp_mfs_below_jumbo";
    f.subject = n.host.empty() ? n.local_port : n.host + " " + n.local_port;
    f.message = f.subject + "'s neighbour " + chassis_name(n) + " port " + n.port_id + " announces a maximum frame of " +
                std::to_string(*n.mfs) + " bytes: frames of a 9000-byte MTU will not pass that port";
    f.evidence.push_back(Evidence::number("neighbor mfs", *n.mfs, "bytes", imp.source).expect(kJumboFrame, ">= 9000 bytes"));
    f.action = "If this port carries RDMA or storage traffic, raise the switch port's MTU";
    out.push_back(std::move(f));
  }
  return out;
}

nlohmann::json lldpctl_data(const LldpImport& imp) {
  nlohmann::json ns = nlohmann::json::array();
  std::set<std::string> switches;
  for (const auto& n : imp.neighbors) {
    switches.insert(n.chassis_id.empty() ? n.sysname : n.chassis_id);
    nlohmann::json autoneg = nullptr;
    if (n.autoneg_supported || n.autoneg_enabled)
      autoneg = {{"supported", opt(n.autoneg_supported)}, {"enabled", opt(n.autoneg_enabled)}};
    ns.push_back({{"local_port", n.local_port},
                  {"via", n.via},
                  {"age", n.age},
                  {"chassis", {{"id_type", n.chassis_id_type}, {"id", n.chassis_id}, {"sysname", n.sysname},
                               {"descr", n.sysdescr}, {"mgmt_ips", n.mgmt_ips}, {"capabilities", n.capabilities}}},
                  {"port", {{"id_type", n.port_id_type}, {"id", n.port_id}, {"descr", n.port_descr},
                            {"ttl_s", opt(n.ttl_s)}, {"mfs", opt(n.mfs)}, {"autoneg", autoneg},
                            {"mau_oper_type", n.mau_oper_type}}},
                  {"speed_gbps", opt(n.speed_gbps)},
                  {"speed_from", n.speed_from},
                  {"vlans", n.vlans},
                  {"pvid", opt(n.pvid)}});
    if (!n.host.empty()) ns.back()["host"] = n.host;  // keyvalue read through pdsh: whose port
  }
  return {{"format", imp.format}, {"neighbors", ns},
          {"summary", {{"neighbors", imp.neighbors.size()}, {"switches", switches.size()}}}};
}

}  // namespace fabdiag
