// Findings and JSON data of an NVUE interface import (import/nvue_interface.h;
// docs/fabric.md#nvue-interface-findings).
#include "core/text.h"
#include "import/common.h"
#include "import/nvue_interface.h"
#include "import/switch_counters.h"

namespace fabdiag {
namespace {

constexpr const char* kTotals = " (totals since boot or the last clear: one snapshot, no rate)";

struct Counted {
  std::vector<std::string> parts;
  std::vector<Evidence> evidence;
  uint64_t total = 0;
};

// The keys of `keys` the port has above zero, the first of each group of synonyms only
// ("in-errors" and "Total Errors rx" count the same frames).
Counted counted(const NvueImport& imp, const NvuePort& p, std::initializer_list<std::initializer_list<const char*>> groups) {
  Counted c;
  for (const auto& group : groups)
    for (const char* k : group) {
      auto it = p.counts.find(k);
      if (it == p.counts.end()) continue;
      if (it->second > 0) {
        c.total += it->second;
        c.parts.push_back(std::to_string(it->second) + " " + k);
        c.evidence.push_back(Evidence::number(k, static_cast<double>(it->second), "count",
                                              line_source(imp.source, p.line_of.at(k)))
                                 .expect(0, "0"));
      }
      break;
    }
  return c;
}

Finding base(const NvuePort& p, const char* code, Severity s, Layer layer) {
  Finding f;
  f.code = code;
  f.severity = s;
  f.layer = layer;
  f.subject = switch_port_subject(p.host, p.port);
  return f;
}

void error_findings(std::vector<Finding>& out, const NvueImport& imp, const NvuePort& p) {
  Counted e = counted(imp, p, {{"in-errors", "Total Errors rx", "RX_ERR"}, {"out-errors", "Total Errors tx", "TX_ERR"},
                               {"FCS Errors rx"}, {"Symbol Errors rx"}});
  if (!e.parts.empty()) {
    Finding f = base(p, "nvue_port_errors", Severity::kWarn, Layer::kPhysical);
    f.message = f.subject + ": " + join_prose(e.parts) + kTotals + ": frames with errors on this link (FCS, symbol, length)";
    f.evidence = std::move(e.evidence);
    f.action = "Run `nv show interface " + p.port + " link phy-detail` and check the optic (`nv show interface " + p.port +
               " pluggable`); clean or replace the cable";
    out.push_back(std::move(f));
  }
  Counted d = counted(imp, p, {{"in-drops", "Total Drops rx", "RX_DRP"}, {"out-drops", "Total Drops tx", "TX_DRP"}});
  if (d.parts.empty()) return;
  uint64_t pkts = 0;
  for (const char* k : {"in-pkts", "out-pkts"})
    if (p.counts.count(k)) pkts += p.counts.at(k);
  if (!pkts)
    for (const char* k : {"RX_OK", "TX_OK", "Total Packets rx", "Total Packets tx"})
      if (p.counts.count(k)) pkts += p.counts.at(k);
  double share = pkts ? static_cast<double>(d.total) / static_cast<double>(pkts + d.total) : 0;
  Finding f = base(p, "nvue_port_drops", pkts && share >= kSwitchDropShareWarn ? Severity::kWarn : Severity::kInfo,
                   Layer::kTransport);
  f.message = f.subject + ": " + join_prose(d.parts) + kTotals +
              (pkts ? ", " + format_g3(share * 100) + " % of its packets" : std::string()) +
              ": the switch discarded them (buffers, ACL, a lossless queue without PFC)";
  f.evidence = std::move(d.evidence);
  f.action = "Run `nv show interface " + p.port + " counters qos` for the queue that drops";
  out.push_back(std::move(f));
}

void flap_finding(std::vector<Finding>& out, const NvueImport& imp, const NvuePort& p) {
  auto it = p.counts.find("carrier-transitions");
  if (it == p.counts.end() || it->second < kSwitchCarrierTransitionsWarn) return;
  Finding f = base(p, "nvue_carrier_transitions", Severity::kWarn, Layer::kPhysical);
  f.message = f.subject + ": " + std::to_string(it->second) + " carrier transitions since boot or clear: about " +
              std::to_string(it->second / 2) + " link flaps";
  f.evidence.push_back(Evidence::number("carrier-transitions", static_cast<double>(it->second), "count",
                                        line_source(imp.source, p.line_of.at("carrier-transitions")))
                           .expect(kSwitchCarrierTransitionsWarn, "< 10"));
  f.action = "Look for link-down lines of " + p.port + " in the switch's syslog; reseat or replace the cable";
  out.push_back(std::move(f));
}

// The worst of `keys` the port has (a BER), with its key.
std::pair<std::string, double> worst_ber(const NvuePort& p, const std::string& prefix) {
  std::pair<std::string, double> w{"", -1};
  for (const auto& [k, v] : p.bers)
    if (starts_with(k, prefix) && v > w.second) w = {k, v};
  return w;
}

void ber_findings(std::vector<Finding>& out, const NvueImport& imp, const NvuePort& p) {
  Counted e = counted(imp, p, {{"effective-errors"}, {"symbol-errors"}});
  auto [eff_key, eff] = worst_ber(p, "effective-ber");
  auto [sym_key, sym] = worst_ber(p, "symbol-ber");
  if (sym > eff) eff = sym, eff_key = sym_key;
  if (!e.parts.empty() || eff > kSwitchPostFecBerError) {
    Finding f = base(p, "nvue_effective_errors", eff > kSwitchPostFecBerError ? Severity::kError : Severity::kWarn,
                     Layer::kPhysical);
    f.message = f.subject + ": " + (e.parts.empty() ? std::string() : join_prose(e.parts) + " (errors FEC did not correct)");
    if (eff > kSwitchPostFecBerError)
      f.message += (e.parts.empty() ? "" : ", ") + eff_key + " " + format_g3(eff) + " above 1e-12";
    f.message += ": frames are lost on this link";
    f.evidence = std::move(e.evidence);
    if (eff >= 0)
      f.evidence.push_back(Evidence::number(eff_key, eff, "ratio", line_source(imp.source, p.line_of.at(eff_key)))
                               .expect(kSwitchPostFecBerError, "<= 1e-12"));
    f.action = "Replace the optic or cable of " + p.port + " (`nv show interface " + p.port + " pluggable`)";
    out.push_back(std::move(f));
  }
  auto [raw_key, raw] = worst_ber(p, "raw-ber");
  if (raw <= kSwitchPreFecBerWarn) return;
  Finding f = base(p, "nvue_raw_ber", raw > kSwitchPreFecBerError ? Severity::kError : Severity::kWarn, Layer::kPhysical);
  f.message = f.subject + ": " + raw_key + " " + format_g3(raw) + ", above 1e-6: the link depends on FEC and is degrading";
  f.evidence.push_back(Evidence::number(raw_key, raw, "ratio", line_source(imp.source, p.line_of.at(raw_key)))
                           .expect(kSwitchPreFecBerWarn, "<= 1e-6"));
  f.action = "Clean or reseat the optic and cable of " + p.port + "; compare the lanes (one bad lane: one fibre or SerDes)";
  out.push_back(std::move(f));
}

void down_finding(std::vector<Finding>& out, const NvueImport& imp, const NvuePort& p) {
  if (p.state != "down") return;
  Finding f = base(p, "nvue_port_down", p.state_from_table ? Severity::kInfo : Severity::kWarn, Layer::kPhysical);
  f.message = f.subject + " is down" + (p.state_from_table ? " (listed by `nv show interface`: unused ports are down too)" : "");
  f.evidence.push_back(Evidence::text("state", "down", line_source(imp.source, p.line_of.at("state"))).expect("up"));
  f.action = "Check the cable and optic of " + p.port + " and the far end (`nv show interface " + p.port + " link`)";
  out.push_back(std::move(f));
}

}  // namespace

std::vector<Finding> nvue_interface_findings(const NvueImport& imp) {
  std::vector<Finding> out;
  for (const auto& p : imp.ports) {
    down_finding(out, imp, p);
    error_findings(out, imp, p);
    flap_finding(out, imp, p);
    ber_findings(out, imp, p);
  }
  return out;
}

nlohmann::json nvue_interface_data(const NvueImport& imp) {
  nlohmann::json ports = nlohmann::json::array();
  size_t with_errors = 0, down = 0;
  for (const auto& p : imp.ports) {
    nlohmann::json counts = nlohmann::json::object(), bers = nlohmann::json::object();
    for (const auto& [k, v] : p.counts) counts[k] = v;
    for (const auto& [k, v] : p.bers) bers[k] = v;
    bool errors = false;
    for (const char* k : {"in-errors", "out-errors", "RX_ERR", "TX_ERR", "Total Errors rx", "Total Errors tx",
                          "effective-errors", "symbol-errors"})
      errors = errors || (p.counts.count(k) && p.counts.at(k) > 0);
    with_errors += errors;
    down += p.state == "down";
    ports.push_back({{"switch", p.host}, {"port", p.port}, {"state", p.state}, {"counts", counts}, {"bers", bers}});
  }
  nlohmann::json out = {
      {"format", imp.format},
      {"commands", imp.commands},
      {"ports", ports},
      {"summary", {{"ports", imp.ports.size()}, {"ports_with_errors", with_errors}, {"ports_down", down}}}};
  if (imp.commands_repeated) out["commands_repeated"] = imp.commands_repeated;
  return out;
}

}  // namespace fabdiag
