#include "baseline/diff.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

#include "baseline/rollup.h"
#include "core/stats.h"
#include "core/text.h"

namespace fabdiag::baseline {

namespace {

std::string list_head(const std::vector<std::string>& items, size_t max_items = 5) {
  return join_first(items, max_items, ", ", "... (" + std::to_string(items.size()) + " in all)");
}

// Judges a row whose both sides are present against the reference values `ref` (the key's
// last K saved values) and the pooled relative spread of its kind (0 = none): diff.h's rules.
void judge(DiffRow& row, const std::vector<double>& ref, double resolution, double pooled, const DiffOptions& o,
           bool fleet) {
  row.runs = ref.size();
  double b = median(ref).value_or(0);
  double c = *row.current_bytes_per_s;
  row.baseline_bytes_per_s = b;
  if (row.runs >= kMinSpreadRuns) row.spread_bytes_per_s = std::max(robust_sigma(ref), pooled * b);
  row.status = DiffStatus::kOk;
  if (b <= 0) return;  // below the source's print resolution: no ratio to judge
  row.ratio = c / b;
  double noise = row.spread_bytes_per_s ? o.spread_k * *row.spread_bytes_per_s *
                                              std::sqrt(1 + 1.5707963267948966 / static_cast<double>(row.runs))
                                        : 0;
  bool beyond_rounding = std::fabs(c - b) > resolution;
  bool below = c < (1 - o.tolerance) * b && beyond_rounding;
  if (below && b - c > noise) {
    row.status = DiffStatus::kRegression;
    bool error = row.spread_bytes_per_s && c < (1 - 2 * o.tolerance) * b && b - c > 2 * noise;
    row.severity = error ? Severity::kError : Severity::kWarn;
  } else if (c > (1 + o.tolerance) * b && beyond_rounding && c - b > noise) {
    row.status = DiffStatus::kImprovement;
  } else {
    row.within_noise = below;
  }
  if (fleet) return;
  std::vector<double> seq = ref;
  seq.push_back(c);
  row.trend = fit_trend(seq, pooled * b);
  row.drift = row.trend && is_drift(*row.trend, o.spread_k) && row.status != DiffStatus::kRegression;
}

// The pooled relative noise of `kind` series (of `scope` for collectives): robust_sigma of the
// night-to-night steps of all of them (each over its series' median) over sqrt(2), from the
// series with >= kMinSpreadRuns of their last K values; trend-free, so a fleet-wide drift does
// not widen the band; 0 when none.
double pooled_spread(const History& h, Series::Kind kind, const std::string& scope, size_t last_runs) {
  std::vector<double> steps;
  for (const auto& s : h.series) {
    if (s.kind != kind || (kind == Series::Kind::kCollective && s.scope != scope)) continue;
    auto v = s.last_values(h.fleet ? 0 : last_runs);
    double mid = median(v).value_or(0);
    if (v.size() < kMinSpreadRuns || mid <= 0) continue;
    for (size_t i = 1; i < v.size(); ++i) steps.push_back((v[i] - v[i - 1]) / mid);
  }
  return robust_sigma(steps) / std::sqrt(2.0);
}

using CollectiveKey = std::pair<std::string, uint64_t>;

// First point per key; later duplicates become gaps.
std::map<CollectiveKey, const CollectivePoint*> index_points(const std::vector<CollectivePoint>& pts,
                                                             const std::string& label,
                                                             std::vector<Error>& gaps) {
  std::map<CollectiveKey, const CollectivePoint*> m;
  for (const auto& p : pts) {
    auto [it, inserted] = m.emplace(CollectiveKey{p.collective, p.size_bytes}, &p);
    if (!inserted)
      gaps.push_back(make_error(ErrorCode::kInvalidArgument,
                                "second " + p.collective + " result at " + std::to_string(p.size_bytes) +
                                    " B (table " + std::to_string(p.table_index) +
                                    ") ignored; the first one is compared",
                                label));
  }
  return m;
}

// Notes when a collective was measured under different conditions in the history's latest run
// (series of `scope`) and now.
void note_param_differences(const History& h, const std::string& scope, const std::vector<CollectivePoint>& cur,
                            const DiffOptions& o, std::vector<Finding>& findings) {
  std::map<std::string, const Series*> first_base;
  std::map<std::string, const CollectivePoint*> first_cur;
  for (const auto& s : h.series)
    if (s.kind == Series::Kind::kCollective && s.scope == scope) first_base.emplace(s.collective, &s);
  for (const auto& p : cur) first_cur.emplace(p.collective, &p);
  for (const auto& [name, b] : first_base) {
    auto it = first_cur.find(name);
    if (it == first_cur.end()) continue;
    const CollectivePoint* c = it->second;
    std::vector<std::string> diffs;
    if (!b->backend.empty() && !c->backend.empty() && b->backend != c->backend)
      diffs.push_back("backend " + b->backend + " vs " + c->backend);
    if (!b->dtype.empty() && !c->dtype.empty() && b->dtype != c->dtype)
      diffs.push_back("dtype " + b->dtype + " vs " + c->dtype);
    if (b->ranks && c->ranks && *b->ranks != *c->ranks)
      diffs.push_back("ranks " + std::to_string(*b->ranks) + " vs " + std::to_string(*c->ranks));
    if (diffs.empty()) continue;
    Finding f;
    f.severity = Severity::kInfo;
    f.layer = Layer::kCollective;
    f.code = "baseline_params_differ";
    f.subject = name;
    f.message = name + " was measured differently in baseline '" + o.baseline_label + "' and now (" +
                list_head(diffs) + "); its ratios compare unlike runs";
    f.action = "Compare against a baseline taken with the same backend, dtype and rank count.";
    findings.push_back(std::move(f));
  }
}

// The history scope the current run's collectives are compared with (diff.h).
std::string reference_scope(const History& h, const Measurements& cur) {
  std::set<std::string> scopes;
  for (const auto& s : h.series)
    if (s.kind == Series::Kind::kCollective) scopes.insert(s.scope);
  std::string own = run_scope(cur.hosts);
  if (scopes.count(own) || scopes.empty()) return own;
  if (scopes.count("")) return "";
  return scopes.size() == 1 ? *scopes.begin() : own;
}

void diff_collectives(const History& h, const Measurements& cur, const DiffOptions& o, BaselineDiff& d) {
  const std::string scope = reference_scope(h, cur);
  auto cmap = index_points(cur.collectives, o.current_label, d.gaps);
  const double pooled = pooled_spread(h, Series::Kind::kCollective, scope, o.last_runs);
  std::map<CollectiveKey, const Series*> bmap;
  for (const auto& s : h.series)
    if (s.kind == Series::Kind::kCollective && s.scope == scope) bmap.emplace(CollectiveKey{s.collective, s.size_bytes}, &s);
  std::set<CollectiveKey> keys;
  for (const auto& [k, p] : bmap) keys.insert(k);
  for (const auto& [k, p] : cmap) keys.insert(k);
  for (const auto& k : keys) {
    DiffRow row;
    row.kind = DiffRow::Kind::kCollective;
    row.collective = k.first;
    row.size_bytes = k.second;
    row.scope = scope;
    auto bi = bmap.find(k);
    auto ci = cmap.find(k);
    if (ci != cmap.end()) row.current_bytes_per_s = ci->second->busbw_bytes_per_s;
    if (bi == bmap.end() || ci == cmap.end()) {
      if (bi != bmap.end()) row.baseline_bytes_per_s = median(bi->second->last_values(o.last_runs));
      row.status = DiffStatus::kMissing;
      row.missing_in = bi == bmap.end() ? "baseline" : "current";
      d.gaps.push_back(make_error(
          ErrorCode::kNotFound,
          row.collective + " at " + std::to_string(row.size_bytes) + " B was measured only in " +
              (bi == bmap.end() ? "the current result" : "baseline '" + o.baseline_label + "'") +
              "; not compared",
          bi == bmap.end() ? o.current_label : "baseline " + o.baseline_label));
    } else {
      judge(row, bi->second->last_values(h.fleet ? 0 : o.last_runs),
            std::max(bi->second->resolution_bytes_per_s, ci->second->resolution_bytes_per_s), pooled, o, h.fleet);
    }
    d.rows.push_back(std::move(row));
  }
  note_param_differences(h, scope, cur.collectives, o, d.findings);
}

// Hosts named by the history's pair series, sorted.
std::set<std::string> pair_hosts(const History& h) {
  std::set<std::string> hosts;
  for (const auto& s : h.series)
    if (s.kind == Series::Kind::kPair) {
      hosts.insert(s.host_a);
      hosts.insert(s.host_b);
    }
  return hosts;
}

// Hosts on one side only become gaps; returns the hosts on both sides, sorted.
std::vector<std::string> common_hosts(const std::set<std::string>& bh, const PairMatrix& cur, const DiffOptions& o,
                                      BaselineDiff& d) {
  std::set<std::string> ch(cur.hosts.begin(), cur.hosts.end());
  std::vector<std::string> common;
  for (const auto& h : bh) {
    if (ch.count(h)) common.push_back(h);
    else d.hosts_only_in_baseline.push_back(h);
  }
  for (const auto& h : ch)
    if (!bh.count(h)) d.hosts_only_in_current.push_back(h);
  for (const auto& h : d.hosts_only_in_baseline)
    d.gaps.push_back(make_error(ErrorCode::kNotFound,
                                "host " + h + " is in baseline '" + o.baseline_label +
                                    "' but not in the current pairwise result; its pairs are not compared",
                                o.current_label));
  for (const auto& h : d.hosts_only_in_current)
    d.gaps.push_back(make_error(ErrorCode::kNotFound,
                                "host " + h + " is not in baseline '" + o.baseline_label +
                                    "'; its pairs have nothing to compare with",
                                "baseline " + o.baseline_label));
  return common;
}

void diff_pairs(const History& h, const PairMatrix& cur, const DiffOptions& o, BaselineDiff& d) {
  std::vector<std::string> common = common_hosts(pair_hosts(h), cur, o, d);
  const double pooled = pooled_spread(h, Series::Kind::kPair, "", o.last_runs);
  bool directed = cur.directed();
  for (const auto& s : h.series) directed = directed || (s.kind == Series::Kind::kPair && s.directed);
  std::vector<std::string> missing_now, missing_before;
  for (size_t i = 0; i < common.size(); ++i) {
    for (size_t j = directed ? 0 : i + 1; j < common.size(); ++j) {
      if (i == j) continue;
      DiffRow row;
      row.kind = DiffRow::Kind::kPair;
      row.host_a = common[i];
      row.host_b = common[j];
      row.directed = directed;
      const Series* s = h.find_pair(row.host_a, row.host_b, directed);
      row.current_bytes_per_s = cur.value(row.host_a, row.host_b, directed);
      if (!s && !row.current_bytes_per_s) continue;  // never measured
      if (!s || !row.current_bytes_per_s) {
        if (s) row.baseline_bytes_per_s = median(s->last_values(o.last_runs));
        row.status = DiffStatus::kMissing;
        row.missing_in = s ? "current" : "baseline";
        (s ? missing_now : missing_before).push_back(row.subject());
      } else {
        judge(row, s->last_values(h.fleet ? 0 : o.last_runs), 0.0, pooled, o, h.fleet);
      }
      d.rows.push_back(std::move(row));
    }
  }
  if (!missing_now.empty())
    d.gaps.push_back(make_error(ErrorCode::kNotFound,
                                std::to_string(missing_now.size()) + " pair(s) of baseline '" + o.baseline_label +
                                    "' not measured now: " + list_head(missing_now),
                                o.current_label));
  if (!missing_before.empty())
    d.gaps.push_back(make_error(ErrorCode::kNotFound,
                                std::to_string(missing_before.size()) + " pair(s) not measured in baseline '" +
                                    o.baseline_label + "': " + list_head(missing_before),
                                "baseline " + o.baseline_label));
}

nlohmann::json opt_json(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace

std::string percent_text(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", fraction * 100.0);
  return buf;
}

const char* to_string(DiffStatus s) {
  switch (s) {
    case DiffStatus::kOk: return "ok";
    case DiffStatus::kRegression: return "regression";
    case DiffStatus::kImprovement: return "improvement";
    case DiffStatus::kMissing: return "missing";
  }
  return "ok";
}

std::string DiffRow::subject() const {
  if (kind == Kind::kCollective) return collective + " " + std::to_string(size_bytes) + " B";
  return host_a + (directed ? "->" : "<->") + host_b;
}

size_t BaselineDiff::count(DiffStatus status) const {
  return static_cast<size_t>(
      std::count_if(rows.begin(), rows.end(), [&](const DiffRow& r) { return r.status == status; }));
}

Status validate_tolerance(double tolerance) {
  if (!(tolerance > 0 && tolerance < 0.5))
  {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", tolerance);
    return make_error(ErrorCode::kInvalidArgument,
                      std::string("tolerance ") + buf +
                          " is out of range: give a fraction above 0 and below 0.5 (0.10 = 10 %)",
                      "--tolerance");
  }
  return Ok{};
}

Status validate_diff_options(const DiffOptions& options) {
  if (auto st = validate_tolerance(options.tolerance); !st) return st;
  if (options.last_runs < 1)
    return make_error(ErrorCode::kInvalidArgument, "give at least 1 run to compare with", "--last");
  if (!(options.spread_k > 0 && std::isfinite(options.spread_k)))
    return make_error(ErrorCode::kInvalidArgument, "the spread multiplier must be a number above 0 (3 = 3 sigma)",
                      "--spread-k");
  return Ok{};
}

Result<BaselineDiff> diff_history(const History& history, const Measurements& current, const DiffOptions& options) {
  if (auto st = validate_diff_options(options); !st) return st.error();
  BaselineDiff d;
  d.tolerance = options.tolerance;
  d.last_runs = options.last_runs;
  d.spread_k = options.spread_k;
  d.history_runs = history.runs.size();
  d.fleet = history.fleet;
  d.suspect_hosts = current.suspect_hosts;
  d.baseline_label = options.baseline_label;
  d.current_label = options.current_label;
  d.baseline_schema = history.runs.empty() ? "" : history.runs.back().schema;
  d.current_schema = current.schema;
  bool base_collectives = false, base_pairs = false;
  for (const auto& s : history.series) (s.kind == Series::Kind::kCollective ? base_collectives : base_pairs) = true;
  bool collectives = base_collectives && !current.collectives.empty();
  bool pairs = base_pairs && current.pairwise;
  if (!collectives && !pairs)
    return make_error(ErrorCode::kInvalidArgument,
                      "nothing to compare: baseline '" + options.baseline_label + "' (" + d.baseline_schema +
                          ") and the current result (" + current.schema +
                          ") share neither collective results nor a pairwise matrix",
                      options.current_label);
  if (collectives) diff_collectives(history, current, options, d);
  else if (base_collectives || !current.collectives.empty())
    d.gaps.push_back(make_error(ErrorCode::kNotFound,
                                std::string("collective results exist only in ") +
                                    (current.collectives.empty() ? "the baseline" : "the current result") +
                                    "; not compared",
                                current.collectives.empty() ? options.current_label
                                                            : "baseline " + options.baseline_label));
  if (pairs) diff_pairs(history, *current.pairwise, options, d);
  else if (base_pairs || current.pairwise)
    d.gaps.push_back(make_error(ErrorCode::kNotFound,
                                std::string("a pairwise matrix exists only in ") +
                                    (current.pairwise ? "the current result" : "the baseline") + "; not compared",
                                current.pairwise ? "baseline " + options.baseline_label : options.current_label));
  for (auto& f : roll_up(d, options)) d.findings.push_back(std::move(f));
  order_findings(d.findings, d.suspect_hosts);
  return d;
}

Result<BaselineDiff> diff_measurements(const Measurements& baseline, const Measurements& current,
                                       const DiffOptions& options) {
  History h;
  h.name = options.baseline_label;
  append_run(h, baseline, RunRecord{"", "", "", "", baseline.schema, baseline.hosts});
  return diff_history(h, current, options);
}

void to_json(nlohmann::json& j, const BaselineDiff& d) {
  j = nlohmann::json::object();
  j["baseline"] = d.baseline_label;
  j["current"] = d.current_label;
  j["baseline_schema"] = d.baseline_schema;
  j["current_schema"] = d.current_schema;
  j["tolerance"] = d.tolerance;
  j["last_runs"] = d.last_runs;
  j["spread_k"] = d.spread_k;
  j["history_runs"] = d.history_runs;
  j["fleet"] = d.fleet;
  j["suspect_hosts"] = d.suspect_hosts;
  size_t noise = 0, drift = 0;
  for (const auto& r : d.rows) {
    noise += r.within_noise;
    drift += r.drift;
  }
  j["summary"] = {{"ok", d.count(DiffStatus::kOk)},
                  {"regression", d.count(DiffStatus::kRegression)},
                  {"improvement", d.count(DiffStatus::kImprovement)},
                  {"missing", d.count(DiffStatus::kMissing)},
                  {"within_noise", noise},
                  {"drift", drift}};
  j["hosts_only_in_baseline"] = d.hosts_only_in_baseline;
  j["hosts_only_in_current"] = d.hosts_only_in_current;
  j["rows"] = nlohmann::json::array();
  for (const auto& r : d.rows) {
    nlohmann::json row = nlohmann::json::object();
    if (r.kind == DiffRow::Kind::kCollective) {
      row["kind"] = "collective";
      row["collective"] = r.collective;
      row["size_bytes"] = r.size_bytes;
      row["scope"] = r.scope;
    } else {
      row["kind"] = "pair";
      row["host_a"] = r.host_a;
      row["host_b"] = r.host_b;
      row["directed"] = r.directed;
    }
    row["baseline_bytes_per_s"] = opt_json(r.baseline_bytes_per_s);
    row["current_bytes_per_s"] = opt_json(r.current_bytes_per_s);
    row["ratio"] = opt_json(r.ratio);
    row["runs"] = r.runs;
    row["spread_bytes_per_s"] = opt_json(r.spread_bytes_per_s);
    row["within_noise"] = r.within_noise;
    row["relative_slope_per_run"] = r.trend ? nlohmann::json(r.trend->relative_slope) : nlohmann::json(nullptr);
    row["drift"] = r.drift;
    row["status"] = to_string(r.status);
    if (!r.missing_in.empty()) row["missing_in"] = r.missing_in;
    if (r.severity) row["severity"] = fabdiag::to_string(*r.severity);
    j["rows"].push_back(std::move(row));
  }
}

}  // namespace fabdiag::baseline
