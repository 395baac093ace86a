#include "rules/check_run.h"

#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "rules/check_host_rules.h"
#include "core/text.h"
#include "rules/check_pcie_rules.h"

namespace fabdiag {

namespace {

std::string plural(size_t n, const std::string& one, const std::string& many = "") {
  return std::to_string(n) + " " + (n == 1 ? one : (many.empty() ? one + "s" : many));
}

struct Runner {
  CheckReport report;

  // Records a check that ran: status from its findings unless it is already decided.
  void add(std::string name, std::string title, std::vector<Finding> findings, std::string summary,
           bool unknown = false) {
    CheckResult c{std::move(name), std::move(title), CheckStatus::kPass, std::move(summary), findings.size()};
    auto worst = worst_severity(findings);
    if (worst && *worst >= Severity::kWarn) c.status = CheckStatus::kProblems;
    else if (unknown) c.status = CheckStatus::kUnknown;
    for (auto& f : findings) report.findings.push_back(std::move(f));
    report.checks.push_back(std::move(c));
  }
  void skip(std::string name, std::string title, CheckStatus status, std::string why) {
    report.checks.push_back(CheckResult{std::move(name), std::move(title), status, std::move(why), 0});
  }
  // A check over subjects some of whose inputs could not be read (`unread`: the paths): not
  // checked when none was read (`read` == 0), else judged on the rest and at best unknown.
  void add_partly_read(std::string name, std::string title, std::vector<Finding> findings, std::string summary,
                       const std::vector<std::string>& unread, size_t read) {
    if (unread.empty()) return add(std::move(name), std::move(title), std::move(findings), std::move(summary));
    std::string paths = join_first(unread, 4, ", ", "and " + std::to_string(unread.size() > 4 ? unread.size() - 4 : 0) + " more");
    if (read == 0)
      return skip(std::move(name), std::move(title), CheckStatus::kNotChecked, "could not be read: " + paths);
    add(std::move(name), std::move(title), std::move(findings), summary + "; could not be read: " + paths, true);
  }
};

constexpr const char* kNoPci = "no PCI facts in the input (needs sysfs or lspci -vvv)";
constexpr const char* kNoPorts = "no RDMA port facts in the input (needs sysfs, ibstat, ibstatus or ibv_devinfo)";

// Why the fact `fact` is absent: the reader's reason (what it looked for, where), else `fallback`.
std::string absent(const HostFacts& facts, const char* fact, const char* fallback) {
  auto it = facts.not_read.find(fact);
  return it == facts.not_read.end() ? std::string(fallback) : it->second;
}

  // PCIe links.
void check_pcie_links(Runner& r, const HostFacts& facts) {
  const char* t_link = "PCIe link width/speed";
  // A device without PCIe link attributes (a virtio NIC in a VM) has no link to judge: it must
  // not be counted as a link that passed.
  size_t judged_links = 0;
  std::vector<std::string> unread;  // GPUs/NICs by PCI class whose current link attributes are missing
  if (facts.pcie_links)
    for (const auto& l : *facts.pcie_links) {
      if (l.link_expected && !(l.link.current_width && l.link.current_speed_gts))
        unread.push_back(l.label + " " + l.source + "/current_link_width and current_link_speed");
      else if (l.link.current_width || l.link.current_speed_gts || l.link.max_width || l.link.max_speed_gts) ++judged_links;
    }
  if (!facts.pcie_links) r.skip("pcie_link", t_link, CheckStatus::kNotChecked, absent(facts, "pcie_links", kNoPci));
  else if (facts.pcie_links->empty()) r.skip("pcie_link", t_link, CheckStatus::kNotApplicable, "no GPU or NIC link found");
  else if (judged_links == 0 && unread.empty())
    r.skip("pcie_link", t_link, CheckStatus::kNotApplicable,
           plural(facts.pcie_links->size(), "device") + " without PCIe link attributes (virtual devices): nothing to judge");
  else r.add_partly_read("pcie_link", t_link, pcie_link_findings(*facts.pcie_links),
                         plural(judged_links, "link") + " of GPUs, NICs and switch uplinks, each against the lower max of its two ends",
                         unread, judged_links);
}

  // ACS.
void check_acs(Runner& r, const HostFacts& facts) {
  const char* t_acs = "ACS P2P redirect on bridges";
  if (!facts.acs_ports) r.skip("acs", t_acs, CheckStatus::kNotChecked, absent(facts, "acs_ports", kNoPci));
  else if (facts.acs_ports->empty()) r.skip("acs", t_acs, CheckStatus::kNotApplicable, "no bridge above a GPU or NIC, and no ACSCtl line");
  else {
    std::map<std::string, size_t> n;
    for (const auto& p : *facts.acs_ports) {
      if (p.status == AcsStatus::kRead) ++n[(p.control & kAcsP2pRedirectMask) ? "redirect on" : "redirect off"];
      else if (p.status == AcsStatus::kNoCapability) ++n["no ACS capability"];
      else ++n["unknown"];
    }
    std::string summary = plural(facts.acs_ports->size(), "port") + ":";
    for (const auto& [what, count] : n) summary += " " + std::to_string(count) + " " + what + ",";
    summary.pop_back();
    // Unknown only when no port could be read at all (unprivileged run); partly read = decided.
    bool unknown = n.count("unknown") && n["unknown"] == facts.acs_ports->size();
    r.add("acs", t_acs, acs_findings(*facts.acs_ports, facts.wc_errors), summary, unknown);
  }
}

  // AER.
void check_aer(Runner& r, const HostFacts& facts) {
  const char* t_aer = "AER error counters";
  if (!facts.aer) r.skip("aer", t_aer, CheckStatus::kNotChecked, absent(facts, "aer", "no AER statistics in the input (needs sysfs)"));
  else if (facts.aer->empty()) r.skip("aer", t_aer, CheckStatus::kNotApplicable, "no GPU, NIC or bridge exposes aer_dev_* statistics");
  else {
    std::vector<Finding> fs;
    for (const auto& s : *facts.aer)
      for (auto& f : aer_findings(s)) fs.push_back(std::move(f));
    r.add("aer", t_aer, std::move(fs), plural(facts.aer->size(), "function") + " with AER statistics (GPUs, NICs, bridges above them)");
  }
}

  // GPUDirect RDMA.
void check_gpudirect_rdma(Runner& r, const HostFacts& facts) {
  const char* t_gdr = "GPUDirect RDMA (peermem / DMA-BUF)";
  if (!facts.gdr) r.skip("gpudirect_rdma", t_gdr, CheckStatus::kNotChecked,
                        absent(facts, "gdr", "no module facts in the input (needs sysfs and procfs)"));
  else if (facts.gdr->gpus == 0 || facts.gdr->rdma_nics == 0)
    r.skip("gpudirect_rdma", t_gdr, CheckStatus::kNotApplicable,
           plural(facts.gdr->gpus, "GPU") + ", " + plural(facts.gdr->rdma_nics, "RDMA NIC") + ": nothing to connect");
  else {
    std::string summary = facts.gdr->peermem_found.empty() ? "peer-memory module not loaded"
                                                           : "peer memory: " + facts.gdr->peermem_found.front();
    r.add("gpudirect_rdma", t_gdr, gdr_findings(*facts.gdr), summary);
  }
}

  // IOMMU.
void check_iommu(Runner& r, const HostFacts& facts) {
  const char* t_iommu = "IOMMU mode";
  if (!facts.iommu) r.skip("iommu", t_iommu, CheckStatus::kNotChecked,
                          absent(facts, "iommu", "no IOMMU facts in the input (needs sysfs and procfs)"));
  else {
    IommuMode mode = iommu_mode(*facts.iommu);
    r.add("iommu", t_iommu, iommu_findings(*facts.iommu), std::string("mode: ") + to_string(mode),
          mode == IommuMode::kUnknown);
  }
}

// Where the attribute `file` of each port for which `missing` holds was looked for: the sysfs
// file ("/sys/class/infiniband/mlx5_0/ports/1/state"), or the listing line and the attribute.
template <typename Missing>
std::vector<std::string> unread_port_files(const std::vector<RdmaPortFacts>& ports, const char* file, Missing missing) {
  std::vector<std::string> out;
  for (const auto& p : ports)
    if (missing(p)) out.push_back(p.source + (p.from_sysfs ? "/" : ", ") + file);
  return out;
}

  // RDMA ports.
void check_rdma_ports(Runner& r, const HostFacts& facts, const CheckRunOptions& options) {
  const char* t_state = "RDMA port state";
  const char* t_rate = "RDMA port rate";
  const char* t_mtu = "RoCE MTU";
  const char* t_gid = "RoCE v2 GID";
  if (!facts.rdma_ports) {
    for (auto [n, t] : {std::pair{"port_state", t_state}, {"port_rate", t_rate}, {"roce_mtu", t_mtu}, {"roce_gid", t_gid}})
      r.skip(n, t, CheckStatus::kNotChecked, absent(facts, "rdma_ports", kNoPorts));
  } else if (facts.rdma_ports->empty()) {
    for (auto [n, t] : {std::pair{"port_state", t_state}, {"port_rate", t_rate}, {"roce_mtu", t_mtu}, {"roce_gid", t_gid}})
      r.skip(n, t, CheckStatus::kNotApplicable, "no RDMA port");
  } else {
    const auto& ports = *facts.rdma_ports;
    size_t up = 0, roce = 0, gids_known = 0, mtu_known = 0;
    std::vector<Finding> state, mtu, gid;
    std::vector<std::string> model_order;
    std::map<std::string, std::pair<size_t, size_t>> by_model;  // (up, all)
    for (const auto& p : ports) {
      up += port_is_up(p);
      std::string model = (p.model.empty() ? (p.board_id.empty() ? "unknown model" : p.board_id) : p.model) +
                          (p.link_layer.empty() ? "" : " " + p.link_layer);
      if (!by_model.count(model)) model_order.push_back(model);
      by_model[model].first += port_is_up(p);
      by_model[model].second += 1;
      if (p.link_layer == "Ethernet") {
        ++roce;
        gids_known += p.rocev2_gids.has_value();
        mtu_known += p.netdev_mtu_bytes.has_value() || p.active_mtu_bytes.has_value();
      }
      for (auto& f : port_state_rule(p)) state.push_back(std::move(f));
      for (auto& f : roce_mtu_findings(p)) mtu.push_back(std::move(f));
      for (auto& f : roce_gid_findings(p)) gid.push_back(std::move(f));
    }
    std::string per_model;
    for (const auto& m : model_order)
      per_model += (per_model.empty() ? "; " : ", ") + m + " " + std::to_string(by_model[m].first) + " of " +
                   std::to_string(by_model[m].second) + " up";
    auto unread_state = unread_port_files(ports, "state", [](const RdmaPortFacts& p) { return p.state.empty(); });
    // A listing cut inside a port's block (a gap names the block: import/port_listing_gaps.h)
    // without its physical state: the port is not known to be up.
    std::set<std::string> cut_blocks;
    for (const auto& g : facts.gaps) cut_blocks.insert(g.source);
    for (auto& u : unread_port_files(ports, "phys_state", [&](const RdmaPortFacts& p) {
           return !p.state.empty() && p.phys_state.empty() && cut_blocks.count(p.source);
         }))
      unread_state.push_back(std::move(u));
    auto unread_rate = unread_port_files(ports, "rate", [](const RdmaPortFacts& p) { return !p.rate_gbps; });
    r.add_partly_read("port_state", t_state, std::move(state),
                      plural(ports.size(), "port") + ", " + std::to_string(up) + " up" + per_model, unread_state,
                      ports.size() - unread_state.size());
    r.add_partly_read("port_rate", t_rate, port_rate_findings(ports, options.expect_rates),
                      options.expect_rates.empty() ? "active ports against the majority of their model"
                                                   : "active ports against --expect-rate, others against their model's majority",
                      unread_rate, ports.size() - unread_rate.size());
    // A port whose link layer was not read may be RoCE: "no RoCE port" is not known then.
    auto unread_layer = unread_port_files(ports, "link_layer", [](const RdmaPortFacts& p) { return p.link_layer.empty(); });
    if (roce == 0) {
      auto status = unread_layer.empty() ? CheckStatus::kNotApplicable : CheckStatus::kNotChecked;
      std::string why = unread_layer.empty() ? "no RoCE (Ethernet link layer) port"
                                             : "no port known to be RoCE; the link layer could not be read: " +
                                                   join_first(unread_layer, 4, ", ", "and " + std::to_string(unread_layer.size() > 4 ? unread_layer.size() - 4 : 0) + " more");
      r.skip("roce_mtu", t_mtu, status, why);
      r.skip("roce_gid", t_gid, status, why);
    } else {
      if (mtu_known == 0) r.skip("roce_mtu", t_mtu, CheckStatus::kNotChecked, "the input has no MTU (needs sysfs or ibv_devinfo)");
      else r.add("roce_mtu", t_mtu, std::move(mtu), plural(mtu_known, "RoCE port") + " with a known MTU");
      if (gids_known == 0) r.skip("roce_gid", t_gid, CheckStatus::kNotChecked, "the input lists no GID types (needs sysfs)");
      else r.add("roce_gid", t_gid, std::move(gid), plural(gids_known, "RoCE port") + " with a GID table");
    }
  }
}

  // ECN.
void check_ecn(Runner& r, const HostFacts& facts) {
  const char* t_ecn = "ECN/DCQCN enabled (rp_cnp_ignored)";
  if (!facts.counters) r.skip("ecn", t_ecn, CheckStatus::kNotChecked, absent(facts, "counters", "no counters in the input (needs sysfs)"));
  else if (facts.counters->empty()) r.skip("ecn", t_ecn, CheckStatus::kNotApplicable, "no port exposes rp_cnp_ignored (RoCE hw_counters)");
  else r.add("ecn", t_ecn, ecn_findings(*facts.counters), plural(facts.counters->size(), "port") + " with rp_cnp_ignored");
}

  // NCCL completion errors (only from saved logs).
void check_nccl_errors(Runner& r, const HostFacts& facts) {
  if (!facts.wc_errors.empty())
    r.add("nccl_errors", "NCCL work completion errors", wc_error_findings(facts.wc_errors),
          plural(facts.wc_errors.size(), "completion error") + " in the NCCL log");
}

}  // namespace

const char* to_string(CheckStatus s) {
  switch (s) {
    case CheckStatus::kPass: return "pass";
    case CheckStatus::kProblems: return "problems";
    case CheckStatus::kUnknown: return "unknown";
    case CheckStatus::kNotApplicable: return "n/a";
    case CheckStatus::kNotChecked: return "not checked";
  }
  return "not checked";
}

std::vector<std::pair<CheckStatus, size_t>> count_by_status(const std::vector<CheckResult>& checks) {
  std::vector<std::pair<CheckStatus, size_t>> out;
  for (auto s : {CheckStatus::kPass, CheckStatus::kProblems, CheckStatus::kUnknown, CheckStatus::kNotApplicable,
                 CheckStatus::kNotChecked}) {
    size_t n = 0;
    for (const auto& c : checks) n += c.status == s;
    out.emplace_back(s, n);
  }
  return out;
}

std::string status_summary(const std::vector<CheckResult>& checks) {
  std::string out = plural(checks.size(), "check") + ":";
  for (const auto& [status, n] : count_by_status(checks)) out += " " + std::to_string(n) + " " + to_string(status) + ",";
  out.pop_back();
  return out;
}

nlohmann::json status_summary_json(const std::vector<CheckResult>& checks) {
  nlohmann::json j = {{"checks", checks.size()}};
  for (const auto& [status, n] : count_by_status(checks)) j[to_string(status)] = n;
  return j;
}

void to_json(nlohmann::json& j, const CheckResult& c) {
  j = {{"name", c.name}, {"title", c.title}, {"status", to_string(c.status)}, {"summary", c.summary},
       {"findings", c.findings}};
}

CheckReport run_checks(const HostFacts& facts, const CheckRunOptions& options) {
  Runner r;
  check_pcie_links(r, facts);
  check_acs(r, facts);
  check_aer(r, facts);
  check_gpudirect_rdma(r, facts);
  check_iommu(r, facts);
  check_rdma_ports(r, facts, options);
  check_ecn(r, facts);
  check_nccl_errors(r, facts);
  return r.report;
}

}  // namespace fabdiag
