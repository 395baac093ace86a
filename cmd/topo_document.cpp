#include "cmd/topo_document.h"

#include <cstdio>
#include <map>

#include "core/text.h"
#include "probes/topo/nvlink_topology.h"
#include "probes/topo/topology_json.h"

namespace fabdiag::cmd {

namespace {

std::string gts(const std::optional<double>& v) {
  if (!v) return "?";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g GT/s", *v);
  return buf;
}

std::string lanes(const std::optional<int>& v) { return v ? "x" + std::to_string(*v) : "?"; }

std::string label(const TopologyReport& r, const std::string& name) {
  for (const auto& d : r.devices)
    if (d.name == name) return d.name + (d.ibdev ? " (" + *d.ibdev + ")" : "");
  return name;
}

std::string nic_legend_line(const TopoDevice& d) {
  std::string netdevs = join(d.netdevs);
  if (d.ibdev) return "  " + d.name + ": " + *d.ibdev + (netdevs.empty() ? "" : " (" + netdevs + ")");
  if (!netdevs.empty()) return "  " + d.name + ": " + netdevs + " (no RDMA device)";
  if (!d.pci.bdf.empty()) return "  " + d.name + ": " + d.pci.bdf + " (no RDMA device, no netdev)";
  return "  " + d.name + ": (RDMA device name not in the input)";
}

bool row_missing(const TopologyReport& r, size_t i) {
  for (const auto& c : r.matrix[i])
    if (!c.missing) return false;
  return true;
}

Table matrix_table(const TopologyReport& r) {
  Table t;
  t.columns.push_back("");
  for (const auto& d : r.devices) t.columns.push_back(d.name);
  t.columns.push_back("CPU Affinity");
  t.columns.push_back("NUMA Affinity");
  t.columns.push_back("GPU NUMA ID");
  std::vector<std::string> missing;
  for (size_t i = 0; i < r.devices.size(); ++i) {
    const auto& d = r.devices[i];
    if (row_missing(r, i)) {
      missing.push_back(d.name);
      continue;
    }
    std::vector<std::string> row{d.name};
    for (const auto& cell : r.matrix[i]) row.push_back(relation_code(cell));
    row.push_back(d.pci.local_cpulist.empty() ? "N/A" : d.pci.local_cpulist);
    row.push_back(d.pci.numa_node < 0 ? "N/A" : std::to_string(d.pci.numa_node));
    row.push_back(d.kind == TopoKind::kNic ? "" : d.gpu_numa_id ? std::to_string(*d.gpu_numa_id) : "N/A");
    t.rows.push_back(std::move(row));
  }
  if (!missing.empty()) {
    t.notes.push_back("");
    t.notes.push_back("Not in the input (rows left out, not derived): " + join(missing));
  }
  t.notes.push_back("");
  t.notes.push_back("Legend:");
  for (const auto& [code, meaning] : topology_legend()) {
    std::string c = code;
    c.resize(4, ' ');
    t.notes.push_back("  " + c + " = " + meaning);
  }
  bool any_nic = false;
  for (const auto& d : r.devices) any_nic |= d.kind == TopoKind::kNic;
  if (any_nic) {
    t.notes.push_back("");
    t.notes.push_back("NIC Legend:");
    for (const auto& d : r.devices)
      if (d.kind == TopoKind::kNic) t.notes.push_back(nic_legend_line(d));
  }
  return t;
}

// "18 to NVSwitch", "4 to GPU1, 4 to GPU2", "2 down".
std::string far_ends(const TopologyReport& r, const GpuInfo& g) {
  std::map<std::string, std::string> gpu_name;
  for (const auto& d : r.devices)
    if (d.kind == TopoKind::kGpu) gpu_name[d.pci.bdf] = d.name;
  int to_switch = 0, down = 0, other = 0;
  std::map<std::string, int> to_gpu;
  for (const auto& l : g.nvlinks) {
    if (!l.active) ++down;
    else if (l.remote == NvlinkRemote::kSwitch) ++to_switch;
    else if (l.remote == NvlinkRemote::kGpu) {
      auto it = gpu_name.find(l.remote_pci_bdf);
      ++to_gpu[it != gpu_name.end() ? it->second : l.remote_pci_bdf];
    } else ++other;
  }
  std::vector<std::string> parts;
  if (to_switch) parts.push_back(std::to_string(to_switch) + " to NVSwitch");
  for (const auto& [peer, n] : to_gpu) parts.push_back(std::to_string(n) + " to " + peer);
  if (other) parts.push_back(std::to_string(other) + " to another device");
  if (down) parts.push_back(std::to_string(down) + " down");
  return parts.empty() ? "no NVLink" : join(parts);
}

Table nvlink_table(const TopologyReport& r) {
  Table t;
  t.columns = {"GPU", "PCI BDF", "Name", "UUID", "Active", "Links"};
  t.align = {Align::kLeft, Align::kLeft, Align::kLeft, Align::kLeft, Align::kRight, Align::kLeft};
  for (const auto& d : r.devices) {
    if (d.kind != TopoKind::kGpu) continue;
    if (!d.nvml) {
      t.rows.push_back({d.name, d.pci.bdf, "-", "-", "-", "not listed by NVML"});
      continue;
    }
    t.rows.push_back({d.name, d.pci.bdf, d.nvml->name, d.nvml->uuid, std::to_string(active_nvlinks(*d.nvml)),
                      far_ends(r, *d.nvml)});
  }
  return t;
}

Section rails_section(const TopologyReport& r, const Rails& rails) {
  Section s;
  s.title = "Rails";
  if (rails.rdma_nics.empty()) {
    s.lines.push_back("No RDMA NIC: rails do not apply (NCCL would use sockets).");
    return s;
  }
  Table t;
  t.columns = {"GPU", "Closest RDMA NIC(s)", "Relation", "Shares them with"};
  for (const auto& g : rails.gpus) {
    if (!g.known) {
      t.rows.push_back({g.gpu, "unknown (no GPU-NIC cell in the input)", "-", "-"});
      continue;
    }
    std::vector<std::string> nics;
    for (const auto& n : g.closest_nics) nics.push_back(label(r, n));
    t.rows.push_back({g.gpu, join(nics), to_string(g.relation), g.shares_with.empty() ? "-" : join(g.shares_with)});
  }
  t.notes.push_back("Closest = best PCIe relation; GPUDirect RDMA needs PXB or better (NCCL_NET_GDR_LEVEL default).");
  std::vector<std::string> far;
  for (const auto& n : rails.far_nics) far.push_back(label(r, n));
  t.notes.push_back("RDMA NICs close to no GPU: " + (far.empty() ? std::string("none") : join(far)));
  s.tables.push_back(std::move(t));
  return s;
}

// "ok", or what the findings about `bdf` say, or "unknown" when a value could not be read.
std::string link_status(const TopologyReport& r, const std::string& bdf, const PcieLink& l) {
  std::string s;
  for (const auto& f : r.findings) {
    if (f.subject != bdf) continue;
    std::string what = f.code == "pcie_width_downgraded"    ? "WIDTH DOWNGRADED"
                       : f.code == "pcie_speed_downgraded"  ? "SPEED DOWNGRADED"
                       : f.code == "pcie_speed_low_at_idle" ? "low speed (idle?)"
                                                            : f.code;
    s += (s.empty() ? "" : ", ") + what;
  }
  if (!s.empty()) return s;
  if (!l.current_speed_gts && !l.max_speed_gts && !l.current_width && !l.max_width)
    return "n/a (no PCIe link attributes)";
  if (!l.current_speed_gts || !l.max_speed_gts || !l.current_width || !l.max_width) return "unknown";
  return "ok";
}

Table pcie_table(const TopologyReport& r) {
  Table t;
  t.columns = {"Device", "PCI BDF", "Speed now", "Speed max", "Width now", "Width max", "Upstream port", "Port max", "Status"};
  t.align = {Align::kLeft, Align::kLeft, Align::kRight, Align::kRight, Align::kRight, Align::kRight,
             Align::kLeft, Align::kRight, Align::kLeft};
  auto port_max = [](const std::optional<double>& s, const std::optional<int>& w, const std::string& bdf) {
    return bdf.empty() ? std::string("-") : gts(s) + " " + lanes(w);
  };
  for (const auto& d : r.devices) {
    const auto& l = d.pci.link;
    t.rows.push_back({d.name, d.pci.bdf, gts(l.current_speed_gts), gts(l.max_speed_gts), lanes(l.current_width),
                      lanes(l.max_width), d.parent_bdf.empty() ? "-" : d.parent_bdf,
                      port_max(d.parent_max_speed_gts, d.parent_max_width, d.parent_bdf),
                      link_status(r, d.pci.bdf, l)});
  }
  for (const auto& u : r.uplinks) {
    const auto& l = u.upstream_port.link;
    t.rows.push_back({"switch uplink", u.upstream_port.bdf, gts(l.current_speed_gts), gts(l.max_speed_gts),
                      lanes(l.current_width), lanes(l.max_width), u.parent_bdf,
                      port_max(u.parent_max_speed_gts, u.parent_max_width, u.parent_bdf),
                      link_status(r, u.upstream_port.bdf, l)});
  }
  t.notes.push_back("Speeds are per lane. A link is judged against the lower max of its two ends (device, upstream port).");
  return t;
}

}  // namespace

Document topo_document(const TopologyReport& r, const Rails& rails, const TopoView& view) {
  Document doc;
  doc.title = view.title;
  Section topo;
  topo.title = "Topology";
  size_t gpus = 0;
  for (const auto& d : r.devices) gpus += d.kind == TopoKind::kGpu;
  topo.fields.push_back({"GPUs", std::to_string(gpus)});
  topo.fields.push_back({"NICs", std::to_string(r.devices.size() - gpus)});
  topo.fields.push_back({"NVLink", r.nvlink.known ? "known (" + r.nvlink.source + ")" : "unknown (" + r.nvlink.reason + ")"});
  if (r.devices.empty()) {
    topo.lines.push_back(view.empty_note);
    doc.sections.push_back(std::move(topo));
    return doc;
  }
  topo.tables.push_back(matrix_table(r));
  doc.sections.push_back(std::move(topo));

  bool any_nvml = false;
  for (const auto& d : r.devices) any_nvml |= d.nvml.has_value();
  if (any_nvml) {
    Section nv;
    nv.title = "NVLink";
    nv.tables.push_back(nvlink_table(r));
    doc.sections.push_back(std::move(nv));
  }
  if (gpus > 0) doc.sections.push_back(rails_section(r, rails));
  if (view.pcie_links) {
    Section pcie;
    pcie.title = "PCIe links";
    pcie.tables.push_back(pcie_table(r));
    doc.sections.push_back(std::move(pcie));
  }
  if (view.drift) {
    Section d;
    d.title = "Drift";
    d.fields.push_back({"Baseline", view.drift_baseline});
    d.fields.push_back({"Devices compared", std::to_string(view.drift->devices_compared)});
    d.fields.push_back({"Changes", view.drift->findings.empty() ? "none" : std::to_string(view.drift->findings.size()) + " (see FINDINGS)"});
    for (const auto& n : view.drift->not_checked) d.lines.push_back("Not compared: " + n);
    doc.sections.push_back(std::move(d));
  }
  return doc;
}

}  // namespace fabdiag::cmd
