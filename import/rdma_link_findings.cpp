// Findings and JSON data of an `rdma link show` import (import/rdma_link.h;
// docs/fabric.md#rdma-link-findings).
#include "core/text.h"
#include "import/common.h"
#include "import/rdma_link.h"

namespace fabdiag {
namespace {

std::string link_name(const RdmaLink& l) {
  std::string s = l.ibdev + "/" + std::to_string(l.port);
  return l.host.empty() ? s : l.host + " " + s;
}

std::string or_unknown(const std::string& s) { return s.empty() ? "(not printed)" : s; }

nlohmann::json str_or_null(const std::string& s) { return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s); }

nlohmann::json u64_or_null(const std::optional<uint64_t>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

}  // namespace

std::vector<Finding> rdma_link_findings(const RdmaLinkImport& imp) {
  std::vector<Finding> out;
  for (const auto& l : imp.links) {
    if (l.up() || (l.state.empty() && l.physical_state.empty())) continue;
    std::string src = line_source(imp.source, l.line);
    Finding f;
    f.severity = Severity::kWarn;
    f.layer = Layer::kPhysical;
    f.code = "rdma_link_not_active";
    f.subject = link_name(l);
    f.message = link_name(l) + (l.netdev.empty() ? "" : " (" + l.netdev + ")") + " is state " + or_unknown(l.state) +
                ", physical_state " + or_unknown(l.physical_state) + ": RDMA traffic cannot use this port";
    f.evidence.push_back(Evidence::text("state", or_unknown(l.state), src).expect("ACTIVE"));
    f.evidence.push_back(Evidence::text("physical_state", or_unknown(l.physical_state), src).expect("LINK_UP"));
    if (l.physical_state == "LINK_UP")
      f.action = "The link is up but the port is not ACTIVE: on InfiniBand check the subnet manager (sminfo; "
                 "INIT/ARMED = not yet configured by the SM)";
    else if (l.physical_state == "DISABLED")
      f.action = "The port is disabled: enable it (ip link set " + (l.netdev.empty() ? l.ibdev : l.netdev) +
                 " up, or ibportstate ... enable) and check the switch side";
    else
      f.action = "No physical link (" + or_unknown(l.physical_state) +
                 "): check the cable, the module (ethtool -m) and the switch port";
    out.push_back(std::move(f));
  }
  return out;
}

nlohmann::json rdma_link_data(const RdmaLinkImport& imp) {
  nlohmann::json links = nlohmann::json::array();
  size_t down = 0;
  for (const auto& l : imp.links) {
    down += l.up() ? 0 : 1;
    links.push_back({{"host", str_or_null(l.host)},
                     {"ibdev", l.ibdev},
                     {"port", l.port},
                     {"state", str_or_null(l.state)},
                     {"physical_state", str_or_null(l.physical_state)},
                     {"netdev", str_or_null(l.netdev)},
                     {"lid", u64_or_null(l.lid)},
                     {"sm_lid", u64_or_null(l.sm_lid)},
                     {"subnet_prefix", str_or_null(l.subnet_prefix)},
                     {"up", l.up()},
                     {"line", l.line}});
  }
  nlohmann::json out = {{"format", imp.format}, {"links", links}, {"links_total", imp.links.size()}, {"links_down", down}};
  if (imp.repeated) out["records_repeated"] = imp.repeated;
  return out;
}

}  // namespace fabdiag
