// Findings and JSON data of a show_gids import (import/show_gids.h; docs/fabric.md#show_gids-findings).
#include "core/text.h"
#include "import/common.h"
#include "import/show_gids.h"

namespace fabdiag {
namespace {

std::string port_name(const ShowGidsPort& p) {
  std::string s = p.ibdev + "/" + std::to_string(p.port);
  return p.host.empty() ? s : p.host + " " + s;
}

std::string versions_text(const ShowGidsPort& p) {
  std::vector<std::string> v;
  for (const auto* g : p.gids)
    v.push_back(std::to_string(g->index) + " " + g->version + (g->ipv4.empty() ? "" : " " + g->ipv4));
  return join_first(v, 8, ", ", "...");
}

Finding port_finding(const ShowGidsImport& imp, const ShowGidsPort& p, bool v1_only) {
  Finding f;
  f.severity = Severity::kWarn;
  f.layer = Layer::kTransport;
  f.subject = port_name(p);
  std::string nd = p.netdev.empty() ? "" : " (" + p.netdev + ")";
  if (v1_only) {
    f.code = "show_gids_roce_v1_only";
    f.message = port_name(p) + nd + " has RoCE v1 GIDs only: v1 is not routable (no IP/UDP header), so RDMA "
                "across an L3 fabric fails and NCCL cannot pick a v2 GID";
    f.action = "Set the port's default RoCE mode to v2 (cma_roce_mode -d " + p.ibdev + " -p " +
               std::to_string(p.port) + " -m 2) and check that the netdev has an IPv4 address";
  } else {
    f.code = "show_gids_no_ipv4_v2";
    f.message = port_name(p) + nd + " has no RoCE v2 GID with an IPv4 address: there is no index for "
                "NCCL_IB_GID_INDEX on an IPv4 fabric (NCCL falls back to a link-local or IPv6 GID, or fails to connect)";
    f.action = "Give " + (p.netdev.empty() ? std::string("the port's netdev") : p.netdev) +
               " its IPv4 address (ip addr), then run show_gids again and set NCCL_IB_GID_INDEX to the v2 IPv4 row";
  }
  f.evidence.push_back(
      Evidence::text("GIDs (index version [IPv4])", versions_text(p), line_source(imp.source, p.gids.front()->line))
          .expect(">= 1 RoCE v2 GID with an IPv4 address"));
  return f;
}

nlohmann::json str_or_null(const std::string& s) { return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s); }

}  // namespace

std::vector<Finding> show_gids_findings(const ShowGidsImport& imp) {
  std::vector<Finding> out;
  for (const auto& p : show_gids_ports(imp)) {
    if (p.infiniband || p.v2_ipv4_index) continue;
    out.push_back(port_finding(imp, p, !p.has_v2));
  }
  return out;
}

nlohmann::json show_gids_data(const ShowGidsImport& imp) {
  nlohmann::json ports = nlohmann::json::array();
  for (const auto& p : show_gids_ports(imp)) {
    nlohmann::json gids = nlohmann::json::array();
    for (const auto* g : p.gids)
      gids.push_back({{"index", g->index},
                      {"gid", g->gid},
                      {"ipv4", str_or_null(g->ipv4)},
                      {"version", g->version},
                      {"line", g->line}});
    ports.push_back({{"host", str_or_null(p.host)},
                     {"ibdev", p.ibdev},
                     {"port", p.port},
                     {"netdev", str_or_null(p.netdev)},
                     {"infiniband", p.infiniband},
                     {"nccl_gid_index", p.v2_ipv4_index ? nlohmann::json(*p.v2_ipv4_index) : nlohmann::json(nullptr)},
                     {"gids", gids}});
  }
  return {{"header", imp.header},
          {"n_gids_found", imp.n_gids_found ? nlohmann::json(*imp.n_gids_found) : nlohmann::json(nullptr)},
          {"gids_read", imp.rows},
          {"gids_distinct", imp.entries.size()},
          {"ports", ports}};
}

}  // namespace fabdiag
