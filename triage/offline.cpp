#include "triage/offline.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "triage/hostfile.h"

namespace fabdiag::triage {

namespace {

bool at_least_warn(const Finding& f) { return f.severity >= Severity::kWarn; }

// Worst first; among equals, the deeper layer first (the physical cause before its symptoms).
bool worse(const Finding& a, const Finding& b) {
  if (a.severity != b.severity) return a.severity > b.severity;
  return a.layer > b.layer;
}

std::vector<SystemicCause> systemic_causes(const std::map<std::string, std::vector<const HostedFinding*>>& by_code,
                                           size_t host_count) {
  std::vector<SystemicCause> out;
  for (const auto& [code, list] : by_code) {
    std::set<std::string> hosts;
    for (const auto* hf : list)
      if (!hf->host.empty()) hosts.insert(hf->host);
    const bool many = hosts.size() >= 3 && hosts.size() * 2 >= host_count;
    const bool all = host_count >= 2 && hosts.size() == host_count;
    if (!many && !all) continue;
    SystemicCause c;
    c.code = code;
    c.hosts.assign(hosts.begin(), hosts.end());
    c.of_hosts = host_count;
    const HostedFinding* worst = list.front();
    for (const auto* hf : list)
      if (worse(hf->finding, worst->finding)) worst = hf;
    c.severity = worst->finding.severity;
    c.layer = worst->finding.layer;
    c.message = worst->finding.message;
    c.action = worst->finding.action;
    out.push_back(std::move(c));
  }
  std::sort(out.begin(), out.end(), [](const SystemicCause& a, const SystemicCause& b) {
    if (a.hosts.size() != b.hosts.size()) return a.hosts.size() > b.hosts.size();
    return a.severity > b.severity;
  });
  return out;
}

OfflineSuspect make_suspect(const std::string& host, std::vector<Finding> findings) {
  std::stable_sort(findings.begin(), findings.end(), worse);
  OfflineSuspect s;
  s.host = host;
  s.severity = findings.front().severity;
  s.action = findings.front().action;
  std::set<Layer> layers;
  for (const auto& f : findings) layers.insert(f.layer);
  s.layers.assign(layers.begin(), layers.end());
  s.findings = std::move(findings);
  return s;
}

}  // namespace

OfflineVerdict judge_offline(const std::vector<HostedFinding>& findings, std::vector<std::string> hosts) {
  OfflineVerdict v;
  std::set<std::string> all(hosts.begin(), hosts.end());
  for (const auto& hf : findings)
    if (!hf.host.empty()) all.insert(hf.host);
  v.hosts.assign(all.begin(), all.end());

  std::map<std::string, std::vector<const HostedFinding*>> by_code;
  for (const auto& hf : findings)
    if (at_least_warn(hf.finding) && !hf.host.empty()) by_code[hf.finding.code].push_back(&hf);
  v.systemic = systemic_causes(by_code, v.hosts.size());
  std::set<std::string> systemic_codes;
  for (const auto& c : v.systemic) systemic_codes.insert(c.code);

  std::map<std::string, std::vector<Finding>> per_host;
  for (const auto& hf : findings) {
    if (!at_least_warn(hf.finding)) continue;
    if (hf.host.empty()) {
      v.fabric.push_back(hf.finding);
      continue;
    }
    if (!systemic_codes.count(hf.finding.code)) per_host[hf.host].push_back(hf.finding);
  }
  std::stable_sort(v.fabric.begin(), v.fabric.end(), worse);
  for (auto& [host, list] : per_host) v.suspects.push_back(make_suspect(host, std::move(list)));
  std::stable_sort(v.suspects.begin(), v.suspects.end(), [](const OfflineSuspect& a, const OfflineSuspect& b) {
    if (a.severity != b.severity) return a.severity > b.severity;
    if (a.layers.size() != b.layers.size()) return a.layers.size() > b.layers.size();
    return a.findings.size() > b.findings.size();
  });
  std::set<std::string> flagged;
  for (const auto& [code, list] : by_code)
    for (const auto* hf : list) flagged.insert(hf->host);
  for (const auto& h : v.hosts)
    if (!flagged.count(h)) v.cleared.push_back(h);
  return v;
}

std::string host_of_subject(const std::string& subject, const std::vector<std::string>& known_hosts) {
  // "IBM HSSM port 1 <-> node01 HCA-1" (iblinkinfo): a switch port and what its far end is on;
  // the host is the far end's, the near end counts only when it is a known host.
  if (size_t arrow = subject.find(" <-> "); arrow != std::string::npos) {
    std::string far = host_of_subject(subject.substr(arrow + 5), known_hosts);
    if (!far.empty()) return far;
    std::string near = subject.substr(0, subject.find(' '));
    return std::find(known_hosts.begin(), known_hosts.end(), near) != known_hosts.end() ? near : "";
  }
  size_t end = subject.find(' ');
  std::string first = subject.substr(0, end);
  if (!first.empty() && first.back() == ':') first.pop_back();  // "node05: ..."
  if (!is_valid_hostname(first)) return "";
  if (std::find(known_hosts.begin(), known_hosts.end(), first) != known_hosts.end()) return first;
  // Words that start subjects of one host's own findings, never a host: "optics ens1f0np0",
  // "unnamed device ..." (an lspci fragment), and of the GPU and job readers: "PG 1 SeqNum 808"
  // (PyTorch watchdog), "NvSwitch 3", "dcgmi diag PCIe", "rank 3 of 8" (NCCL Inspector, RAS),
  // "CA Lid 2 port 1" (ibqueryerrors), "OSU MPI-CUDA Bandwidth Test" (a benchmark's title).
  static const std::set<std::string> kNotHosts = {"optics", "link", "port", "gpu", "nic", "pci", "pcie", "all",
                                                  "pg", "nvswitch", "dcgmi", "unnamed", "rank", "ranks", "comm",
                                                  "ca", "lid", "guid", "switch", "osu", "job", "peer"};
  std::string lower = first;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (kNotHosts.count(lower) || !std::any_of(first.begin(), first.end(), [](unsigned char c) { return std::isalpha(c); }))
    return "";
  // "MT25204 InfiniHostLx Mellanox Technologies": an HCA's default node description, no host.
  if (lower.size() > 2 && lower.compare(0, 2, "mt") == 0 &&
      std::all_of(lower.begin() + 2, lower.end(), [](unsigned char c) { return std::isdigit(c); }))
    return "";
  // "0x0002c90300000001 all ports": a node GUID (ibqueryerrors without the node's description).
  if (lower.size() > 2 && lower.compare(0, 2, "0x") == 0 &&
      std::all_of(lower.begin() + 2, lower.end(), [](unsigned char c) { return std::isxdigit(c); }))
    return "";
  // "node05 mlx5_0 port 1": a host word followed by the device on it.
  if (end != std::string::npos && end + 1 < subject.size()) return first;
  return "";
}

}  // namespace fabdiag::triage
