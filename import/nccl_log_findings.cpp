// Findings and JSON data of an NCCL log import (import/nccl_log.h); what each means:
// docs/domain.md#nccl-log-findings.
#include <algorithm>
#include <set>

#include "core/text.h"
#include "import/common.h"
#include "import/nccl_log.h"

namespace fabdiag {
namespace {

constexpr size_t kHostsNamed = 8;     // hosts named in a message before "..."
constexpr size_t kEvidenceLines = 5;  // WARN lines quoted as evidence per finding

std::string host_name(const std::string& h) { return h.empty() ? "(host not in the log)" : h; }

size_t named_hosts(const NcclLogImport& imp) {
  size_t n = 0;
  for (const auto& h : imp.hosts) n += h.host.empty() ? 0 : 1;
  return n;
}

// "on 1 of 64 hosts (node05): one node" / "on 3 of 5 hosts (...): systemic ..."
// (docs/domain.md#nccl-log-findings: half of the hosts or more, and at least 2, is systemic).
// Lines that name no host are no host of their own: they are left out of K and N and said apart.
std::string spread(const std::vector<std::string>& all_hosts, size_t total) {
  std::vector<std::string> hosts;
  for (const auto& h : all_hosts)
    if (h != host_name("")) hosts.push_back(h);
  if (hosts.empty()) return "(the lines name no host)";
  std::string hostless = hosts.size() < all_hosts.size() ? " (and in lines that name no host)" : "";
  std::string list = join_first(hosts, kHostsNamed, ", ", "...");
  size_t k = hosts.size();
  total = std::max(total, k);
  if (total <= 1) return "on " + list + hostless;
  std::string head =
      "on " + std::to_string(k) + " of " + std::to_string(total) + " hosts in the log (" + list + ")" + hostless;
  if (k == 1) return head + ": one node, not the whole job";
  if (k * 2 >= total) return head + ": systemic (configuration, software or the fabric), not one bad node";
  return head + ": several nodes, not all";
}

std::string setting(const NcclLogImport& imp, const std::string& name) {
  auto it = imp.settings.find(name);
  return it == imp.settings.end() ? std::string() : it->second.first;
}

Evidence setting_evidence(const NcclLogImport& imp, const std::string& name) {
  const auto& s = imp.settings.at(name);
  return Evidence::text(name, s.first, line_source(imp.source, s.second));
}

bool is_loopback(const NcclNetDevice& d) {
  return d.name == "lo" || starts_with(d.address, "127.") || d.address == "::1";
}

bool is_virtual(const std::string& name) {
  for (const char* p : {"virbr", "docker", "veth", "cni", "flannel", "br-"})
    if (starts_with(name, p)) return true;
  return false;
}

std::string devices_text(const std::vector<NcclNetDevice>& devs) {
  std::vector<std::string> out;
  for (const auto& d : devs) {
    std::string s = d.name;
    if (d.port) s += ":" + std::to_string(*d.port);
    if (!d.link.empty()) s += "/" + d.link;
    if (!d.address.empty()) s += " " + d.address;
    out.push_back(s);
  }
  return join(out);
}

void socket_findings(const NcclLogImport& imp, std::vector<Finding>& out) {
  size_t total = named_hosts(imp);
  std::vector<std::string> disabled, no_device, chosen, loopback;
  for (const auto& h : imp.hosts) {
    if (nccl_data_transport(h) != "Socket") continue;
    std::string ib_disable = setting(imp, "NCCL_IB_DISABLE");
    if (!ib_disable.empty() && ib_disable != "0") disabled.push_back(host_name(h.host));
    else if (h.ib_no_device) no_device.push_back(host_name(h.host));
    else chosen.push_back(host_name(h.host));
    bool all_lo = !h.socket_devices.empty();
    for (const auto& d : h.socket_devices) all_lo = all_lo && is_loopback(d);
    if (all_lo) loopback.push_back(host_name(h.host) + " " + devices_text(h.socket_devices));
  }
  auto add = [&](const std::vector<std::string>& hosts, Severity sev, const char* code, const std::string& why,
                 const std::string& action) {
    if (hosts.empty()) return;
    Finding f;
    f.severity = sev;
    f.layer = Layer::kApplication;
    f.code = code;
    f.subject = join_first(hosts, kHostsNamed, ", ", "...");
    f.message = "NCCL carries inter-node traffic over TCP sockets (NET/Socket) " + spread(hosts, total) + ": " + why;
    f.action = action;
    for (const char* n : {"NCCL_IB_DISABLE", "NCCL_IBEXT_DISABLE", "NCCL_SOCKET_IFNAME", "NCCL_NET"})
      if (imp.settings.count(n)) f.evidence.push_back(setting_evidence(imp, n));
    out.push_back(std::move(f));
  };
  add(disabled, Severity::kError, "nccl_ib_disabled_by_env",
      "IB was switched off on purpose through the environment (NCCL_IB_DISABLE), not by a missing HCA",
      "Unset NCCL_IB_DISABLE / NCCL_IBEXT_DISABLE in the job environment.");
  add(no_device, Severity::kError, "nccl_socket_fallback",
      "\"NET/IB : No device found\": NCCL saw no usable RDMA device and fell back",
      "Check the HCAs on these hosts (ibv_devinfo, fabdiag check), the verbs libraries in the container, and "
      "NCCL_IB_HCA.");
  add(chosen, Severity::kWarn, "nccl_transport_socket", "no NET/IB device is in use",
      "If the hosts have RDMA NICs, check NCCL_IB_HCA, NCCL_NET and the net plugin.");
  if (!loopback.empty()) {
    Finding f;
    f.severity = Severity::kCritical;
    f.layer = Layer::kApplication;
    f.code = "nccl_socket_loopback";
    f.subject = join_first(loopback, kHostsNamed, ", ", "...");
    f.message = "NCCL's socket transport is bound to the loopback interface (" + f.subject +
                "), which no other node can reach: a multi-node job cannot communicate";
    if (imp.settings.count("NCCL_SOCKET_IFNAME")) f.evidence.push_back(setting_evidence(imp, "NCCL_SOCKET_IFNAME"));
    f.action = "Point NCCL_SOCKET_IFNAME at a routable interface (and let NCCL use IB for data).";
    out.push_back(std::move(f));
  }
}

void gdr_findings(const NcclLogImport& imp, std::vector<Finding>& out) {
  std::vector<std::string> hosts, details;
  Finding f;
  for (const auto& h : imp.hosts) {
    std::vector<std::string> off;
    for (const auto& [hca, g] : h.gdr) {
      if (!g.enabled || *g.enabled || g.used_in_channels) continue;
      off.push_back(g.distance.empty() ? hca : hca + " (" + g.distance + ": NCCL_NET_GDR_LEVEL)");
      f.evidence.push_back(Evidence::text("GPU Direct RDMA " + host_name(h.host) + " " + hca, "Disabled",
                                          line_source(imp.source, g.line))
                               .expect("Enabled"));
    }
    if (off.empty()) continue;
    hosts.push_back(host_name(h.host));
    details.push_back(host_name(h.host) + ": " + join(off));
  }
  if (hosts.empty()) return;
  f.severity = Severity::kError;
  f.layer = Layer::kPhysical;
  f.code = "nccl_gdr_disabled";
  f.subject = join_first(details, kHostsNamed, "; ", "...");
  f.message = "GPUDirect RDMA is disabled (" + f.subject + ") " + spread(hosts, named_hosts(imp)) +
              ": RDMA works, but GPU buffers are staged through host memory (less inter-node bandwidth, more "
              "CPU and PCIe load)";
  std::string level = setting(imp, "NCCL_NET_GDR_LEVEL");
  if (!level.empty()) {
    f.evidence.push_back(setting_evidence(imp, "NCCL_NET_GDR_LEVEL"));
    if (level == "SYS" || level == "5")
      f.message += "; NCCL_NET_GDR_LEVEL=" + level + " rules out GPU-NIC distance, so the peer-memory path is unusable";
  }
  f.action = "Check the peer-memory path: nvidia_peermem registered with the installed OFED "
             "(/sys/kernel/mm/memory_peers/nv_mem/version, dmesg) or DMA-BUF (open NVIDIA module, driver >= 515, "
             "Linux >= 5.12); fabdiag check on the host.";
  out.push_back(std::move(f));
}

// "10.1.0.3" of "eth0:10.1.0.3<0>" / "10.1.0.3<47213>".
std::string address_of(std::string s) {
  if (auto lt = s.find('<'); lt != std::string::npos) s.resize(lt);
  if (auto c = s.find(':'); c != std::string::npos && s.find('.') != std::string::npos) s = s.substr(c + 1);
  return s;
}

// The peers of completion errors, each with the host whose bootstrap address it is:
// "10.1.0.3 (gpu-node03)".
std::string peers_text(const NcclLogImport& imp, const std::vector<const NcclWarn*>& warns) {
  std::vector<std::string> out;
  for (const auto* w : warns) {
    std::string addr = address_of(w->peer);
    if (addr.empty()) continue;
    for (const auto& h : imp.hosts)
      if (!h.host.empty() && !h.bootstrap.empty() && address_of(h.bootstrap) == addr) addr += " (" + h.host + ")";
    if (std::find(out.begin(), out.end(), addr) == out.end()) out.push_back(addr);
  }
  return join_first(out, kHostsNamed, ", ", "...");
}

struct WarnGroup {
  std::vector<const NcclWarn*> warns;
  std::set<std::string> hosts;
};

void warn_finding(const NcclLogImport& imp, const std::string& key, const WarnGroup& g, std::vector<Finding>& out) {
  const NcclWarn& first = *g.warns.front();
  std::vector<std::string> hosts;
  for (const auto& h : g.hosts) hosts.push_back(host_name(h));
  size_t total = named_hosts(imp);
  Finding f;
  f.severity = Severity::kError;
  f.layer = Layer::kTransport;
  std::string where = spread(hosts, total);
  std::string count = std::to_string(g.warns.size()) + " WARN line(s)";
  if (first.kind == "completion_error" && first.wc) {
    int st = first.wc->status;
    std::string name = wc_status_name(st), meaning = wc_status_meaning(st);
    std::set<std::string> hcas;
    for (const auto* w : g.warns)
      if (w->wc && !w->wc->hca.empty()) hcas.insert(w->wc->hca);
    f.code = "nccl_ib_completion_error";
    f.subject = join(std::vector<std::string>(hcas.begin(), hcas.end()));
    // One host: the subject names it with its HCAs ("node02 mlx5_0"), so the finding can be
    // joined with that host's other evidence (triage --from); several: the hosts are in the message.
    if (hosts.size() == 1 && !f.subject.empty() && hosts.front() != "(host not in the log)")
      f.subject = hosts.front() + " " + f.subject;
    if (f.subject.empty()) f.subject = join_first(hosts, kHostsNamed, ", ", "...");
    f.message = "NCCL work completion error status " + std::to_string(st) +
                (name.empty() ? "" : " (IBV_WC_" + name + ": " + meaning + ")") + ", " + count + " " + where;
    if (first.wc->vendor_err) f.message += "; vendor err " + std::to_string(*first.wc->vendor_err);
    if (std::string peers = peers_text(imp, g.warns); !peers.empty()) f.message += "; peer " + peers;
    if (st == 12) f.action = "Transport retries ran out (loss, a dead link or a peer gone): check port state and loss "
                             "counters on both ends (fabdiag counters --interval), the peer named, NCCL_IB_TIMEOUT.";
    else if (st == 13) f.action = "The receiver had no buffer posted (RNR): look at the peer named; the peer process may be stuck or gone.";
    else if (st == 4) f.action = "Local protection error: with GPUDirect RDMA check ACS and the IOMMU (fabdiag check as root).";
    else if (st == 5) { f.severity = Severity::kWarn; f.action = "Flushed after an earlier error: the first error before these is the cause."; }
    else f.action = "Look up the status in ibv_wc_status (docs/domain.md#work-completion-status); check the HCA's port and counters.";
  } else if (first.kind == "ibv_modify_qp") {
    f.code = "nccl_ibv_modify_qp_failed";
    f.subject = join_first(hosts, kHostsNamed, ", ", "...");
    f.message = "ibv_modify_qp failed (" + first.text + "), " + count + " " + where +
                ": the RDMA queue pair never reached a connected state";
    f.action = "On RoCE check the GID index (NCCL_IB_GID_INDEX: a routable RoCE v2 entry, per host), the peer's "
               "reachability on that subnet and the port state.";
  } else {
    f.code = key == "timeout" ? "nccl_timeout" : key == "connection_closed" ? "nccl_connection_closed" : "nccl_warn";
    f.severity = key == "timeout" ? Severity::kError : Severity::kWarn;
    f.layer = Layer::kApplication;
    f.subject = join_first(hosts, kHostsNamed, ", ", "...");
    f.message = "NCCL WARN \"" + first.text + "\", " + count + " " + where;
    f.action = key == "connection_closed" ? "A peer process went away: find the first error on the peer it names."
                                          : "Read the first WARN of the job; it is usually the cause of the rest.";
  }
  for (size_t i = 0; i < g.warns.size() && i < kEvidenceLines; ++i) {
    const NcclWarn& w = *g.warns[i];
    std::string who = host_name(w.host);
    if (w.dev) who += " cudaDev " + std::to_string(*w.dev);
    if (w.pid) who += " pid " + std::to_string(*w.pid);
    f.evidence.push_back(Evidence::text("NCCL WARN " + who, w.text, line_source(imp.source, w.line)));
  }
  out.push_back(std::move(f));
}

void warn_findings(const NcclLogImport& imp, std::vector<Finding>& out) {
  std::map<std::string, WarnGroup> groups;
  for (const auto& w : imp.warns) {
    std::string key = w.kind;
    if (w.wc) key += "/" + std::to_string(w.wc->status);
    groups[key].warns.push_back(&w);
    groups[key].hosts.insert(w.host);
  }
  for (const auto& [key, g] : groups) warn_finding(imp, key.substr(0, key.find('/')), g, out);
}

void gid_findings(const NcclLogImport& imp, std::vector<Finding>& out) {
  if (imp.gids.empty()) return;
  std::optional<int> routable;
  std::vector<std::string> link_local;
  Finding f;
  for (const auto& g : imp.gids) {
    if (g.version == "v2" && !g.ipv4.empty() && !routable) routable = g.index;
    if (g.link_local) link_local.push_back(std::to_string(g.index));
    std::string kind = "RoCE " + g.version + (g.link_local ? ", link-local" : "") + (g.ipv4.empty() ? "" : ", IPv4 " + g.ipv4);
    f.evidence.push_back(Evidence::text("GID[" + std::to_string(g.index) + "] " + g.gid, kind, line_source(imp.source, g.line)));
  }
  std::string dev = imp.gid_device.empty() ? "the HCA" : imp.gid_device;
  f.severity = Severity::kWarn;
  f.layer = Layer::kTransport;
  f.code = "nccl_roce_gid_choice";
  f.subject = imp.gid_device.empty() ? "GID table" : imp.gid_device;
  f.message = "GID table of " + dev + ": " + std::to_string(imp.gids.size()) + " entries, link-local (fe80) at " +
              (link_local.empty() ? std::string("none") : join(link_local)) + "; " +
              (routable ? "the routable RoCE v2 IPv4 entry is index " + std::to_string(*routable)
                        : std::string("no RoCE v2 entry with an IPv4 address"));
  std::string set = setting(imp, "NCCL_IB_GID_INDEX");
  if (!set.empty()) {
    f.evidence.push_back(setting_evidence(imp, "NCCL_IB_GID_INDEX"));
    f.message += "; NCCL_IB_GID_INDEX=" + set + (routable && set == std::to_string(*routable) ? " matches it" : " does not");
  }
  f.action = "Use a routable RoCE v2 GID (NCCL_IB_GID_INDEX" + (routable ? "=" + std::to_string(*routable) : std::string()) +
             " here; indexes are per host, check show_gids on each) rather than a link-local or v1 entry.";
  out.push_back(std::move(f));
}

void version_findings(const NcclLogImport& imp, std::vector<Finding>& out) {
  std::map<std::string, std::vector<std::string>> by_version;
  for (const auto& h : imp.hosts)
    if (!h.version.empty()) by_version[h.version].push_back(host_name(h.host));
  if (by_version.size() < 2) return;
  Finding f;
  f.severity = Severity::kWarn;
  f.layer = Layer::kApplication;
  f.code = "nccl_version_mismatch";
  f.subject = "NCCL version";
  std::vector<std::string> parts;
  for (const auto& [v, hosts] : by_version) {
    parts.push_back(v + " on " + join_first(hosts, kHostsNamed, ", ", "..."));
    f.evidence.push_back(Evidence::text("NCCL version", v, join_first(hosts, kHostsNamed, ", ", "...")));
  }
  f.message = "the hosts run different NCCL versions: " + join(parts, "; ");
  f.action = "Run one NCCL build on every node (container image, LD_LIBRARY_PATH).";
  out.push_back(std::move(f));
}

void info_findings(const NcclLogImport& imp, std::vector<Finding>& out) {
  for (const auto& h : imp.hosts) {
    for (const auto& iface : h.speed_assumed) {
      Finding f;
      f.layer = Layer::kApplication;
      f.code = "nccl_speed_assumed";
      f.subject = host_name(h.host) + " " + iface;
      f.message = "NCCL could not read the speed of " + iface + " and assumed a default (10 Gbps): not a measured link speed";
      f.action = "None by itself; a socket transport on this interface is the problem, if any.";
      out.push_back(std::move(f));
    }
    if (nccl_data_transport(h) == "Socket") continue;
    for (const auto& d : h.socket_devices) {
      if (!is_virtual(d.name)) continue;
      Finding f;
      f.layer = Layer::kApplication;
      f.code = "nccl_socket_virtual_iface";
      f.subject = host_name(h.host) + " " + d.name;
      f.message = "NCCL's socket list (bootstrap) includes the virtual interface " + d.name +
                  "; data goes over " + (nccl_data_transport(h).empty() ? "an unlogged transport" : nccl_data_transport(h));
      f.action = "Pin NCCL_SOCKET_IFNAME to the host's real interface to keep bootstrap off it.";
      out.push_back(std::move(f));
    }
  }
}

}  // namespace

std::vector<Finding> nccl_log_findings(const NcclLogImport& imp) {
  std::vector<Finding> out;
  socket_findings(imp, out);
  gdr_findings(imp, out);
  warn_findings(imp, out);
  gid_findings(imp, out);
  version_findings(imp, out);
  info_findings(imp, out);
  return out;
}

}  // namespace fabdiag
