#include "probes/topo/topology_drift.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

namespace fabdiag {

namespace {

using nlohmann::json;

constexpr double kSpeedEpsilonGts = 0.01;

// One device of a topo `data` member.
struct Dev {
  std::string key;    // pci_bdf, or "name:<name>" without one
  std::string name;   // GPU3
  std::string kind;   // gpu | nic
  std::string label;  // "GPU3 (0000:2e:00.0)"
  size_t index = 0;   // matrix index
  const json* j = nullptr;
};

std::optional<double> num(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return std::nullopt;
  return j[key].get<double>();
}

std::string str(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_string()) return "";
  return j[key].get<std::string>();
}

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

Result<std::vector<Dev>> devices_of(const json& data, const char* side, const std::string& source) {
  if (!data.is_object() || !data.contains("devices") || !data["devices"].is_array())
    return make_error(ErrorCode::kParse, std::string("the ") + side + " has no data.devices array (not a fabdiag.topo/1 result?)",
                      source);
  std::vector<Dev> out;
  size_t i = 0;
  for (const auto& d : data["devices"]) {
    Dev v;
    v.name = str(d, "name");
    v.kind = str(d, "kind");
    std::string bdf = str(d, "pci_bdf");
    v.key = bdf.empty() ? "name:" + v.name : bdf;
    v.label = v.name + (bdf.empty() ? "" : " (" + bdf + ")");
    std::string ib = str(d, "ibdev");
    if (!ib.empty()) v.label = v.name + " (" + ib + (bdf.empty() ? "" : ", " + bdf) + ")";
    v.index = i++;
    v.j = &d;
    out.push_back(std::move(v));
  }
  return out;
}

// Matrix cell text, "" when absent or null.
std::string cell(const json& data, size_t a, size_t b) {
  if (!data.contains("matrix") || !data["matrix"].is_array() || a >= data["matrix"].size()) return "";
  const auto& row = data["matrix"][a];
  if (!row.is_array() || b >= row.size() || !row[b].is_string()) return "";
  return row[b].get<std::string>();
}

// Rank of a PCIe relation (X closest); nullopt for NV#, N/A and unknown text.
std::optional<int> pcie_rank(const std::string& c) {
  static const std::map<std::string, int> kRank = {{"X", 0}, {"PIX", 1}, {"PXB", 2}, {"PHB", 3}, {"NODE", 4}, {"SYS", 5}};
  auto it = kRank.find(c);
  if (it == kRank.end()) return std::nullopt;
  return it->second;
}

int nv_links(const std::string& c) { return c.rfind("NV", 0) == 0 && c.size() > 2 ? std::atoi(c.c_str() + 2) : 0; }

Evidence ev(const std::string& metric, double value, const std::string& unit, double baseline, const std::string& source) {
  Evidence e;
  e.metric = metric;
  e.value = value;
  e.unit = unit;
  e.threshold = baseline;
  e.threshold_text = "baseline";
  e.source = source;
  return e;
}

Evidence ev_text(const std::string& metric, const std::string& value, const std::string& baseline, const std::string& source) {
  Evidence e;
  e.metric = metric;
  e.value_text = value;
  e.threshold_text = "baseline: " + baseline;
  e.source = source;
  return e;
}

Finding finding(Severity s, const std::string& code, const std::string& subject, const std::string& message,
                const std::string& action) {
  Finding f;
  f.severity = s;
  f.layer = Layer::kPhysical;
  f.code = code;
  f.subject = subject;
  f.message = message;
  f.action = action;
  return f;
}

// A GPU pair joined by fewer NVLinks than in the baseline (no per-GPU link counts to blame one).
struct LostPair {
  const Dev* a;
  const Dev* b;
  std::string was, is;
};

// One finding per GPU that lost links to several peers (the GPU with the most lost pairs first:
// a GPU with links down drags every pair it is in), one per remaining pair.
void report_lost_pairs(std::vector<LostPair> pairs, std::vector<Finding>& out) {
  const std::string action =
      "Look for NVLink errors and Xid 74 in dmesg and run the NVLink diagnostics (dcgmi diag, nvidia-smi nvlink -s)";
  auto cell_text = [](const std::string& c) { return nv_links(c) ? c : c + " (no NVLink)"; };
  while (!pairs.empty()) {
    std::map<const Dev*, int> count;
    for (const auto& p : pairs) {
      ++count[p.a];
      ++count[p.b];
    }
    auto best = std::max_element(count.begin(), count.end(), [](const auto& x, const auto& y) {
      return x.second < y.second || (x.second == y.second && x.first->index > y.first->index);
    });
    if (best->second < 2) break;
    const Dev* gpu = best->first;
    Finding f = finding(Severity::kError, "nvlink_links_lost", gpu->key.rfind("name:", 0) == 0 ? gpu->name : gpu->key, "",
                        action);
    std::vector<LostPair> rest;
    std::vector<std::string> peers;
    for (const auto& p : pairs) {
      if (p.a != gpu && p.b != gpu) {
        rest.push_back(p);
        continue;
      }
      const Dev* peer = p.a == gpu ? p.b : p.a;
      peers.push_back(peer->name);
      f.evidence.push_back(ev_text(gpu->name + "-" + peer->name + " matrix cell", cell_text(p.is), p.was, "fabdiag topo matrix"));
    }
    std::string list;
    for (const auto& n : peers) list += (list.empty() ? "" : ", ") + n;
    f.message = gpu->label + " has fewer NVLinks than in the baseline to " + std::to_string(peers.size()) +
                " GPUs (" + list + ")";
    out.push_back(std::move(f));
    pairs = std::move(rest);
  }
  for (const auto& p : pairs) {
    Finding f = finding(Severity::kError, "nvlink_links_lost", p.a->name + "<->" + p.b->name,
                        p.a->label + " and " + p.b->label + " are joined by " + cell_text(p.is) + ", it was " + p.was +
                            " in the baseline",
                        action);
    f.evidence.push_back(ev_text("matrix cell", cell_text(p.is), p.was, "fabdiag topo matrix"));
    out.push_back(std::move(f));
  }
}

bool has_bdf(const Dev& d) { return d.key.rfind("name:", 0) != 0; }

// The subject of a device's findings: its pci_bdf, else its name.
const std::string& subject_of(const Dev& d) { return has_bdf(d) ? d.key : d.name; }

const json& member(const json& j, const char* key) {
  static const json kNull;
  return j.contains(key) ? j[key] : kNull;
}

// Devices of the current side paired with those of the baseline.
struct Pairing {
  std::map<const Dev*, const Dev*> base_of;  // current device -> baseline device
  std::set<const Dev*> matched_base;
};

// Pairs devices by BDF when both sides have one, else by name (an imported nvidia-smi matrix
// has no BDFs).
Pairing pair_devices(const std::vector<Dev>& base, const std::vector<Dev>& now) {
  std::map<std::string, const Dev*> now_by_bdf, now_by_name;
  for (const auto& d : now) {
    if (has_bdf(d)) now_by_bdf[d.key] = &d;
    now_by_name[d.name] = &d;
  }
  Pairing pr;
  for (const auto& b : base) {
    bool bdf = has_bdf(b);
    auto it = bdf ? now_by_bdf.find(b.key) : now_by_name.find(b.name);
    if (it == (bdf ? now_by_bdf.end() : now_by_name.end()) || pr.base_of.count(it->second)) continue;
    pr.base_of[it->second] = &b;
    pr.matched_base.insert(&b);
  }
  return pr;
}

void report_missing_and_added(const std::vector<Dev>& base, const std::vector<Dev>& now, const Pairing& pr,
                              TopologyDrift& out) {
  if (!base.empty() && std::none_of(base.begin(), base.end(), has_bdf))
    out.not_checked.push_back("device identity: the baseline has no PCI bus ids, devices were paired by name (GPU0, NIC0)");
  for (const auto& b : base)
    if (!pr.matched_base.count(&b))
      out.findings.push_back(finding(Severity::kError, "topo_device_missing", subject_of(b),
                                     b.label + " (" + b.kind + ") is in the baseline but not on the node now",
                                     "Check lspci and dmesg for the device (fell off the bus, Xid 79, link down, "
                                     "disabled in the BIOS) and reseat it or its riser"));
  for (const auto& n : now)
    if (!pr.base_of.count(&n))
      out.findings.push_back(finding(Severity::kInfo, "topo_device_added", subject_of(n),
                                     n.label + " (" + n.kind + ") is on the node but not in the baseline",
                                     "If the hardware was changed on purpose, save a new baseline"));
}

// Whether both sides know the NVLink state (else why not, in out.not_checked).
bool nvlink_comparable(const json& baseline, const json& current, TopologyDrift& out) {
  std::string base_nv = baseline.contains("nvlink") ? str(baseline["nvlink"], "state") : "";
  std::string now_nv = current.contains("nvlink") ? str(current["nvlink"], "state") : "";
  if (base_nv == "known" && now_nv != "known")
    out.not_checked.push_back("NVLink: unknown now (" +
                              (current.contains("nvlink") ? str(current["nvlink"], "reason") : std::string("no nvlink member")) +
                              ")");
  else if (base_nv != "known")
    out.not_checked.push_back("NVLink: the baseline does not know it");
  return base_nv == "known" && now_nv == "known";
}

// One device present on both sides: `b` in the baseline, `n` now.
struct DevicePair {
  const Dev& b;
  const Dev& n;
  const std::string& subject;
};

void compare_numa(const DevicePair& d, TopologyDrift& out) {
  auto bn = num(*d.b.j, "numa_node"), nn = num(*d.n.j, "numa_node");
  if (!(bn && nn && *bn >= 0 && *nn >= 0 && *bn != *nn)) return;
  Finding f = finding(Severity::kWarn, "topo_numa_node_changed", d.subject,
                      d.n.label + " moved from NUMA node " + fmt(*bn) + " to " + fmt(*nn) +
                          ": it sits on another socket or the BIOS NUMA setting (NPS/SNC) changed",
                      "Check whether the card was moved to another slot or the BIOS NUMA setting changed; "
                      "CPU and GPU affinity and rails change with it");
  f.evidence.push_back(ev("numa_node", *nn, "", *bn, "/sys/bus/pci/devices/" + d.n.key + "/numa_node"));
  out.findings.push_back(std::move(f));
}

void compare_pcie(const DevicePair& d, TopologyDrift& out) {
  const json& bp = member(*d.b.j, "pcie");
  const json& np = member(*d.n.j, "pcie");
  const std::string sysfs = "/sys/bus/pci/devices/" + d.n.key;
  auto bw = num(bp, "current_width"), nw = num(np, "current_width");
  if (bw && nw && *nw < *bw) {
    Finding f = finding(Severity::kError, "pcie_width_below_baseline", d.subject,
                        d.n.label + " PCIe link is x" + fmt(*nw) + ", it was x" + fmt(*bw) + " in the baseline",
                        "Reseat the card and its riser or cable and look in dmesg for AER or 'limited by' lines "
                        "naming " + d.subject);
    f.evidence.push_back(ev("current_link_width", *nw, "lanes", *bw, sysfs + "/current_link_width"));
    out.findings.push_back(std::move(f));
  }
  auto bs = num(bp, "current_speed_gts"), ns = num(np, "current_speed_gts");
  if (bs && ns && *ns + kSpeedEpsilonGts < *bs) {
    bool gpu = d.n.kind == "gpu";
    Finding f = finding(gpu ? Severity::kInfo : Severity::kWarn, "pcie_speed_below_baseline", d.subject,
                        d.n.label + " PCIe link runs at " + fmt(*ns) + " GT/s, it was " + fmt(*bs) + " GT/s in the baseline" +
                            (gpu ? " (GPUs lower the link speed when idle)" : ""),
                        gpu ? "Re-check while the GPU is busy; only a low speed under load is a fault"
                            : "Check the BIOS PCIe generation setting and reseat the card");
    f.evidence.push_back(ev("current_link_speed", *ns, "GT/s", *bs, sysfs + "/current_link_speed"));
    out.findings.push_back(std::move(f));
  }
}

// One RDMA port of the baseline (`p`) against the same port now (`q`, null when gone).
void compare_port(const DevicePair& d, const json& p, const json* q, TopologyDrift& out) {
  const json& nj = *d.n.j;
  int port = static_cast<int>(num(p, "port").value_or(0));
  std::string port_subject = (str(nj, "ibdev").empty() ? d.subject : str(nj, "ibdev")) + "/" + std::to_string(port);
  std::string port_src = "/sys/class/infiniband/" + str(nj, "ibdev") + "/ports/" + std::to_string(port);
  if (!q) {
    out.findings.push_back(finding(Severity::kError, "port_state_changed", port_subject,
                                   "port " + port_subject + " of " + d.n.label + " is in the baseline but not now",
                                   "Check that the RDMA driver (mlx5_ib) is loaded and the port is enabled"));
    return;
  }
  std::string bstate = str(p, "state"), nstate = str(*q, "state");
  if (bstate.find("ACTIVE") != std::string::npos && nstate.find("ACTIVE") == std::string::npos) {
    Finding f = finding(Severity::kError, "port_state_changed", port_subject,
                        "port " + port_subject + " is '" + nstate + "' (phys_state '" + str(*q, "phys_state") +
                            "'), it was '" + bstate + "' in the baseline",
                        "Check the cable and the switch port (phys_state Polling = no peer or bad cable; "
                        "INIT/ARMED on InfiniBand = no subnet manager)");
    f.evidence.push_back(ev_text("state", nstate, bstate, port_src + "/state"));
    out.findings.push_back(std::move(f));
  }
  auto br = num(p, "rate_bits_per_s"), nr = num(*q, "rate_bits_per_s");
  if (br && nr && *nr < *br) {
    Finding f = finding(Severity::kError, "port_rate_below_baseline", port_subject,
                        "port " + port_subject + " runs at '" + str(*q, "rate") + "', it was '" + str(p, "rate") +
                            "' in the baseline",
                        "A lower rate means lanes or generation lost: reseat or replace the cable or "
                        "transceiver, check the switch port and the FEC/auto-negotiation settings");
    f.evidence.push_back(ev("rate", *nr / 1e9, "Gb/s", *br / 1e9, port_src + "/rate"));
    out.findings.push_back(std::move(f));
  }
}

// A NIC's RDMA ports. `ports_noted`: the "baseline has no ports" gap is said once.
void compare_ports(const DevicePair& d, bool& ports_noted, TopologyDrift& out) {
  const json& bj = *d.b.j;
  const json& nj = *d.n.j;
  if (!bj.contains("ports") || !bj["ports"].is_array()) {
    if (!ports_noted) out.not_checked.push_back("port state and rate: the baseline has no ports (saved by an older fabdiag or imported)");
    ports_noted = true;
    return;
  }
  if (!nj.contains("ports") || !nj["ports"].is_array()) return;
  std::map<int, const json*> now_ports;
  for (const auto& p : nj["ports"]) now_ports[static_cast<int>(num(p, "port").value_or(0))] = &p;
  for (const auto& p : bj["ports"]) {
    auto it = now_ports.find(static_cast<int>(num(p, "port").value_or(0)));
    compare_port(d, p, it == now_ports.end() ? nullptr : it->second, out);
  }
}

// A GPU's active NVLinks (NVML); true when it lost some (then its matrix pairs are not blamed again).
bool compare_active_nvlinks(const DevicePair& d, TopologyDrift& out) {
  auto ba = num(member(*d.b.j, "nvml"), "active_links"), na = num(member(*d.n.j, "nvml"), "active_links");
  if (!(ba && na && *na < *ba)) return false;
  Finding f = finding(Severity::kError, "nvlink_links_lost", d.subject,
                      d.n.label + " has " + fmt(*na) + " active NVLinks, it had " + fmt(*ba) + " in the baseline",
                      "Look for NVLink errors and Xid 74 in dmesg, run the NVLink diagnostics (dcgmi diag, "
                      "nvidia-smi nvlink -s -i <gpu>) and have the GPU baseboard serviced if links stay down");
  f.evidence.push_back(ev("active NVLinks", *na, "links", *ba, "NVML nvmlDeviceGetNvLinkState"));
  out.findings.push_back(std::move(f));
  return true;
}

// Every device on both sides: NUMA node, PCIe link, ports (NICs), active NVLinks (GPUs). Returns
// the keys of GPUs whose lost NVLinks were reported.
std::set<std::string> compare_devices(const std::vector<Dev>& now, const Pairing& pr, bool compare_nvlink,
                                      TopologyDrift& out) {
  bool ports_noted = false;
  std::set<std::string> nvlink_reported;
  for (const auto& n : now) {
    auto it = pr.base_of.find(&n);
    if (it == pr.base_of.end()) continue;
    ++out.devices_compared;
    const DevicePair d{*it->second, n, subject_of(n)};
    compare_numa(d, out);
    compare_pcie(d, out);
    if (n.kind == "nic") compare_ports(d, ports_noted, out);
    if (compare_nvlink && n.kind == "gpu" && compare_active_nvlinks(d, out)) nvlink_reported.insert(n.key);
  }
  return nvlink_reported;
}

// Matrix cells between devices present on both sides: GPU pairs with fewer NVLinks (not already
// reported per GPU) and GPU-NIC PCIe relations, one finding per NIC.
void compare_matrix(const json& baseline, const json& current, const std::vector<Dev>& now, const Pairing& pr,
                    bool compare_nvlink, const std::set<std::string>& nvlink_reported, TopologyDrift& out) {
  std::map<std::string, Finding> relation_changes;  // per NIC key
  std::vector<LostPair> lost_pairs;                  // GPU pairs with fewer NVLinks
  for (size_t x = 0; x < now.size(); ++x) {
    for (size_t y = x + 1; y < now.size(); ++y) {
      const Dev& a = now[x];
      const Dev& c = now[y];
      auto ba = pr.base_of.find(&a), bc = pr.base_of.find(&c);
      if (ba == pr.base_of.end() || bc == pr.base_of.end()) continue;
      std::string was = cell(baseline, ba->second->index, bc->second->index);
      std::string is = cell(current, a.index, c.index);
      if (was.empty() || is.empty() || was == is) continue;
      if (compare_nvlink && a.kind == "gpu" && c.kind == "gpu") {
        if (nv_links(was) > nv_links(is) && !nvlink_reported.count(a.key) && !nvlink_reported.count(c.key))
          lost_pairs.push_back({&a, &c, was, is});
        continue;
      }
      if (a.kind == c.kind) continue;  // GPU-NIC pairs only
      auto wr = pcie_rank(was), ir = pcie_rank(is);
      if (!wr || !ir) continue;
      const Dev& nic = a.kind == "nic" ? a : c;
      const Dev& gpu = a.kind == "nic" ? c : a;
      auto it = relation_changes.find(nic.key);
      if (it == relation_changes.end()) {
        it = relation_changes
                 .emplace(nic.key, finding(Severity::kInfo, "topo_relation_changed", subject_of(nic), "",
                                           "Check whether the NIC or GPUs moved to other slots; GPUDirect RDMA needs "
                                           "PXB or better, and the rails (NCCL_IB_HCA) follow the placement"))
                 .first;
      }
      if (*ir > *wr) it->second.severity = Severity::kWarn;
      it->second.evidence.push_back(ev_text(gpu.name + "-" + nic.name + " relation", is, was, "fabdiag topo matrix"));
    }
  }
  report_lost_pairs(lost_pairs, out.findings);
  for (auto& n : now) {
    auto it = relation_changes.find(n.key);
    if (it == relation_changes.end()) continue;
    Finding& f = it->second;
    f.message = n.label + "'s PCIe relation to " + std::to_string(f.evidence.size()) + " GPU(s) " +
                (f.severity == Severity::kWarn ? "got worse" : "changed") + " since the baseline";
    out.findings.push_back(std::move(f));
  }
}

}  // namespace

Result<TopologyDrift> diff_topology(const json& baseline, const json& current, const std::string& baseline_source) {
  try {
    TopologyDrift out;
    auto base = devices_of(baseline, "baseline", baseline_source);
    if (!base) return base.error();
    auto now = devices_of(current, "current result", "fabdiag topo");
    if (!now) return now.error();
    Pairing pr = pair_devices(*base, *now);
    report_missing_and_added(*base, *now, pr, out);
    bool compare_nvlink = nvlink_comparable(baseline, current, out);
    auto nvlink_reported = compare_devices(*now, pr, compare_nvlink, out);
    compare_matrix(baseline, current, *now, pr, compare_nvlink, nvlink_reported, out);
    return out;
  } catch (const json::exception& e) {
    return make_error(ErrorCode::kParse, std::string("not a fabdiag.topo/1 result: ") + e.what(), baseline_source);
  }
}

json drift_to_json(const TopologyDrift& drift, const std::string& baseline_source) {
  return {{"baseline", baseline_source},
          {"devices_compared", drift.devices_compared},
          {"changes", drift.findings.size()},
          {"not_checked", drift.not_checked}};
}

}  // namespace fabdiag
