#include "cmd/triage_view.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "core/text.h"
#include "report/humanize.h"

namespace fabdiag::cmd {

namespace {

std::string mbps(const nlohmann::json& v) {
  if (!v.is_number()) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v.get<double>() / 1e6);
  return buf;
}

// One evidence line of a suspect: the metric, its value in MB/s or its unit, the limit.
std::string evidence_line(const nlohmann::json& e) {
  std::string line = "    - " + e.value("metric", "");
  if (e.contains("value") && e["value"].is_number()) {
    double v = e["value"].get<double>();
    std::string unit = e.value("unit", "");
    line += ": " + (unit == "bytes/s" ? format_bytes_per_s(v) : format_sig(v, 6) + (unit.empty() ? "" : " " + unit));
  }
  if (e.contains("value_text")) line += " (" + e.value("value_text", "") + ")";
  if (e.contains("threshold") && e["threshold"].is_number() && e.value("unit", "") == "bytes/s")
    line += "; limit " + format_bytes_per_s(e["threshold"].get<double>()) +
            (e.contains("threshold_text") ? " (" + e.value("threshold_text", "") + ")" : "");  // what the limit is
  return line;
}

// Suspects with their evidence and action, what was cleared, what could not be judged.
Section verdict_section(const Envelope& env) {
  const nlohmann::json& d = env.data;
  Section verdict;
  verdict.title = "Verdict";
  const auto suspects = d.value("suspects", nlohmann::json::array());
  if (suspects.empty()) {
    const bool inconclusive = !d.value("inconclusive", nlohmann::json::array()).empty();
    verdict.lines.push_back(env.partial           ? "No verdict: the walk was cut before its decision (see PARTIAL above)."
                            : !env.errors.empty() ? "No suspect named, but some steps failed (see NOT READ below)."
                            : inconclusive      ? "No verdict: some nodes could not be judged (see inconclusive below)."
                                                : "No suspect: every node and link performed like its peers.");
  }
  for (const auto& s : suspects) {
    std::string who;
    for (const auto& h : s.value("hosts", nlohmann::json::array())) who += (who.empty() ? "" : " <-> ") + h.get<std::string>();
    const std::string kind = (s.value("dead", false) ? "dead " : "") + s.value("kind", "");
    const std::string direction = s.contains("direction") ? "  direction: " + s.value("direction", "") : "";
    verdict.lines.push_back("SUSPECT " + kind + " " + who + direction + "  (layer " + s.value("layer", "") + ")");
    for (const auto& e : s.value("evidence", nlohmann::json::array())) verdict.lines.push_back(evidence_line(e));
    verdict.lines.push_back("    -> " + s.value("action", ""));
  }
  for (const auto& c : d.value("cleared", nlohmann::json::array()))
    verdict.lines.push_back("cleared " + c.value("subject", "") + ": " + c.value("reason", ""));
  for (const auto& i : d.value("inconclusive", nlohmann::json::array()))
    verdict.lines.push_back("inconclusive: " + i.get<std::string>());
  return verdict;
}

// One unit for a rate column of a sweep: GB/s when its largest value reaches 1 GB/s, else MB/s
// (an emulated link reads "4.61", not "0.00461 GB/s"); the unit goes in the column's name.
struct RateUnit {
  double bytes_per_s = 1e9;
  const char* name = "GB/s";
};

RateUnit rate_unit(const nlohmann::json& results, const char* key) {
  double top = 0;
  for (const auto& r : results) top = std::max(top, std::fabs(r.value(key, 0.0)));
  return top >= 1e9 || top == 0 ? RateUnit{} : RateUnit{1e6, "MB/s"};
}

// A rate in `u`: two decimals (nccl-tests' way) from 1 up, three significant digits below.
std::string rate_cell(double bytes_per_s, const RateUnit& u) {
  const double v = bytes_per_s / u.bytes_per_s;
  if (v != 0 && std::fabs(v) < 1) return format_sig(v, 3);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

// The collective sweeps, one table each; nullopt when none ran.
std::optional<Section> bench_section(const nlohmann::json& d) {
  Section bench;
  bench.title = "Collectives (busbw as nccl-tests defines it)";
  for (const auto& b : d.value("bench", nlohmann::json::array())) {
    Table t;
    t.title = b.value("collective", "") + " on " + std::to_string(b.value("ranks", 0)) + " ranks";
    const auto results = b.value("results", nlohmann::json::array());
    const RateUnit alg = rate_unit(results, "algbw_bytes_per_s"), bus = rate_unit(results, "busbw_bytes_per_s");
    t.columns = {"size", "time", std::string("algbw (") + alg.name + ")", std::string("busbw (") + bus.name + ")", "wrong"};
    t.align = {Align::kRight, Align::kRight, Align::kRight, Align::kRight, Align::kRight};
    for (const auto& r : results)
      t.rows.push_back({format_bytes_iec(r.value("size_bytes", 0.0)), format_seconds(r.value("time_s", 0.0)),
                        rate_cell(r.value("algbw_bytes_per_s", 0.0), alg), rate_cell(r.value("busbw_bytes_per_s", 0.0), bus),
                        std::to_string(r.value("wrong_elements", 0))});
    if (const auto e = b.value("stopped_early", nlohmann::json()); e.is_object()) {
      std::vector<std::string> skipped;
      for (const auto& sz : e.value("sizes_not_run", nlohmann::json::array())) skipped.push_back(format_bytes_iec(sz.get<double>()));
      t.notes.push_back("stopped early after " + format_bytes_iec(e.value("size_bytes", 0.0)) + " (not run: " + join(skipped) +
                        "): " + e.value("reason", ""));
    }
    bench.tables.push_back(t);
  }
  if (bench.tables.empty()) return std::nullopt;
  return bench;
}

// The pairwise matrix with each node's median; nullopt when the screen did not run.
std::optional<Section> pairwise_section(const nlohmann::json& d, const nlohmann::json& hosts) {
  const auto& pw = d.value("pairwise", nlohmann::json::object());
  if (!pw.contains("matrix_bytes_per_s")) return std::nullopt;
  Section m;
  m.title = "Pairwise screen (MB/s per direction, concurrent round-robin pairs)";
  Table t;
  t.columns.push_back("");
  for (const auto& h : hosts) t.columns.push_back(h.get<std::string>());
  t.columns.push_back("median");
  t.align.assign(t.columns.size(), Align::kRight);
  t.align[0] = Align::kLeft;
  const auto& mat = pw["matrix_bytes_per_s"];
  const auto med = pw.value("node_median_bytes_per_s", nlohmann::json::object());
  for (size_t i = 0; i < mat.size() && i < hosts.size(); ++i) {
    std::vector<std::string> row = {hosts[i].get<std::string>()};
    for (const auto& v : mat[i]) row.push_back(mbps(v));
    row.push_back(mbps(med.value(hosts[i].get<std::string>(), nlohmann::json())));
    t.rows.push_back(row);
  }
  t.notes.push_back("median node: " + mbps(pw.value("fleet_median_bytes_per_s", nlohmann::json())) +
                    " MB/s; pair size " + format_bytes_iec(pw.value("size_bytes", 0.0)));
  m.tables.push_back(t);
  return m;
}

// The confirmation pairs, round by round; nullopt when there were none.
std::optional<Section> confirmation_section(const nlohmann::json& d) {
  const auto conf = d.value("confirmation", nlohmann::json::array());
  if (conf.empty()) return std::nullopt;
  Section c;
  c.title = "Confirmation rounds";
  Table t;
  t.columns = {"round", "pair", "role", "MB/s"};
  t.align = {Align::kRight, Align::kLeft, Align::kLeft, Align::kRight};
  for (size_t r = 0; r < conf.size(); ++r)
    for (const auto& p : conf[r])
      t.rows.push_back({std::to_string(r + 1), p["hosts"][0].get<std::string>() + " <-> " + p["hosts"][1].get<std::string>(),
                        p.value("role", ""), mbps(p.value("bytes_per_s", nlohmann::json()))});
  c.tables.push_back(t);
  return c;
}

}  // namespace

Document triage_document(const Envelope& env) {
  const nlohmann::json& d = env.data;
  Document doc;
  auto hosts = d.value("hosts", nlohmann::json::array());
  doc.title = "fabdiag triage: " + std::to_string(hosts.size()) + " nodes";
  doc.sections.push_back(verdict_section(env));
  if (auto s = bench_section(d)) doc.sections.push_back(*s);
  if (auto s = pairwise_section(d, hosts)) doc.sections.push_back(*s);
  if (auto s = confirmation_section(d)) doc.sections.push_back(*s);
  return doc;
}

}  // namespace fabdiag::cmd
