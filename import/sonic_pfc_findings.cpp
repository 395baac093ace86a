// Findings and JSON data of a `show pfc counters` import (import/sonic_pfc.h;
// docs/fabric.md#sonic-pfc-findings).
#include "core/text.h"
#include "import/common.h"
#include "import/sonic_pfc.h"

namespace fabdiag {
namespace {

// 93845 -> "93,845".
std::string with_commas(uint64_t v) {
  std::string s = std::to_string(v), out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i && (s.size() - i) % 3 == 0) out += ',';
    out += s[i];
  }
  return out;
}

struct Priority {
  int prio = 0;
  uint64_t count = 0;          // the last sample's count
  std::optional<uint64_t> delta;  // last - first, with two samples or more
};

std::vector<Priority> paused(const PfcCounts& c) {
  std::vector<Priority> out;
  for (int i = 0; i < 8; ++i) {
    const auto& last = c.last[static_cast<size_t>(i)];
    if (!last || *last == 0) continue;
    Priority p{i, *last, std::nullopt};
    const auto& first = c.first[static_cast<size_t>(i)];
    if (c.samples > 1) p.delta = first && *last >= *first ? *last - *first : *last;
    out.push_back(p);
  }
  return out;
}

Finding pause_finding(const SonicPfcImport& imp, const PfcPort& port, bool rx, const std::vector<Priority>& pr) {
  const PfcCounts& c = rx ? port.rx : port.tx;
  Finding f;
  f.layer = Layer::kTransport;
  f.code = rx ? "pfc_pause_received" : "pfc_pause_sent";
  f.subject = port.port;
  uint64_t worst = 0;
  bool rising = false, still = c.samples > 1;
  std::vector<std::string> parts;
  std::string src = line_source(imp.source, c.last_line);
  for (const auto& p : pr) {
    worst = std::max(worst, p.count);
    rising = rising || (p.delta && *p.delta > 0);
    std::string part = with_commas(p.count) + (parts.empty() ? " PFC pause frames" : "") + " on priority " +
                       std::to_string(p.prio);
    if (p.delta) part += " (+" + with_commas(*p.delta) + " since the first sample)";
    parts.push_back(part);
    auto e = Evidence::number("PFC" + std::to_string(p.prio) + (rx ? " rx" : " tx") + " pause frames",
                              static_cast<double>(p.count), "count", src);
    e.expect(static_cast<double>(kPfcPauseWarn), "< " + with_commas(kPfcPauseWarn) + " per priority");
    f.evidence.push_back(std::move(e));
  }
  std::string since = imp.cached_time.empty() ? "" : " since " + imp.cached_time;
  f.message = port.port + (rx ? " received " : " sent ") + join_prose(parts) + since + ": " +
              (rx ? "its link partner keeps pausing the switch on " : "the switch keeps pausing its link partner on ") +
              (pr.size() == 1 ? "that priority" : "those priorities");
  if (still && rising) {
    f.severity = Severity::kError;
    f.message += ", and the count still rises between samples (a pause storm going on)";
  } else if (still) {
    f.severity = Severity::kInfo;
    f.message += "; no new frames between the samples: old pauses, not now";
  } else {
    f.severity = worst >= kPfcPauseWarn ? Severity::kWarn : Severity::kInfo;
    f.message += " (one cumulative snapshot: no rate; a second sample tells whether it still rises)";
  }
  f.action = rx ? "Look at the device on " + port.port + " (a host NIC stuck or slow to drain its receive buffers pauses "
                  "without end); check `show pfcwd stats` for a storm the watchdog detected, sample again to see if it rises"
                : "Find what congests the switch towards " + port.port + " (incast, a slow egress); sample again to see "
                  "if it rises";
  return f;
}

nlohmann::json counts_json(const std::array<std::optional<uint64_t>, 8>& v) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& x : v) a.push_back(x ? nlohmann::json(*x) : nlohmann::json(nullptr));
  return a;
}

nlohmann::json delta_json(const PfcCounts& c) {
  nlohmann::json a = nlohmann::json::array();
  for (size_t i = 0; i < 8; ++i)
    a.push_back(c.first[i] && c.last[i] && *c.last[i] >= *c.first[i] ? nlohmann::json(*c.last[i] - *c.first[i])
                                                                    : nlohmann::json(nullptr));
  return a;
}

}  // namespace

std::vector<Finding> sonic_pfc_findings(const SonicPfcImport& imp) {
  std::vector<Finding> out;
  for (const auto& p : imp.ports) {
    if (auto rx = paused(p.rx); !rx.empty()) out.push_back(pause_finding(imp, p, true, rx));
    if (auto tx = paused(p.tx); !tx.empty()) out.push_back(pause_finding(imp, p, false, tx));
  }
  return out;
}

nlohmann::json sonic_pfc_data(const SonicPfcImport& imp) {
  nlohmann::json ports = nlohmann::json::array();
  size_t rx_ports = 0, tx_ports = 0, rx_pfc = 0, tx_pfc = 0;
  for (const auto& p : imp.ports) {
    nlohmann::json j = {{"port", p.port}};
    j["rx"] = p.rx.samples ? counts_json(p.rx.last) : nlohmann::json(nullptr);
    j["tx"] = p.tx.samples ? counts_json(p.tx.last) : nlohmann::json(nullptr);
    if (p.rx.samples > 1) j["rx_delta"] = delta_json(p.rx);
    if (p.tx.samples > 1) j["tx_delta"] = delta_json(p.tx);
    rx_ports += p.rx.samples > 0;
    tx_ports += p.tx.samples > 0;
    rx_pfc += !paused(p.rx).empty();
    tx_pfc += !paused(p.tx).empty();
    ports.push_back(std::move(j));
  }
  nlohmann::json summary = {{"rx_ports_listed", rx_ports}, {"tx_ports_listed", tx_ports},
                            {"ports_with_rx_pfc", rx_pfc}, {"ports_with_tx_pfc", tx_pfc},
                            {"rx_samples", imp.rx_tables}, {"tx_samples", imp.tx_tables}};
  if (!imp.cached_time.empty()) summary["since"] = imp.cached_time;
  return {{"ports", ports}, {"summary", summary}};
}

}  // namespace fabdiag
