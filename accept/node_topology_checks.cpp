// PCIe per device kind, rails and GPUDirect RDMA checks (accept/node_topology_checks.h).
#include "accept/node_topology_checks.h"

#include <algorithm>
#include <functional>

#include "accept/check_builders.h"

namespace fabdiag::accept {

namespace {

using nlohmann::json;

// One GPU or NIC link, from the topology or the check facts.
struct Link {
  std::string label;
  std::optional<double> cur_speed, max_speed, cur_width, parent_max_speed;
};

std::vector<Link> links_of(const HostInputs& h, const std::string& kind, std::string& from) {
  std::vector<Link> out;
  if (h.topo && h.topo->data.value("devices", json()).is_array()) {
    from = h.topo->source;
    for (const auto& d : h.topo->data["devices"]) {
      if (d.value("kind", "") != kind) continue;
      const json p = d.value("pcie", json::object());
      std::string label = d.value("name", "?");
      if (d.contains("pci_bdf") && d["pci_bdf"].is_string()) label += " " + d["pci_bdf"].get<std::string>();
      out.push_back({label, json_number(p, "current_speed_gts"), json_number(p, "max_speed_gts"),
                     json_number(p, "current_width"), json_number(p, "parent_max_speed_gts")});
    }
    return out;
  }
  if (h.check && h.check->data.contains("facts") && h.check->data["facts"].value("pcie_links", json()).is_array()) {
    from = h.check->source;
    for (const auto& l : h.check->data["facts"]["pcie_links"]) {
      const std::string label = l.value("label", "");
      if (label.rfind(kind == "gpu" ? "GPU" : "NIC", 0) != 0) continue;
      out.push_back({label + " " + l.value("bdf", ""), json_number(l, "current_speed_gts"), json_number(l, "max_speed_gts"),
                     json_number(l, "current_width"), json_number(l, "parent_max_speed_gts")});
    }
  }
  return out;
}

// Worst value over `links` of `value` against `want`; evidence for each link below it.
CheckResult worst(const HostInputs& h, const std::string& check, const std::string& unit, double want,
                  const std::vector<Link>& links, const std::string& from,
                  const std::function<std::optional<double>(const Link&, std::string&)>& value) {
  CheckResult c = check_row("node", h.host, check, unit);
  c.expected = want;
  if (links.empty()) {
    c.reason = "no " + check.substr(check.find(':') + 1) + " device in " + from;
    return c;
  }
  for (const auto& l : links) {
    std::string note;
    auto v = value(l, note);
    if (!v) {
      c.measured.reset();
      c.reason = l.label + ": link attribute not read (" + from + ")";
      return c;
    }
    if (!c.measured || *v < *c.measured) c.measured = *v;
    if (*v < want) c.evidence.push_back(Evidence::number(l.label + " " + check, *v, unit, from).expect(want, ">= " + short_number(want)));
    else if (!note.empty()) c.reason += (c.reason.empty() ? "" : "; ") + note;
  }
  judge(c, ">=");
  return c;
}

}  // namespace

std::vector<CheckResult> pcie_checks(const HostInputs& h, const std::string& kind, const PcieSpec& spec) {
  std::vector<CheckResult> out;
  std::string from;
  std::vector<Link> links = links_of(h, kind, from);
  if (from.empty()) {
    const std::string why = "no fabdiag.topo/1 or fabdiag.check/1 result of this host";
    if (spec.gen) out.push_back(not_checked_row(h.host, "pcie_gen:" + kind, "GT/s", why));
    if (spec.width) out.push_back(not_checked_row(h.host, "pcie_width:" + kind, "lanes", why));
    return out;
  }
  if (spec.gen) {
    const bool gpu = kind == "gpu";
    out.push_back(worst(h, "pcie_gen:" + kind, "GT/s", pcie_gen_gts(*spec.gen).value_or(0), links, from,
                        [gpu](const Link& l, std::string& note) -> std::optional<double> {
                          if (!gpu) return l.cur_speed;
                          if (!l.max_speed) return std::nullopt;
                          double cap = std::min(*l.max_speed, l.parent_max_speed.value_or(*l.max_speed));
                          if (l.cur_speed && *l.cur_speed < cap)
                            note = l.label + " at " + short_number(*l.cur_speed) + " GT/s now (idle GPUs lower their speed; "
                                   "judged on the link's capability " + short_number(cap) + " GT/s)";
                          return cap;
                        }));
  }
  if (spec.width)
    out.push_back(worst(h, "pcie_width:" + kind, "lanes", *spec.width, links, from,
                        [](const Link& l, std::string&) { return l.cur_width; }));
  return out;
}

CheckResult rails_check(const HostInputs& h, int gpus_per_nic, const std::vector<CheckResult>& so_far) {
  for (const auto& c : so_far)
    if (c.check == "nic_count" && c.status == Outcome::kFail)
      return not_checked_row(h.host, "rails", "gpus/nic",
                             "nic_count failed: rails are judged on a node with the NICs the spec asks for");
  if (!h.topo || !h.topo->data.value("rails", json()).is_object())
    return not_checked_row(h.host, "rails", "gpus/nic", "no fabdiag.topo/1 result with data.rails of this host");
  const json& r = h.topo->data["rails"];
  const json gpus = r.value("gpus", json::array());
  if (gpus.empty()) return not_checked_row(h.host, "rails", "gpus/nic", "no GPU in the topology");
  if (!r.value("unknown_gpus", json::array()).empty())
    return not_checked_row(h.host, "rails", "gpus/nic", "GPU-NIC relations unknown for some GPUs (topology matrix cut)");
  CheckResult c = check_row("node", h.host, "rails", "gpus/nic");
  c.expected = gpus_per_nic;
  c.measured = 1;
  for (const auto& g : r.value("shared", json::array())) {
    const double n = static_cast<double>(g.value("gpus", json::array()).size());
    const double nics = std::max<double>(1, static_cast<double>(g.value("nics", json::array()).size()));
    const double per = n / nics;
    c.measured = std::max(*c.measured, per);
    if (per > gpus_per_nic)
      c.evidence.push_back(Evidence::number(join_names(g.value("gpus", json::array())) + " share " +
                                                join_names(g.value("nics", json::array())),
                                            per, "gpus/nic", h.topo->source)
                               .expect(gpus_per_nic, "<= " + std::to_string(gpus_per_nic)));
  }
  for (const auto& g : r.value("gpus_without_local_nic", json::array())) {
    c.evidence.push_back(Evidence::text(g.get<std::string>() + " closest RDMA NIC", "worse than PXB", h.topo->source).expect("PXB or better"));
    c.measured = 1e9;
  }
  judge(c, "<=");
  if (r.value("gpus_without_local_nic", json::array()).size()) c.reason = "a GPU without a local NIC (no GPUDirect RDMA by default)";
  return c;
}

CheckResult gdr_check(const HostInputs& h) {
  if (!h.check || !h.check->data.value("checks", json()).is_array())
    return not_checked_row(h.host, "gdr", "", "no fabdiag.check/1 result of this host (give `fabdiag check --format json` output)");
  for (const auto& k : h.check->data["checks"]) {
    if (k.value("name", "") != "gpudirect_rdma") continue;
    const std::string status = k.value("status", "");
    const std::string summary = k.value("summary", "");
    if (status != "pass" && status != "problems")
      return not_checked_row(h.host, "gdr", "", "gpudirect_rdma " + status + ": " + summary);
    CheckResult c = check_row("node", h.host, "gdr", "");
    c.measured = status == "pass" ? 1 : 0;
    c.expected = 1;
    c.evidence.push_back(Evidence::text("gpudirect_rdma", status + ": " + summary, h.check->source).expect("pass"));
    judge(c, "==");
    c.margin.reset();  // a yes/no: no room to spare or shortfall to measure
    c.margin_pct.reset();
    c.reason = summary;
    return c;
  }
  return not_checked_row(h.host, "gdr", "", "the check result has no gpudirect_rdma check");
}

}  // namespace fabdiag::accept
