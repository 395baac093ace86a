// What every node must have (docs/accept.md#what-each-check-reads): counts of GPUs and RDMA NICs,
// NVLinks per GPU, port rate, width, link layer and MTUs, PCIe generation and width per device
// kind, GPU:NIC rails, GPUDirect RDMA. Read from the data of fabdiag.topo/1 and fabdiag.check/1.
#include <algorithm>
#include <cmath>

#include "accept/check_builders.h"
#include "accept/node_topology_checks.h"
#include "core/text.h"

namespace fabdiag::accept {

namespace {

using nlohmann::json;

CheckResult base(const std::string& host, const std::string& check, const std::string& unit) {
  return check_row("node", host, check, unit);
}

CheckResult missing(const std::string& host, const std::string& check, const std::string& unit, const std::string& why) {
  return not_checked_row(host, check, unit, why);
}

std::optional<double> num(const json& j, const char* key) { return json_number(j, key); }

const json* devices(const HostInputs& h) {
  if (!h.topo || !h.topo->data.contains("devices") || !h.topo->data["devices"].is_array()) return nullptr;
  return &h.topo->data["devices"];
}

const char* kNoTopo = "no fabdiag.topo/1 result of this host (give `fabdiag topo --format json` output)";

CheckResult device_count(const HostInputs& h, const std::string& check, int want, bool gpus) {
  const json* devs = devices(h);
  if (!devs) return missing(h.host, check, "count", kNoTopo);
  CheckResult c = base(h.host, check, "count");
  int n = 0;
  std::vector<std::string> names;
  for (const auto& d : *devs) {
    const bool match = gpus ? d.value("kind", "") == "gpu" : d.value("kind", "") == "nic" && d.value("rdma", false);
    if (!match) continue;
    ++n;
    names.push_back(d.value("name", "?") + (d.contains("ibdev") && d["ibdev"].is_string() ? " (" + d["ibdev"].get<std::string>() + ")" : ""));
  }
  c.measured = n;
  c.expected = want;
  c.evidence.push_back(Evidence::text(gpus ? "gpus" : "rdma_nics", names.empty() ? "none" : join(names), h.topo->source)
                           .expect(std::to_string(want)));
  judge(c, "==");
  return c;
}

CheckResult nvlinks(const HostInputs& h, int want) {
  const json* devs = devices(h);
  if (!devs) return missing(h.host, "nvlinks_per_gpu", "count", kNoTopo);
  const json& nv = h.topo->data.value("nvlink", json::object());
  if (nv.value("state", "unknown") != "known")
    return missing(h.host, "nvlinks_per_gpu", "count", "NVLink state unknown: " + nv.value("reason", std::string("NVML not read")));
  CheckResult c = base(h.host, "nvlinks_per_gpu", "count");
  c.expected = want;
  for (const auto& d : *devs) {
    if (d.value("kind", "") != "gpu") continue;
    auto links = d.contains("nvml") ? num(d["nvml"], "active_links") : std::nullopt;
    if (!links) {
      c.evidence.push_back(Evidence::text(d.value("name", "?") + " active_links", "unknown", h.topo->source));
      c.measured.reset();
      c.reason = "NVML did not answer for " + d.value("name", "?");
      return c;
    }
    if (!c.measured || *links < *c.measured) c.measured = *links;
    if (*links < want)
      c.evidence.push_back(Evidence::number(d.value("name", "?") + " active_links", *links, "count", h.topo->source)
                               .expect(want, ">= " + std::to_string(want)));
  }
  if (!c.measured) c.reason = "no GPU in the topology";
  judge(c, ">=");
  return c;
}

// One RDMA port as the check facts (preferred: MTUs, ibstat imports) or the topology show it.
struct Port {
  std::string name, state, rate_text, link_layer, source;
  std::optional<double> rate_gbps;
  std::optional<double> active_mtu, netdev_mtu;
};

std::vector<Port> ports_of(const HostInputs& h, std::string& from) {
  std::vector<Port> out;
  if (h.check && h.check->data.contains("facts") && h.check->data["facts"].value("rdma_ports", json()).is_array()) {
    from = h.check->source;
    for (const auto& p : h.check->data["facts"]["rdma_ports"])
      out.push_back({p.value("device", "?"), p.value("state", ""), p.value("rate", ""), p.value("link_layer", ""),
                     p.value("source", h.check->source), num(p, "rate_gbps"), num(p, "active_mtu_bytes"),
                     num(p, "netdev_mtu_bytes")});
    return out;
  }
  const json* devs = devices(h);
  if (!devs) return out;
  from = h.topo->source;
  for (const auto& d : *devs) {
    if (d.value("kind", "") != "nic" || !d.value("rdma", false) || !d.value("ports", json()).is_array()) continue;
    for (const auto& p : d["ports"]) {
      auto bits = num(p, "rate_bits_per_s");
      out.push_back({d.value("ibdev", d.value("name", "?")) + "/" + std::to_string(p.value("port", 1)), p.value("state", ""),
                     p.value("rate", ""), p.value("link_layer", ""), h.topo->source,
                     bits ? std::optional<double>(*bits / 1e9) : std::nullopt, std::nullopt, std::nullopt});
    }
  }
  return out;
}

// "400 Gb/sec (4X NDR)" -> 4.
std::optional<double> width_of(const std::string& rate) {
  size_t open = rate.find('(');
  if (open == std::string::npos) return std::nullopt;
  size_t x = rate.find_first_of("xX", open);
  if (x == std::string::npos) return std::nullopt;
  auto v = parse_u64(rate.substr(open + 1, x - open - 1));
  return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
}

// A per-port check: the worst port's value against `want` (`kind` ">=" or "=="); a port that is
// not ACTIVE fails a rate check (its rate is not delivered).
CheckResult port_check(const HostInputs& h, const std::string& check, const std::string& unit, double want,
                       const std::string& kind, std::optional<double> (*value)(const Port&)) {
  std::string from;
  std::vector<Port> ports = ports_of(h, from);
  if (from.empty()) return missing(h.host, check, unit, "no fabdiag.topo/1 or fabdiag.check/1 result of this host");
  CheckResult c = base(h.host, check, unit);
  c.expected = want;
  if (ports.empty()) {
    c.reason = "no RDMA port in " + from;
    return c;
  }
  for (const auto& p : ports) {
    auto v = value(p);
    const bool down = check == "port_rate" && p.state != "4: ACTIVE";
    if (!v) {
      c.evidence.push_back(Evidence::text(p.name + " " + check, "unknown", p.source));
      c.reason = p.name + ": " + check + " not in " + from;
      c.measured.reset();
      judge(c, kind);
      return c;
    }
    double eff = down ? 0 : *v;
    if (!c.measured || eff < *c.measured) c.measured = eff;
    const bool bad = down || (kind == "==" ? std::fabs(*v - want) > 1e-9 : *v < want);
    if (bad)
      c.evidence.push_back((down ? Evidence::text(p.name + " state", p.state, p.source).expect("4: ACTIVE")
                                 : Evidence::number(p.name + " " + check, *v, unit, p.source).expect(want, kind + " " + short_number(want))));
  }
  judge(c, kind);
  if (c.status == Outcome::kFail && c.reason.empty()) c.reason = std::to_string(c.evidence.size()) + " of " + std::to_string(ports.size()) + " ports";
  return c;
}

CheckResult link_layer(const HostInputs& h, const std::string& want) {
  std::string from;
  std::vector<Port> ports = ports_of(h, from);
  if (from.empty()) return missing(h.host, "link_layer", "", "no fabdiag.topo/1 or fabdiag.check/1 result of this host");
  CheckResult c = base(h.host, "link_layer", "ports");
  c.expected = static_cast<double>(ports.size());
  c.measured = 0;
  for (const auto& p : ports) {
    if (p.link_layer == want) *c.measured += 1;
    else c.evidence.push_back(Evidence::text(p.name + " link_layer", p.link_layer.empty() ? "unknown" : p.link_layer, p.source).expect(want));
  }
  if (ports.empty()) c.reason = "no RDMA port in " + from;
  judge(c, "==");
  return c;
}

}  // namespace

std::vector<CheckResult> node_checks(const NodeSpec& s, const HostInputs& h) {
  std::vector<CheckResult> out;
  if (s.gpus) out.push_back(device_count(h, "gpu_count", *s.gpus, true));
  if (s.nics) out.push_back(device_count(h, "nic_count", *s.nics, false));
  if (s.nvlinks_per_gpu) out.push_back(nvlinks(h, *s.nvlinks_per_gpu));
  if (s.port_rate_gbit_per_s)
    out.push_back(port_check(h, "port_rate", "Gb/s", *s.port_rate_gbit_per_s, ">=", [](const Port& p) { return p.rate_gbps; }));
  if (s.port_width)
    out.push_back(port_check(h, "port_width", "lanes", *s.port_width, ">=", [](const Port& p) { return width_of(p.rate_text); }));
  if (s.link_layer) out.push_back(link_layer(h, *s.link_layer));
  if (s.active_mtu_bytes)
    out.push_back(port_check(h, "active_mtu", "bytes", *s.active_mtu_bytes, ">=", [](const Port& p) { return p.active_mtu; }));
  if (s.netdev_mtu_bytes)
    out.push_back(port_check(h, "netdev_mtu", "bytes", *s.netdev_mtu_bytes, ">=", [](const Port& p) { return p.netdev_mtu; }));
  for (const auto& [kind, p] : s.pcie)
    for (auto& c : pcie_checks(h, kind, p)) out.push_back(std::move(c));
  if (s.gpus_per_nic) out.push_back(rails_check(h, *s.gpus_per_nic, out));
  if (s.gdr && *s.gdr) out.push_back(gdr_check(h));
  return out;
}

}  // namespace fabdiag::accept
