// Findings and JSON data of an ibdev2netdev import (import/ibdev2netdev.h;
// docs/fabric.md#ibdev2netdev-findings).
#include "core/text.h"
#include "import/common.h"
#include "import/ibdev2netdev.h"

namespace fabdiag {
namespace {

std::string port_name(const Ibdev2netdevPort& p) {
  std::string s = p.ibdev + "/" + std::to_string(p.port);
  return p.host.empty() ? s : p.host + " " + s;
}

nlohmann::json str_or_null(const std::string& s) { return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s); }

}  // namespace

std::vector<Finding> ibdev2netdev_findings(const Ibdev2netdevImport& imp) {
  std::vector<Finding> out;
  for (const auto& p : imp.ports) {
    if (p.up()) continue;
    std::string src = line_source(imp.source, p.line);
    Finding f;
    f.severity = Severity::kWarn;
    f.layer = Layer::kPhysical;
    f.code = "ibdev2netdev_port_down";
    f.subject = port_name(p);
    std::string why = p.link != "Up" ? "its netdev " + p.netdev + " is " + p.link
                                     : "its netdev " + p.netdev + " is Up but the port is " + p.port_state;
    f.message = port_name(p) + " (" + p.netdev + ") is not usable: " + why +
                (p.link != "Up" && !p.port_state.empty() ? " (port " + p.port_state + ")" : "");
    f.evidence.push_back(Evidence::text("netdev state", p.link, src).expect("Up"));
    if (!p.port_state.empty()) f.evidence.push_back(Evidence::text("port state", p.port_state, src).expect("ACTIVE"));
    f.action = "Check the cable and the switch port of " + p.netdev + " (ethtool " + p.netdev + ", ibstat " + p.ibdev +
               "); a job using " + p.ibdev + " (NCCL_IB_HCA) cannot send on this port";
    out.push_back(std::move(f));
  }
  return out;
}

nlohmann::json ibdev2netdev_data(const Ibdev2netdevImport& imp) {
  nlohmann::json ports = nlohmann::json::array();
  size_t down = 0;
  for (const auto& p : imp.ports) {
    down += p.up() ? 0 : 1;
    ports.push_back({{"host", str_or_null(p.host)},
                     {"ibdev", p.ibdev},
                     {"port", p.port},
                     {"netdev", p.netdev},
                     {"link", p.link},
                     {"port_state", str_or_null(p.port_state)},
                     {"pci_bdf", str_or_null(p.pci_bdf)},
                     {"part", str_or_null(p.part)},
                     {"board", str_or_null(p.board)},
                     {"description", str_or_null(p.description)},
                     {"fw", str_or_null(p.fw)},
                     {"max_rate_bits_per_s",
                      p.max_rate_gbps ? nlohmann::json(*p.max_rate_gbps * 1e9) : nlohmann::json(nullptr)},
                     {"up", p.up()},
                     {"line", p.line}});
  }
  nlohmann::json out = {{"verbose", imp.verbose}, {"ports", ports}, {"ports_total", imp.ports.size()}, {"ports_down", down}};
  if (imp.repeated) out["records_repeated"] = imp.repeated;
  return out;
}

}  // namespace fabdiag
