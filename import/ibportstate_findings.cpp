// Findings and JSON data of an ibportstate import (import/ibportstate.h;
// docs/fabric.md#ibportstate-findings).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "core/text.h"
#include "import/common.h"
#include "import/ibportstate.h"

namespace fabdiag {
namespace {

// "4: Active" and "Active" -> "Active".
std::string state_name(const std::string& s) {
  size_t colon = s.find(": ");
  return colon != std::string::npos && parse_u64(s.substr(0, colon)) ? s.substr(colon + 2) : s;
}

std::string subject_of(const IbPortInfo& p) {
  std::string node = p.node_kind == "Switch" ? "switch " : p.node_kind == "CA/RT" ? "CA " : "";
  return (p.host.empty() ? "" : p.host + ": ") + node + p.portid + " port " + std::to_string(p.port);
}

// 14.0625 -> "14.0625", 10 -> "10" (the lane speeds of IBTA have at most 7 digits).
std::string format_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.7g", v);
  return buf;
}

bool same_speed(double a, double b) { return std::fabs(a - b) < 1e-3; }

template <typename T>
std::vector<T> allowed(const std::vector<T>& enabled, const std::vector<T>& supported) {
  return enabled.empty() ? supported : enabled;
}

// The widest width both ends allow (the peer's set when known); 0 when none is known.
int expected_width(const IbPortInfo& p, const IbPortInfo* peer) {
  int best = 0;
  for (int w : allowed(p.width_enabled, p.width_supported)) {
    if (peer) {
      auto theirs = allowed(peer->width_enabled, peer->width_supported);
      if (!theirs.empty() && std::find(theirs.begin(), theirs.end(), w) == theirs.end()) continue;
    }
    best = std::max(best, w);
  }
  return best;
}

double expected_speed(const IbPortInfo& p, const IbPortInfo* peer) {
  double best = 0;
  for (double s : allowed(p.speed_enabled_gbps, p.speed_supported_gbps)) {
    if (peer) {
      auto theirs = allowed(peer->speed_enabled_gbps, peer->speed_supported_gbps);
      bool both = theirs.empty();
      for (double x : theirs) both = both || same_speed(x, s);
      if (!both) continue;
    }
    best = std::max(best, s);
  }
  return best;
}

Finding base(const IbPortInfo& p, const char* code, Severity sev) {
  Finding f;
  f.layer = Layer::kPhysical;
  f.code = code;
  f.severity = sev;
  f.subject = subject_of(p);
  return f;
}

// "25.78125 Gb/s", "10.3125 Gb/s (FDR10)".
std::string speed_text(const IbPortInfo& p, double gbps) {
  return format_number(gbps) + " Gb/s" + (p.fdr10_active && same_speed(gbps, kFdr10LaneGbps) ? " (FDR10)" : "");
}

// Active below what both ends enable: a warning (the peer's block is there, ibportstate's own
// rule); below what the port alone enables: information (a CA port's output holds no peer, and
// the far end may enable no more: an FDR10 or QDR switch).
void degraded(const IbportstateImport& imp, const IbPortInfo& p, const IbPortInfo* peer, std::vector<Finding>& out) {
  std::string src = line_source(imp.source, p.line);
  std::string ends = peer ? "both ends enable" : "the port enables";
  std::string no_peer = peer ? "" : " (the peer's block is not in this output: its far end may enable no more; "
                                    "query the switch port it is cabled to, whose output shows both ends)";
  Severity sev = peer ? Severity::kWarn : Severity::kInfo;
  if (int want = expected_width(p, peer); p.width_active && want > *p.width_active) {
    Finding f = base(p, peer ? "ib_port_width_degraded" : "ib_port_width_below_enabled", sev);
    f.message = f.subject + " is Active at " + std::to_string(*p.width_active) + "X while " + ends + " " +
                std::to_string(want) + "X" + (peer ? ": lanes failed to train (a bad cable, connector or port)" : no_peer);
    auto e = Evidence::number("LinkWidthActive", *p.width_active, "lanes", src);
    e.expect(want, ">= " + std::to_string(want) + "X (LinkWidthEnabled" + (peer ? " of both ends)" : ")"));
    f.evidence.push_back(std::move(e));
    f.action = peer ? "Reseat or replace the cable of " + f.subject + ", then reset the port (ibportstate ... reset) and query again"
                    : "Query the switch end (ibportstate <switch lid> <port>) to see whether both ends enable more";
    out.push_back(std::move(f));
  }
  if (double want = expected_speed(p, peer); p.speed_active_gbps && want > *p.speed_active_gbps + 1e-3) {
    Finding f = base(p, peer ? "ib_port_speed_degraded" : "ib_port_speed_below_enabled", sev);
    f.message = f.subject + " is Active at " + speed_text(p, *p.speed_active_gbps) + " per lane while " + ends + " " +
                format_number(want) + " Gb/s" + (peer ? ": the link trained down to a slower generation" : no_peer);
    auto e = Evidence::number("LinkSpeedActive", *p.speed_active_gbps, "Gb/s per lane", src);
    e.expect(want, ">= " + format_number(want) + " Gb/s (LinkSpeed[Ext]Enabled" + (peer ? " of both ends)" : ")"));
    f.evidence.push_back(std::move(e));
    f.action = peer ? "Check the cable's rating and both ends' firmware; reseat, reset the port and query again"
                    : "Query the switch end (ibportstate <switch lid> <port>) to see whether both ends enable more";
    out.push_back(std::move(f));
  }
}

void judge_port(const IbportstateImport& imp, const IbPortInfo& p, const IbPortInfo* peer, std::vector<Finding>& out) {
  std::string state = state_name(p.link_state);
  std::string src = line_source(imp.source, p.line);
  if (!state.empty() && state != "Active") {
    Finding f = base(p, "ib_port_not_active", Severity::kWarn);
    f.message = f.subject + " is " + state + (p.phys_state.empty() ? "" : " / " + state_name(p.phys_state)) +
                (state == "Down" ? ": no link" : ": up but not activated by the subnet manager");
    f.evidence.push_back(Evidence::text("LinkState", state, src).expect("Active"));
    f.action = state == "Down" ? "Check the cable and the far end of " + f.subject
                               : "Check that a subnet manager runs and sweeps (sminfo, the SM's log)";
    out.push_back(std::move(f));
    return;  // a port without a link has no active width or speed to judge
  }
  if (state == "Active") degraded(imp, p, peer, out);
  int wmax = 0, emax = 0;
  for (int w : p.width_supported) wmax = std::max(wmax, w);
  for (int w : p.width_enabled) emax = std::max(emax, w);
  if (emax && wmax > emax) {
    Finding f = base(p, "ib_port_enabled_below_supported", Severity::kInfo);
    f.message = f.subject + " enables at most " + std::to_string(emax) + "X of the " + std::to_string(wmax) +
                "X it supports: configured so (ibportstate width), not a fault of the link";
    f.evidence.push_back(Evidence::number("LinkWidthEnabled", emax, "lanes", src));
    f.action = "If not meant so: `ibportstate <lid> " + std::to_string(p.port) +
               " width 255` enables every supported width (IBA: 255 = LinkWidthSupported), then reset the link";
    out.push_back(std::move(f));
  }
}

nlohmann::json port_json(const IbPortInfo& p) {
  auto opt = [](const auto& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  return {{"role", p.role},
          {"node", p.node_kind},
          {"host", p.host},
          {"portid", p.portid},
          {"port", p.port},
          {"lid", opt(p.lid)},
          {"link_state", state_name(p.link_state)},
          {"phys_state", state_name(p.phys_state)},
          {"width", {{"supported", p.width_supported}, {"enabled", p.width_enabled}, {"active", opt(p.width_active)}}},
          {"speed_gbps",
           {{"supported", p.speed_supported_gbps},
            {"enabled", p.speed_enabled_gbps},
            {"active", opt(p.speed_active_gbps)}}},
          {"fdr10", p.mlnx_ext ? nlohmann::json{{"supported", p.fdr10_supported},
                                                {"enabled", p.fdr10_enabled},
                                                {"active", p.fdr10_active}}
                               : nlohmann::json(nullptr)},
          {"line", p.line}};
}

}  // namespace

std::vector<Finding> ibportstate_findings(const IbportstateImport& imp) {
  std::vector<Finding> out;
  for (size_t i = 0; i < imp.ports.size(); ++i) {
    const IbPortInfo& p = imp.ports[i];
    if (p.role == "peer") continue;
    // "Initial PortInfo" followed by "After PortInfo set": the state after the change is judged.
    if (i + 1 < imp.ports.size() && imp.ports[i + 1].role == "after_set") continue;
    const IbPortInfo* peer =
        i + 1 < imp.ports.size() && imp.ports[i + 1].role == "peer" && imp.ports[i + 1].host == p.host
            ? &imp.ports[i + 1]
            : nullptr;
    judge_port(imp, p, peer, out);
  }
  for (const auto& w : imp.warnings) {
    Finding f;
    f.layer = Layer::kPhysical;
    f.code = "ibportstate_warning";
    f.severity = Severity::kWarn;
    f.subject = w.host.empty() ? "ibportstate" : w.host;
    f.message = "ibportstate warned: " + w.text;
    f.evidence.push_back(Evidence::text("ibwarn", w.text, line_source(imp.source, w.line)));
    f.action = "A link running below what both ends enable: reseat or replace its cable and reset the port";
    out.push_back(std::move(f));
  }
  return out;
}

nlohmann::json ibportstate_data(const IbportstateImport& imp) {
  nlohmann::json ports = nlohmann::json::array(), warnings = nlohmann::json::array();
  size_t active = 0;
  for (const auto& p : imp.ports) {
    ports.push_back(port_json(p));
    active += state_name(p.link_state) == "Active";
  }
  for (const auto& w : imp.warnings) warnings.push_back({{"host", w.host}, {"text", w.text}, {"line", w.line}});
  std::set<std::string> degraded_ports;
  for (const auto& f : ibportstate_findings(imp))
    if (f.code == "ib_port_width_degraded" || f.code == "ib_port_speed_degraded") degraded_ports.insert(f.subject);
  nlohmann::json out = {
      {"ports", ports},
      {"warnings", warnings},
      {"summary", {{"ports", imp.ports.size()}, {"active", active}, {"degraded", degraded_ports.size()}}}};
  if (imp.repeated) out["records_repeated"] = imp.repeated;
  return out;
}

}  // namespace fabdiag
