#include "rules/check_pcie_rules.h"

#include <algorithm>
#include <cstdio>

#include "core/text.h"

namespace fabdiag {

namespace {

Evidence acs_evidence(const AcsPort& p) {
  char hex[16];
  std::snprintf(hex, sizeof hex, "0x%04x", p.control);
  return Evidence::text("ACS Control (ACSCtl)", std::string(hex) + " (" + acs_control_text(p.control) + ")", p.source)
      .expect("ReqRedir- CmpltRedir- EgressCtrl- (P2P redirect off) on bare metal");
}

std::optional<Evidence> wc_evidence(const std::vector<WcError>& wc_errors) {
  for (const auto& w : wc_errors) {
    if (w.status != 4) continue;
    return Evidence::text("NCCL work completion status", "4 (IBV_WC_LOC_PROT_ERR, local protection error): " + w.line,
                          w.source)
        .expect("the usual symptom of ACS redirect breaking GPUDirect RDMA; not packet loss (that is 12, RETRY_EXC_ERR)");
  }
  return std::nullopt;
}

const char* kAcsAction =
    "Turn ACS P2P redirect off on the PCIe switch downstream ports and root ports above the GPUs "
    "and NICs: in the BIOS (ACS / PCIe ACS control), or for this boot with "
    "`setpci -s <bdf> ECAP_ACS+0x6.w=0000` on each such port (as root); until then run without "
    "GPUDirect RDMA (NCCL_NET_GDR_LEVEL=LOC). Inside a VM ACS is required for isolation: there "
    "this is expected.";

void add_group_evidence(Finding& f, const AerGroup& g, const char* total_name) {
  if (!g.present || !g.total || *g.total == 0) return;
  Evidence e = Evidence::number(total_name, static_cast<double>(*g.total), "count", g.source).expect(0, "0 since boot");
  std::vector<std::string> named;
  for (const auto& [n, c] : g.nonzero) named.push_back(n + " " + std::to_string(c));
  e.value_text = join(named);
  f.evidence.push_back(e);
}

}  // namespace

std::vector<Finding> pcie_link_findings(const std::vector<PcieLinkSubject>& links) {
  std::vector<Finding> out;
  for (const auto& s : links)
    for (auto& f : judge_pcie_link(s)) out.push_back(std::move(f));
  return out;
}

namespace {

bool acs_redirects(const AcsPort& p) {
  return p.status == AcsStatus::kRead && (p.control & kAcsP2pRedirectMask) != 0;
}

void placed_acs_findings(const std::vector<AcsPort>& ports, const std::optional<Evidence>& wc,
                         std::vector<Finding>& out) {
  // Ports whose place in the tree is known: one finding per port above a GPU or NIC.
  for (const auto& p : ports) {
    if (!p.position_known || !acs_redirects(p) || p.below.empty()) continue;
    Finding f;
    f.severity = Severity::kError;
    f.layer = Layer::kPhysical;
    f.code = "acs_redirect_enabled";
    f.subject = p.bdf.empty() ? p.label : p.bdf;
    f.message = "ACS peer-to-peer redirect is enabled on " + p.label + " (" +
                acs_control_text(p.control & kAcsP2pRedirectMask) + "), above " + join(p.below) +
                ": GPUDirect RDMA and GPU peer traffic through it is sent up to the root complex "
                "(slow, or IBV_WC_LOC_PROT_ERR with the IOMMU on)";
    f.evidence.push_back(acs_evidence(p));
    if (wc) f.evidence.push_back(*wc);
    f.action = kAcsAction;
    out.push_back(std::move(f));
  }
}

void unplaced_acs_findings(const std::vector<AcsPort>& ports, const std::optional<Evidence>& wc,
                           std::vector<Finding>& out) {
  // A listing without addresses (lspci -vvv | grep ACSCtl): count, name no device.
  std::vector<const AcsPort*> unplaced;
  for (const auto& p : ports)
    if (!p.position_known && p.status == AcsStatus::kRead) unplaced.push_back(&p);
  size_t n_redirect = std::count_if(unplaced.begin(), unplaced.end(), [](const AcsPort* p) { return acs_redirects(*p); });
  if (n_redirect > 0) {
    size_t n_sv_only = 0, n_off = 0;
    for (const AcsPort* p : unplaced) {
      if (acs_redirects(*p)) continue;
      if (p->control == 0) ++n_off;
      else ++n_sv_only;
    }
    Finding f;
    f.severity = Severity::kError;
    f.layer = Layer::kPhysical;
    f.code = "acs_redirect_enabled";
    std::vector<std::string> named;
    for (const AcsPort* p : unplaced)
      if (acs_redirects(*p) && !p->bdf.empty()) named.push_back(p->bdf);
    f.subject = named.empty() ? "PCIe ports (listing without device addresses)" : join(named);
    f.message = "ACS peer-to-peer redirect is enabled on " + std::to_string(n_redirect) + " of " +
                std::to_string(unplaced.size()) + " ACS control lines (" + std::to_string(n_sv_only) +
                " more have other ACS bits only, such as SrcValid, which do not redirect; " +
                std::to_string(n_off) + " have every ACS bit off). " +
                (named.empty() ? "The listing has no device addresses"
                               : "The listing does not show what sits below these ports (no bus numbers)") +
                ", so it cannot tell which of these ports sit between a GPU and a NIC";
    if (wc) f.message += "; the NCCL completion error 4 (local protection) in the same input is the usual symptom of ACS redirect";
    for (const AcsPort* p : unplaced)
      if (acs_redirects(*p)) f.evidence.push_back(acs_evidence(*p));
    if (wc) f.evidence.push_back(*wc);
    f.action = std::string("Run `sudo lspci -vvv` (without grep) or `sudo fabdiag check` on the node to see which "
                           "ports are affected. ") + kAcsAction;
    out.push_back(std::move(f));
  }
}

void unknown_acs_findings(const std::vector<AcsPort>& ports, std::vector<Finding>& out) {
  // Unknown is not absence: say which ports could not be read and why.
  std::vector<const AcsPort*> unknown;
  for (const auto& p : ports)
    if (p.status == AcsStatus::kNeedsRoot || p.status == AcsStatus::kUnreadable ||
        p.status == AcsStatus::kNoExtendedSpace)
      unknown.push_back(&p);
  if (!unknown.empty()) {
    bool all_root = std::all_of(unknown.begin(), unknown.end(),
                                [](const AcsPort* p) { return p->status == AcsStatus::kNeedsRoot; });
    Finding f;
    f.severity = Severity::kInfo;
    f.layer = Layer::kPhysical;
    f.code = "acs_unknown";
    f.subject = unknown.size() == 1 ? (unknown[0]->bdf.empty() ? unknown[0]->label : unknown[0]->bdf)
                                    : "PCIe bridges";
    std::vector<std::string> names;
    for (const AcsPort* p : unknown) names.push_back(p->bdf.empty() ? p->label : p->bdf);
    f.message = "ACS state unknown on " + std::to_string(unknown.size()) + " bridge(s) above GPUs/NICs (" +
                join(names) + ")" +
                (all_root ? ": only the first 64 bytes of PCI config space are readable without root"
                          : ": their PCI config space could not be read in full");
    for (const AcsPort* p : unknown)
      f.evidence.push_back(Evidence::text(
          "ACS Control", std::string("unknown (") + to_string(p->status) + ")" + (p->detail.empty() ? "" : ": " + p->detail),
          p->source));
    f.action = "Run `sudo fabdiag check` (or `sudo lspci -vvv`) to read ACS on these ports.";
    out.push_back(std::move(f));
  }
}

}  // namespace

std::vector<Finding> acs_findings(const std::vector<AcsPort>& ports, const std::vector<WcError>& wc_errors) {
  std::vector<Finding> out;
  auto wc = wc_evidence(wc_errors);
  placed_acs_findings(ports, wc, out);
  unplaced_acs_findings(ports, wc, out);
  unknown_acs_findings(ports, out);
  return out;
}

Result<AerGroup> parse_aer_text(std::string_view text, const std::string& source) {
  AerGroup g;
  g.present = true;
  g.source = source;
  uint64_t sum = 0;
  bool any = false;
  for (const auto& raw : split(text, '\n')) {
    std::string line = trim(raw);
    if (line.empty()) continue;
    auto sp = line.find_last_of(" \t");
    if (sp == std::string::npos) continue;
    auto count = parse_u64(line.substr(sp + 1));
    std::string name = trim(line.substr(0, sp));
    if (!count || name.empty()) continue;
    any = true;
    if (starts_with(name, "TOTAL_ERR")) {
      g.total = *count;
      continue;
    }
    sum += *count;
    if (*count > 0) g.nonzero.emplace_back(name, *count);
  }
  if (!any) return make_error(ErrorCode::kParse, "no '<name> <count>' line in the AER statistics", source);
  if (!g.total) g.total = sum;
  return g;
}

std::vector<Finding> aer_findings(const AerSubject& s) {
  std::vector<Finding> out;
  uint64_t fatal = s.fatal.total.value_or(0), nonfatal = s.nonfatal.total.value_or(0);
  if (fatal > 0 || nonfatal > 0) {
    Finding f;
    f.severity = Severity::kCritical;
    f.layer = Layer::kPhysical;
    f.code = "pcie_aer_uncorrectable";
    f.subject = s.bdf;
    f.message = s.label + " has logged " + std::to_string(fatal) + " fatal and " + std::to_string(nonfatal) +
                " non-fatal uncorrectable PCIe errors (AER) since boot";
    add_group_evidence(f, s.fatal, "TOTAL_ERR_FATAL");
    add_group_evidence(f, s.nonfatal, "TOTAL_ERR_NONFATAL");
    f.action = "Look in dmesg (or journalctl -k) for AER lines naming " + s.bdf +
               " and the port above it; drain the node, reseat the card and its riser or cable, "
               "and replace what keeps failing. Uncorrectable errors reset links and corrupt or "
               "drop transfers.";
    out.push_back(std::move(f));
  }
  if (s.correctable.total.value_or(0) > 0) {
    Finding f;
    f.severity = Severity::kInfo;
    f.layer = Layer::kPhysical;
    f.code = "pcie_aer_correctable";
    f.subject = s.bdf;
    f.message = s.label + " has logged " + std::to_string(*s.correctable.total) +
                " correctable PCIe errors (AER) since boot; one reading cannot tell whether they "
                "grow (growth = marginal signal integrity, replays cost bandwidth)";
    add_group_evidence(f, s.correctable, "TOTAL_ERR_COR");
    f.action = "Run fabdiag check again later (or under load): a growing count means a marginal link; "
               "then reseat the card and riser.";
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace fabdiag
