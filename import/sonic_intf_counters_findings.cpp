// Findings and JSON data of a `show interfaces counters` import (import/sonic_intf_counters.h;
// docs/fabric.md#sonic-interface-counters-findings).
#include "core/text.h"
#include "import/common.h"
#include "import/sonic_intf_counters.h"
#include "import/switch_counters.h"

namespace fabdiag {
namespace {

std::string subject_of(const SonicIntfPort& p) { return switch_port_subject(p.host, p.port); }

std::string since_of(const SonicIntfImport& imp) {
  if (imp.period_s) return " over the " + std::to_string(*imp.period_s) + " s period of the output";
  return imp.cached_time.empty() ? " (totals since boot or the last clear: one snapshot, no rate)"
                                 : " (totals since " + imp.cached_time + ": one snapshot, no rate)";
}

// The counters of `names` the port has above zero, as "10 RX_ERR" parts; `rising` is set when
// a later table shows one of them higher than the first.
struct Seen {
  std::vector<std::string> parts;
  std::vector<Evidence> evidence;
  uint64_t total = 0;
  bool rising = false, sampled_twice = false;
};

Seen seen(const SonicIntfImport& imp, const SonicIntfPort& p, std::initializer_list<const char*> names) {
  Seen s;
  for (const char* n : names) {
    auto it = p.counters.find(n);
    if (it == p.counters.end() || it->second.last == 0) continue;
    const SonicCounter& c = it->second;
    s.total += c.last;
    std::string part = std::to_string(c.last) + " " + n;
    if (c.samples > 1) {
      s.sampled_twice = true;
      if (c.last > c.first) {
        s.rising = true;
        part += " (+" + std::to_string(c.last - c.first) + " since the first table)";
      }
    }
    s.parts.push_back(part);
    s.evidence.push_back(Evidence::number(n, static_cast<double>(c.last), "count", line_source(imp.source, c.last_line))
                             .expect(0, "0"));
  }
  return s;
}

std::optional<uint64_t> count(const SonicIntfPort& p, const char* name) {
  auto it = p.counters.find(name);
  if (it == p.counters.end()) return std::nullopt;
  return it->second.last;
}

Finding base(const SonicIntfPort& p, const char* code, Layer layer) {
  Finding f;
  f.code = code;
  f.layer = layer;
  f.subject = subject_of(p);
  return f;
}

void counter_finding(std::vector<Finding>& out, const SonicIntfImport& imp, const SonicIntfPort& p, const char* code,
                     std::initializer_list<const char*> names, const std::string& what, const std::string& action) {
  Seen s = seen(imp, p, names);
  if (s.parts.empty()) return;
  Finding f = base(p, code, Layer::kPhysical);
  f.severity = s.rising ? Severity::kError : Severity::kWarn;
  f.message = subject_of(p) + ": " + join_prose(s.parts) + (s.sampled_twice ? "" : since_of(imp)) + ": " + what;
  if (s.sampled_twice) f.message += s.rising ? ", still rising between tables" : "; no new ones between the tables";
  if (s.sampled_twice && !s.rising) f.severity = Severity::kInfo;
  f.evidence = std::move(s.evidence);
  f.action = action;
  out.push_back(std::move(f));
}

void drop_finding(std::vector<Finding>& out, const SonicIntfImport& imp, const SonicIntfPort& p) {
  Seen s = seen(imp, p, {"RX_DRP", "TX_DRP", "WRED Total Dropped Packets"});
  if (s.parts.empty()) return;
  uint64_t pkts = count(p, "RX_OK").value_or(0) + count(p, "TX_OK").value_or(0);
  double share = pkts ? static_cast<double>(s.total) / static_cast<double>(pkts + s.total) : 0;
  Finding f = base(p, "sonic_port_drops", Layer::kTransport);
  f.severity = (pkts && share >= kSwitchDropShareWarn) || s.rising ? Severity::kWarn : Severity::kInfo;
  f.message = subject_of(p) + ": " + join_prose(s.parts) + since_of(imp);
  if (pkts) f.message += ", " + format_g3(share * 100) + " % of its packets";
  f.message += ": the switch discarded them (buffer full, ACL, WRED, a lossless queue without PFC)";
  f.evidence = std::move(s.evidence);
  if (pkts) f.evidence.push_back(Evidence::number("drop share", share * 100, "%", imp.source).expect(kSwitchDropShareWarn * 100, "< 0.1 %"));
  f.action = "Run `show queue counters " + p.port + "` and `show pfc counters`: drops on the RoCE queue mean PFC or ECN is "
             "not protecting it";
  out.push_back(std::move(f));
}

void state_finding(std::vector<Finding>& out, const SonicIntfImport& imp, const SonicIntfPort& p) {
  if (p.state != "D") return;
  Finding f = base(p, "sonic_port_down", Layer::kPhysical);
  f.severity = Severity::kWarn;
  f.message = subject_of(p) + " is admin up but operationally down (STATE D): no link";
  f.evidence.push_back(Evidence::text("STATE", "D", line_source(imp.source, p.state_line)).expect("U"));
  f.action = "Check the cable and optic (`show interfaces transceiver presence " + p.port + "`) and the far end";
  out.push_back(std::move(f));
}

void ber_findings(std::vector<Finding>& out, const SonicIntfImport& imp, const SonicIntfPort& p) {
  auto rate = [&p](const char* n) -> std::optional<double> {
    auto it = p.rates.find(n);
    return it == p.rates.end() ? std::nullopt : std::optional<double>(it->second);
  };
  if (auto pre = rate("FEC_PRE_BER"); pre && *pre > kSwitchPreFecBerWarn) {
    Finding f = base(p, "sonic_fec_pre_ber", Layer::kPhysical);
    f.severity = *pre > kSwitchPreFecBerError ? Severity::kError : Severity::kWarn;
    f.message = subject_of(p) + ": pre-FEC BER " + format_g3(*pre) + ", above " + format_g3(kSwitchPreFecBerWarn) +
                ": the link depends on FEC to carry frames and is degrading";
    f.evidence.push_back(Evidence::number("FEC_PRE_BER", *pre, "ratio", imp.source).expect(kSwitchPreFecBerWarn, "<= 1e-6"));
    f.action = "Clean or reseat the optic and cable of " + p.port + "; replace it if the BER stays";
    out.push_back(std::move(f));
  }
  if (auto post = rate("FEC_POST_BER"); post && *post > kSwitchPostFecBerError) {
    Finding f = base(p, "sonic_fec_post_ber", Layer::kPhysical);
    f.severity = Severity::kError;
    f.message = subject_of(p) + ": post-FEC BER " + format_g3(*post) + ", above 1e-12: FEC no longer corrects "
                "every error, frames are lost";
    f.evidence.push_back(Evidence::number("FEC_POST_BER", *post, "ratio", imp.source).expect(kSwitchPostFecBerError, "<= 1e-12"));
    f.action = "Replace the optic or cable of " + p.port;
    out.push_back(std::move(f));
  }
}

nlohmann::json port_json(const SonicIntfPort& p) {
  nlohmann::json counters = nlohmann::json::object(), deltas = nlohmann::json::object(),
                 rates = nlohmann::json::object();
  for (const auto& [k, c] : p.counters) {
    counters[k] = c.last;
    if (c.samples > 1) deltas[k] = c.last >= c.first ? nlohmann::json(c.last - c.first) : nlohmann::json(nullptr);
  }
  for (const auto& [k, v] : p.rates) rates[k] = v;
  nlohmann::json j = {{"switch", p.host}, {"port", p.port}, {"state", p.state}, {"counters", counters}, {"rates", rates}};
  if (!deltas.empty()) j["deltas"] = deltas;
  return j;
}

}  // namespace

std::vector<Finding> sonic_intf_counters_findings(const SonicIntfImport& imp) {
  std::vector<Finding> out;
  for (const auto& p : imp.ports) {
    state_finding(out, imp, p);
    counter_finding(out, imp, p, "sonic_port_errors",
                    {"RX_ERR", "TX_ERR", "Jabbers Received", "Fragments Received", "Undersize Received"},
                    "frames with errors (FCS/CRC, runts, jabbers) on this link: a bad cable, optic or port",
                    "Look at `show interfaces counters fec-stats` and the optic (`show interfaces transceiver eeprom --dom " +
                        p.port + "`); clean or replace the cable");
    counter_finding(out, imp, p, "sonic_port_overruns", {"RX_OVR", "TX_OVR", "Overruns Received"},
                    "frames lost because the port's buffer overflowed",
                    "Check the traffic into " + p.port + " (an incast) and its PFC/buffer configuration");
    drop_finding(out, imp, p);
    counter_finding(out, imp, p, "sonic_fec_uncorrectable", {"FEC_UNCORR"},
                    "codewords FEC could not correct, each a lost frame",
                    "Clean or reseat the optic and cable of " + p.port + "; replace it if the count still rises");
    ber_findings(out, imp, p);
  }
  return out;
}

nlohmann::json sonic_intf_counters_data(const SonicIntfImport& imp) {
  nlohmann::json ports = nlohmann::json::array();
  size_t down = 0, with_errors = 0, uncorr = 0;
  for (const auto& p : imp.ports) {
    ports.push_back(port_json(p));
    down += p.state == "D";
    auto has = [&p](const char* n) { auto it = p.counters.find(n); return it != p.counters.end() && it->second.last > 0; };
    with_errors += has("RX_ERR") || has("TX_ERR");
    uncorr += has("FEC_UNCORR");
  }
  return {{"ports", ports},
          {"summary",
           {{"ports", imp.ports.size()}, {"tables", imp.tables}, {"detailed_blocks", imp.detailed_blocks},
            {"period_s", imp.period_s ? nlohmann::json(*imp.period_s) : nlohmann::json(nullptr)},
            {"since", imp.cached_time}, {"ports_down", down}, {"ports_with_errors", with_errors},
            {"ports_with_fec_uncorrectable", uncorr}}}};
}

}  // namespace fabdiag
