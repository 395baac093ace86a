// Findings and JSON data of a `show pfcwd stats` import (import/sonic_pfcwd.h;
// docs/fabric.md#sonic-pfcwd-findings).
#include <map>

#include "core/text.h"
#include "import/common.h"
#include "import/sonic_pfcwd.h"

namespace fabdiag {
namespace {

std::string count_text(const std::optional<uint64_t>& v) { return v ? std::to_string(*v) : "N/A"; }

uint64_t value(const std::optional<uint64_t>& v) { return v.value_or(0); }

bool stormed_now(const PfcwdQueue& q) { return q.status == "stormed"; }

bool had_storms(const PfcwdQueue& q) { return stormed_now(q) || value(q.storms.first) > 0 || q.stormed_in_a_sample; }

// No new storm between the first and the last sample, none of them stormed.
bool quiet_between_samples(const PfcwdQueue& q) {
  return q.samples > 1 && !q.stormed_in_a_sample && q.first_detected && q.storms.first &&
         *q.first_detected == *q.storms.first;
}

std::string queue_text(const PfcwdQueue& q) {
  std::string s = "queue " + std::to_string(q.queue) + ": " +
                  (stormed_now(q) ? "stormed now, " : "") + count_text(q.storms.first) + " storm(s) detected, " +
                  count_text(q.storms.second) + " restored; " + count_text(q.tx.second) + " tx and " +
                  count_text(q.rx.second) + " rx packets dropped";
  if (stormed_now(q)) s += " (" + count_text(q.tx_last.second) + " tx in the current storm)";
  return s;
}

Finding storm_finding(const SonicPfcwdImport& imp, const std::vector<const PfcwdQueue*>& qs) {
  Finding f;
  f.layer = Layer::kPhysical;  // as the host side's pfc_storm (docs/counters.md)
  f.code = "pfc_storm";
  f.subject = qs.front()->port;
  bool now = false, quiet = true;
  std::vector<std::string> parts;
  for (const PfcwdQueue* q : qs) {
    now = now || stormed_now(*q);
    quiet = quiet && quiet_between_samples(*q);
    parts.push_back(queue_text(*q));
    std::string src = line_source(imp.source, q->last_line);
    auto e = Evidence::number("queue " + std::to_string(q->queue) + " PFC storms detected",
                              static_cast<double>(value(q->storms.first)), "count", src);
    e.expect(0, "0: a storm is a link partner pausing a lossless queue without end");
    f.evidence.push_back(std::move(e));
    f.evidence.push_back(Evidence::number("queue " + std::to_string(q->queue) + " packets dropped by the watchdog",
                                          static_cast<double>(value(q->tx.second) + value(q->rx.second)), "count",
                                          src));
  }
  f.message = "PFC watchdog on " + qs.front()->port + ": " + join_prose(parts);
  if (now) {
    f.severity = Severity::kError;
    f.message += ": a PFC storm is going on now, the watchdog drops the queue's traffic";
  } else if (quiet) {
    f.severity = Severity::kInfo;
    f.message += "; no new storm between the samples: old storms, not now";
  } else {
    f.severity = Severity::kWarn;
    f.message += "; every storm restored (totals since the watchdog started: no rate)";
  }
  f.action = "Find the device on " + qs.front()->port +
             " that keeps pausing (a host NIC whose receive path is stuck or too slow sends PFC without end); "
             "`show pfc counters` shows its pause frames per priority";
  return f;
}

Finding stopped_finding(const SonicPfcwdImport& imp, const std::vector<const PfcwdQueue*>& qs) {
  Finding f;
  f.layer = Layer::kTransport;
  f.code = "pfcwd_stopped";
  f.severity = Severity::kWarn;
  std::vector<std::string> names;
  for (const PfcwdQueue* q : qs) names.push_back(q->port + ":" + std::to_string(q->queue));
  f.subject = qs.size() == 1 ? qs.front()->port : "PFC watchdog";
  f.message = "the PFC watchdog does not watch " + join_prose(names) + " (STATUS N/A" +
              (imp.stop_command_seen ? ", after `pfcwd stop`" : "") +
              "): a PFC storm on these lossless queues would go on undetected and unbroken";
  f.evidence.push_back(Evidence::text("STATUS", "N/A", line_source(imp.source, qs.front()->last_line)));
  f.action = "Start the watchdog again (`sudo pfcwd start_default`, or `pfcwd start` for these ports) unless it "
             "was stopped on purpose";
  return f;
}

}  // namespace

std::vector<Finding> sonic_pfcwd_findings(const SonicPfcwdImport& imp) {
  std::vector<Finding> out;
  std::vector<std::string> order;
  std::map<std::string, std::vector<const PfcwdQueue*>> by_port;
  std::vector<const PfcwdQueue*> stopped;
  for (const auto& q : imp.queues) {
    if (q.status == "N/A") stopped.push_back(&q);
    if (!had_storms(q)) continue;
    auto [it, added] = by_port.try_emplace(q.port);
    if (added) order.push_back(q.port);
    it->second.push_back(&q);
  }
  for (const auto& port : order) out.push_back(storm_finding(imp, by_port[port]));
  if (!stopped.empty()) out.push_back(stopped_finding(imp, stopped));
  return out;
}

nlohmann::json sonic_pfcwd_data(const SonicPfcwdImport& imp) {
  auto num = [](const std::optional<uint64_t>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  nlohmann::json queues = nlohmann::json::array();
  size_t now = 0, storms = 0, not_watched = 0;
  for (const auto& q : imp.queues) {
    queues.push_back({{"port", q.port},
                      {"queue", q.queue},
                      {"status", q.status.empty() ? nlohmann::json(nullptr) : nlohmann::json(q.status)},
                      {"storms_detected", num(q.storms.first)},
                      {"storms_restored", num(q.storms.second)},
                      {"tx_ok", num(q.tx.first)},
                      {"tx_drop", num(q.tx.second)},
                      {"rx_ok", num(q.rx.first)},
                      {"rx_drop", num(q.rx.second)},
                      {"tx_last_ok", num(q.tx_last.first)},
                      {"tx_last_drop", num(q.tx_last.second)},
                      {"rx_last_ok", num(q.rx_last.first)},
                      {"rx_last_drop", num(q.rx_last.second)},
                      {"samples", q.samples},
                      {"stormed_in_a_sample", q.stormed_in_a_sample}});
    now += stormed_now(q);
    storms += had_storms(q);
    not_watched += q.status == "N/A";
  }
  nlohmann::json summary = {{"samples", imp.tables}, {"queues", imp.queues.size()}, {"stormed_now", now},
                            {"with_storms", storms}, {"not_watched", not_watched}};
  return {{"queues", queues}, {"summary", summary}};
}

}  // namespace fabdiag
