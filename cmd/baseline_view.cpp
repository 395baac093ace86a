#include "cmd/baseline_view.h"

#include <cstdio>

#include "core/text.h"
#include "report/humanize.h"

namespace fabdiag::cmd {

namespace {

using baseline::BaselineDiff;
using baseline::DiffRow;
using baseline::DiffStatus;
using baseline::percent_text;

// Pair rows beyond this many are shown in the table only when not ok (JSON keeps them all).
constexpr size_t kMaxPairRowsShown = 50;

std::string sizes_text(const std::vector<uint64_t>& sizes) {
  if (sizes.empty()) return "-";
  if (sizes.size() == 1) return format_bytes_iec(static_cast<double>(sizes.front()));
  return format_bytes_iec(static_cast<double>(sizes.front())) + ".." +
         format_bytes_iec(static_cast<double>(sizes.back())) + " (" + std::to_string(sizes.size()) + ")";
}

std::string hosts_text(const std::vector<std::string>& hosts) {
  if (hosts.empty()) return "-";
  if (hosts.size() <= 8) return std::to_string(hosts.size()) + " (" + join(hosts) + ")";
  return std::to_string(hosts.size()) + " (" + hosts.front() + " .. " + hosts.back() + ")";
}

std::string status_text(const DiffRow& r) {
  std::string s;
  switch (r.status) {
    case DiffStatus::kOk: s = r.within_noise ? "ok (within noise)" : "ok"; break;
    case DiffStatus::kImprovement: s = "improvement"; break;
    case DiffStatus::kRegression: s = std::string("REGRESSION (") + to_string(*r.severity) + ")"; break;
    case DiffStatus::kMissing: s = "missing in " + r.missing_in; break;
  }
  if (r.drift) s += ", drift " + percent_text(r.trend->relative_slope) + "/run";
  return s;
}

std::string bw_text(const std::optional<double>& v) { return v ? format_gbytes_per_s(*v) : "-"; }

std::string runs_text(const DiffRow& r) { return r.runs == 0 ? "-" : std::to_string(r.runs); }

Table collective_table(const BaselineDiff& d) {
  Table t;
  t.title = "collectives: busbw per message size";
  t.columns = {"collective", "size", "reference", "runs", "spread", "current", "ratio", "status"};
  t.align = {Align::kLeft, Align::kRight, Align::kRight, Align::kRight, Align::kRight, Align::kRight, Align::kRight,
             Align::kLeft};
  for (const auto& r : d.rows) {
    if (r.kind != DiffRow::Kind::kCollective) continue;
    t.rows.push_back({r.collective, format_bytes_iec(static_cast<double>(r.size_bytes)), bw_text(r.baseline_bytes_per_s),
                      runs_text(r), bw_text(r.spread_bytes_per_s), bw_text(r.current_bytes_per_s),
                      r.ratio ? percent_text(*r.ratio) : "-", status_text(r)});
  }
  return t;
}

Table pair_table(const BaselineDiff& d) {
  Table t;
  t.title = "pairs: bandwidth per host pair";
  t.columns = {"pair", "reference", "runs", "spread", "current", "ratio", "status"};
  t.align = {Align::kLeft, Align::kRight, Align::kRight, Align::kRight, Align::kRight, Align::kRight, Align::kLeft};
  size_t pairs = 0;
  for (const auto& r : d.rows) pairs += r.kind == DiffRow::Kind::kPair;
  size_t hidden = 0;
  for (const auto& r : d.rows) {
    if (r.kind != DiffRow::Kind::kPair) continue;
    if (pairs > kMaxPairRowsShown && r.status == DiffStatus::kOk && !r.drift) {
      ++hidden;
      continue;
    }
    t.rows.push_back({r.subject(), bw_text(r.baseline_bytes_per_s), runs_text(r), bw_text(r.spread_bytes_per_s),
                      bw_text(r.current_bytes_per_s), r.ratio ? percent_text(*r.ratio) : "-", status_text(r)});
  }
  if (hidden > 0)
    t.notes.push_back(std::to_string(hidden) + " pairs within tolerance not shown (--format json lists all)");
  return t;
}

std::string reference_rule(const BaselineDiff& d) {
  char k[32];
  std::snprintf(k, sizeof k, "%g", d.spread_k);
  if (d.fleet)
    return "fleet baseline: median of the nodes kept, spread 1.4826 x MAD across them; flagged when also beyond " +
           std::string(k) + " x spread";
  std::string s = d.history_runs <= d.last_runs
                      ? "median of all " + std::to_string(d.history_runs) + " saved run(s)"
                      : "median of the last " + std::to_string(d.last_runs) + " of " +
                            std::to_string(d.history_runs) + " saved runs";
  if (d.history_runs < baseline::kMinSpreadRuns)
    return s + "; fewer than " + std::to_string(baseline::kMinSpreadRuns) +
           " runs: spread unknown, tolerance only, at most warn (save more with --append)";
  return s + "; flagged when also beyond " + std::string(k) + " x spread (1.4826 x MAD)";
}

}  // namespace

nlohmann::json baseline_info_json(const baseline::BaselineInfo& i, long history_runs) {
  nlohmann::json j = {{"name", i.name},
                      {"path", i.path},
                      {"schema", i.schema},
                      {"hosts", i.hosts},
                      {"started_at", i.started_at},
                      {"saved_at", i.saved_at},
                      {"source", i.source},
                      {"collectives", i.collectives},
                      {"sizes_bytes", i.sizes_bytes},
                      {"pair_hosts", i.pair_hosts},
                      {"pairs_measured", i.pairs_measured}};
  if (history_runs >= 0) j["history_runs"] = history_runs;
  return j;
}

std::vector<std::pair<std::string, std::string>> baseline_info_fields(const baseline::BaselineInfo& i) {
  std::vector<std::pair<std::string, std::string>> f = {
      {"name", i.name},
      {"file", i.path},
      {"schema", i.schema},
      {"hosts", hosts_text(i.hosts)},
      {"run started", i.started_at.empty() ? "-" : i.started_at},
      {"saved", i.saved_at.empty() ? "-" : i.saved_at},
      {"saved from", i.source.empty() ? "-" : i.source == "-" ? "standard input" : i.source},
  };
  if (!i.collectives.empty()) {
    f.emplace_back("collectives", join(i.collectives));
    f.emplace_back("sizes", sizes_text(i.sizes_bytes));
  }
  if (i.pair_hosts > 0)
    f.emplace_back("pairwise", std::to_string(i.pair_hosts) + " hosts, " + std::to_string(i.pairs_measured) +
                                   " matrix cells measured");
  return f;
}

Table baseline_listing_table(const std::vector<baseline::BaselineInfo>& baselines) {
  Table t;
  t.columns = {"name", "schema", "hosts", "run started", "saved", "measures"};
  for (const auto& i : baselines) {
    std::string measures;
    if (!i.collectives.empty()) measures = join(i.collectives) + " " + sizes_text(i.sizes_bytes);
    if (i.pair_hosts > 0)
      measures += (measures.empty() ? "" : "; ") + std::string("pairs of ") + std::to_string(i.pair_hosts) + " hosts";
    t.rows.push_back({i.name, i.schema, std::to_string(i.hosts.size()), i.started_at.empty() ? "-" : i.started_at,
                      i.saved_at.empty() ? "-" : i.saved_at, measures});
  }
  return t;
}

Section diff_comparison_section(const BaselineDiff& d, const baseline::BaselineInfo& bi,
                                const std::string& current_file, const std::string& current_schema,
                                const std::string& current_started) {
  Section s;
  s.title = "comparison";
  size_t noise = 0, drift = 0;
  for (const auto& r : d.rows) {
    noise += r.within_noise;
    drift += r.drift;
  }
  s.fields = {
      {"baseline", bi.path + " (" + bi.schema + ", run " + (bi.started_at.empty() ? "?" : bi.started_at) + ")"},
      {"current", current_file + " (" + current_schema + ", run " + (current_started.empty() ? "?" : current_started) +
                      ")"},
      {"reference", reference_rule(d)},
      {"tolerance", percent_text(d.tolerance) + ": warn below " + percent_text(1 - d.tolerance) +
                        " of the reference, error below " + percent_text(1 - 2 * d.tolerance)},
      {"compared", std::to_string(d.rows.size() - d.count(DiffStatus::kMissing)) + " values: " +
                       std::to_string(d.count(DiffStatus::kOk)) + " ok (" + std::to_string(noise) +
                       " within noise), " + std::to_string(d.count(DiffStatus::kRegression)) + " regression, " +
                       std::to_string(d.count(DiffStatus::kImprovement)) + " improvement, " +
                       std::to_string(drift) + " drifting; " + std::to_string(d.count(DiffStatus::kMissing)) +
                       " on one side only"},
  };
  if (!d.suspect_hosts.empty()) s.fields.emplace_back("triage suspects", join(d.suspect_hosts));
  if (!d.hosts_only_in_baseline.empty()) s.fields.emplace_back("hosts gone", join(d.hosts_only_in_baseline));
  if (!d.hosts_only_in_current.empty()) s.fields.emplace_back("hosts new", join(d.hosts_only_in_current));
  return s;
}

std::vector<Section> diff_table_sections(const BaselineDiff& d) {
  std::vector<Section> out;
  // One section per table, so each gets its own heading and spacing.
  for (Table t : {collective_table(d), pair_table(d)}) {
    if (t.rows.empty() && t.notes.empty()) continue;
    Section ts;
    ts.title = t.title;
    t.title.clear();
    ts.tables.push_back(std::move(t));
    out.push_back(std::move(ts));
  }
  return out;
}

Section fleet_outlier_section(const baseline::FleetBaseline& fb) {
  Section s;
  s.title = "outliers left out";
  if (fb.outliers.empty()) {
    s.lines.push_back("none: every node's value is within a modified z of 3.5 of the fleet median");
    return s;
  }
  Table t;
  t.columns = {"node", "collective", "size", "busbw", "fleet median", "modified z"};
  t.align = {Align::kLeft, Align::kLeft, Align::kRight, Align::kRight, Align::kRight, Align::kRight};
  for (const auto& o : fb.outliers) {
    char z[32];
    std::snprintf(z, sizeof z, "%.1f", o.modified_z);
    t.rows.push_back({o.host, o.collective, format_bytes_iec(static_cast<double>(o.size_bytes)),
                      format_gbytes_per_s(o.bytes_per_s), format_gbytes_per_s(o.median_bytes_per_s), z});
  }
  s.tables.push_back(std::move(t));
  return s;
}

}  // namespace fabdiag::cmd
