#include "probes/topo/topology_json.h"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "probes/topo/nvlink_topology.h"

namespace fabdiag {

namespace {

template <typename T>
nlohmann::json opt(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json hex_id(const std::optional<uint32_t>& v) {
  if (!v) return nullptr;
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%04x", *v);
  return buf;
}

nlohmann::json str_or_null(const std::string& s) { return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s); }

}  // namespace

const std::vector<std::pair<std::string, std::string>>& topology_legend() {
  static const std::vector<std::pair<std::string, std::string>> legend = {
      {"X", "Self"},
      {"SYS", "Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)"},
      {"NODE", "Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node"},
      {"PHB", "Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)"},
      {"PXB", "Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)"},
      {"PIX", "Connection traversing at most a single PCIe bridge"},
      {"NV#", "Connection traversing a bonded set of # NVLinks"},
  };
  return legend;
}

nlohmann::json topology_to_json(const TopologyReport& report) {
  nlohmann::json data = nlohmann::json::object();
  nlohmann::json devices = nlohmann::json::array();
  for (const auto& d : report.devices) {
    nlohmann::json j = nlohmann::json::object();
    j["name"] = d.name;
    j["kind"] = to_string(d.kind);
    j["pci_bdf"] = str_or_null(d.pci.bdf);
    j["numa_node"] = d.pci.numa_node;
    j["cpu_affinity"] = d.pci.local_cpulist;
    j["pci_vendor_id"] = hex_id(d.pci.vendor_id);
    j["pci_device_id"] = hex_id(d.pci.device_id);
    j["driver"] = str_or_null(d.pci.driver);
    j["sysfs_path"] = str_or_null(d.pci.sysfs_path);
    if (d.kind == TopoKind::kNic) {
      j["ibdev"] = opt(d.ibdev);
      j["netdev"] = d.netdevs;
      j["rdma"] = d.rdma;
      nlohmann::json ports = nlohmann::json::array();
      for (const auto& p : d.ports)
        ports.push_back({{"port", p.port},
                         {"state", p.state},
                         {"phys_state", p.phys_state},
                         {"rate", p.rate},
                         {"rate_bits_per_s", opt(p.rate_bits_per_s)},
                         {"link_layer", p.link_layer}});
      j["ports"] = std::move(ports);
    } else {
      j["gpu_numa_id"] = opt(d.gpu_numa_id);
      if (d.nvml) {
        nlohmann::json links = nlohmann::json::array();
        for (const auto& l : d.nvml->nvlinks)
          links.push_back({{"link", l.link},
                           {"active", l.active},
                           {"remote", to_string(l.remote)},
                           {"remote_pci_bdf", str_or_null(l.remote_pci_bdf)}});
        j["nvml"] = {{"index", d.nvml->nvml_index},
                     {"name", d.nvml->name},
                     {"uuid", d.nvml->uuid},
                     {"active_links", active_nvlinks(*d.nvml)},
                     {"nvlinks", std::move(links)}};
      } else {
        j["nvml"] = nullptr;
      }
    }
    j["pcie"] = {{"current_speed_gts", opt(d.pci.link.current_speed_gts)},
                 {"max_speed_gts", opt(d.pci.link.max_speed_gts)},
                 {"current_width", opt(d.pci.link.current_width)},
                 {"max_width", opt(d.pci.link.max_width)},
                 {"parent_bdf", str_or_null(d.parent_bdf)},
                 {"parent_max_speed_gts", opt(d.parent_max_speed_gts)},
                 {"parent_max_width", opt(d.parent_max_width)}};
    devices.push_back(std::move(j));
  }
  data["devices"] = std::move(devices);

  nlohmann::json matrix = nlohmann::json::array();
  for (const auto& row : report.matrix) {
    nlohmann::json r = nlohmann::json::array();
    for (const auto& cell : row) r.push_back(cell.missing ? nlohmann::json(nullptr) : nlohmann::json(relation_code(cell)));
    matrix.push_back(std::move(r));
  }
  data["matrix"] = std::move(matrix);

  nlohmann::json legend = nlohmann::json::object();
  for (const auto& [code, meaning] : topology_legend()) legend[code] = meaning;
  data["legend"] = std::move(legend);

  nlohmann::json nic_legend = nlohmann::json::object();
  for (const auto& d : report.devices)
    if (d.kind == TopoKind::kNic && d.ibdev) nic_legend[d.name] = *d.ibdev;
  data["nic_legend"] = std::move(nic_legend);

  data["nvlink"] = {{"state", report.nvlink.known ? "known" : "unknown"},
                    {"reason", report.nvlink.reason},
                    {"source", report.nvlink.source}};

  nlohmann::json uplinks = nlohmann::json::array();
  for (const auto& u : report.uplinks) {
    const auto& l = u.upstream_port.link;
    uplinks.push_back({{"pci_bdf", u.upstream_port.bdf},
                       {"parent_bdf", u.parent_bdf},
                       {"current_speed_gts", opt(l.current_speed_gts)},
                       {"max_speed_gts", opt(l.max_speed_gts)},
                       {"current_width", opt(l.current_width)},
                       {"max_width", opt(l.max_width)},
                       {"parent_max_speed_gts", opt(u.parent_max_speed_gts)},
                       {"parent_max_width", opt(u.parent_max_width)}});
  }
  data["pcie_uplinks"] = std::move(uplinks);
  return data;
}

Envelope topo_envelope(const TopologyReport& report, const Rails& rails,
                       const std::vector<Finding>& more_findings) {
  Envelope env = make_envelope(kTopoSchema);
  env.data = topology_to_json(report);
  env.data["rails"] = rails_to_json(rails);
  env.findings = report.findings;
  env.findings.insert(env.findings.end(), more_findings.begin(), more_findings.end());
  env.errors = report.gaps;
  return env;
}

}  // namespace fabdiag
