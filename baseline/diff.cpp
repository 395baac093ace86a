#include "baseline/diff.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/text.h"

namespace fabdiag::baseline {

namespace {

std::string percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", fraction * 100.0);
  return buf;
}

std::string list_head(const std::vector<std::string>& items, size_t max_items = 5) {
  return join_first(items, max_items, ", ", "... (" + std::to_string(items.size()) + " in all)");
}

// Classifies one row whose both values are present.
void judge(DiffRow& row, double tolerance, double resolution) {
  double b = *row.baseline_bytes_per_s;
  double c = *row.current_bytes_per_s;
  if (b <= 0) {  // below the source's print resolution: no ratio to judge
    row.status = DiffStatus::kOk;
    return;
  }
  row.ratio = c / b;
  bool beyond_rounding = std::fabs(c - b) > resolution;
  if (c < (1 - tolerance) * b && beyond_rounding) {
    row.status = DiffStatus::kRegression;
    row.severity = c < (1 - 2 * tolerance) * b ? Severity::kError : Severity::kWarn;
  } else if (c > (1 + tolerance) * b && beyond_rounding) {
    row.status = DiffStatus::kImprovement;
  } else {
    row.status = DiffStatus::kOk;
  }
}

Finding finding_for(const DiffRow& row, const DiffOptions& o) {
  bool collective = row.kind == DiffRow::Kind::kCollective;
  bool regression = row.status == DiffStatus::kRegression;
  Finding f;
  f.severity = regression ? *row.severity : Severity::kInfo;
  f.layer = collective ? Layer::kCollective : Layer::kLocalization;
  f.code = std::string(collective ? "busbw" : "pair_bandwidth") + (regression ? "_regression" : "_improvement");
  f.subject = row.subject();
  std::string what = collective ? "busbw of " + row.collective + " at " + std::to_string(row.size_bytes) + " B"
                                : "bandwidth between " + row.host_a + (row.directed ? " -> " : " and ") + row.host_b;
  double ratio = *row.ratio;
  f.message = what + " is " + percent(ratio) + " of baseline '" + o.baseline_label + "' (" +
              (regression ? "drop " + percent(1 - ratio) : "gain " + percent(ratio - 1)) +
              ", tolerance " + percent(o.tolerance) + ")";
  std::string metric = collective ? "busbw" : "pair bandwidth";
  f.evidence.push_back(
      Evidence::number("baseline " + metric, *row.baseline_bytes_per_s, "bytes/s", "baseline " + o.baseline_label));
  f.evidence.push_back(Evidence::number("current " + metric, *row.current_bytes_per_s, "bytes/s", o.current_label));
  f.evidence.push_back(Evidence::number("ratio current/baseline", ratio, "ratio", "")
                           .expect(regression ? 1 - o.tolerance : 1 + o.tolerance,
                                   regression ? "regression below" : "improvement above"));
  f.evidence.push_back(Evidence::number("tolerance", o.tolerance, "fraction", ""));
  if (!regression) {
    f.action = "If the change is expected (upgrade, tuning), record it: fabdiag baseline save --force " +
               o.baseline_label + " FILE.";
  } else if (collective) {
    f.action = "Re-run the same benchmark to rule out noise; if it persists, run fabdiag triage to "
               "localize the slow node or link, and compare the NCCL transport (NET/IB vs Socket, GDR) "
               "with the baseline run.";
  } else {
    f.action = "Re-measure this pair alone and pair each end with a known-good node to tell a bad link "
               "from a bad node; then read both ends' port counters (fabdiag counters).";
  }
  return f;
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

// Notes when a collective was measured under different conditions on the two sides.
void note_param_differences(const std::vector<CollectivePoint>& base, const std::vector<CollectivePoint>& cur,
                            const DiffOptions& o, std::vector<Finding>& findings) {
  std::map<std::string, const CollectivePoint*> first_base, first_cur;
  for (const auto& p : base) first_base.emplace(p.collective, &p);
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

void diff_collectives(const Measurements& base, const Measurements& cur, const DiffOptions& o,
                      BaselineDiff& d) {
  auto bmap = index_points(base.collectives, "baseline " + o.baseline_label, d.gaps);
  auto cmap = index_points(cur.collectives, o.current_label, d.gaps);
  std::set<CollectiveKey> keys;
  for (const auto& [k, p] : bmap) keys.insert(k);
  for (const auto& [k, p] : cmap) keys.insert(k);
  for (const auto& k : keys) {
    DiffRow row;
    row.kind = DiffRow::Kind::kCollective;
    row.collective = k.first;
    row.size_bytes = k.second;
    auto bi = bmap.find(k);
    auto ci = cmap.find(k);
    if (bi != bmap.end()) row.baseline_bytes_per_s = bi->second->busbw_bytes_per_s;
    if (ci != cmap.end()) row.current_bytes_per_s = ci->second->busbw_bytes_per_s;
    if (bi == bmap.end() || ci == cmap.end()) {
      row.status = DiffStatus::kMissing;
      row.missing_in = bi == bmap.end() ? "baseline" : "current";
      d.gaps.push_back(make_error(
          ErrorCode::kNotFound,
          row.collective + " at " + std::to_string(row.size_bytes) + " B was measured only in " +
              (bi == bmap.end() ? "the current result" : "baseline '" + o.baseline_label + "'") +
              "; not compared",
          bi == bmap.end() ? o.current_label : "baseline " + o.baseline_label));
    } else {
      judge(row, o.tolerance,
            std::max(bi->second->resolution_bytes_per_s, ci->second->resolution_bytes_per_s));
    }
    d.rows.push_back(std::move(row));
  }
  note_param_differences(base.collectives, cur.collectives, o, d.findings);
}

void diff_pairs(const PairMatrix& base, const PairMatrix& cur, const DiffOptions& o, BaselineDiff& d) {
  std::set<std::string> bh(base.hosts.begin(), base.hosts.end());
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
  bool directed = base.directed() || cur.directed();
  std::vector<std::string> missing_now, missing_before;
  for (size_t i = 0; i < common.size(); ++i) {
    for (size_t j = directed ? 0 : i + 1; j < common.size(); ++j) {
      if (i == j) continue;
      DiffRow row;
      row.kind = DiffRow::Kind::kPair;
      row.host_a = common[i];
      row.host_b = common[j];
      row.directed = directed;
      row.baseline_bytes_per_s = base.value(row.host_a, row.host_b, directed);
      row.current_bytes_per_s = cur.value(row.host_a, row.host_b, directed);
      if (!row.baseline_bytes_per_s && !row.current_bytes_per_s) continue;  // never measured
      if (!row.baseline_bytes_per_s || !row.current_bytes_per_s) {
        row.status = DiffStatus::kMissing;
        row.missing_in = row.baseline_bytes_per_s ? "current" : "baseline";
        (row.baseline_bytes_per_s ? missing_now : missing_before).push_back(row.subject());
      } else {
        judge(row, o.tolerance, 0.0);
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

Result<BaselineDiff> diff_measurements(const Measurements& baseline, const Measurements& current,
                                       const DiffOptions& options) {
  if (auto st = validate_tolerance(options.tolerance); !st) return st.error();
  BaselineDiff d;
  d.tolerance = options.tolerance;
  d.baseline_label = options.baseline_label;
  d.current_label = options.current_label;
  d.baseline_schema = baseline.schema;
  d.current_schema = current.schema;
  bool collectives = !baseline.collectives.empty() && !current.collectives.empty();
  bool pairs = baseline.pairwise && current.pairwise;
  if (!collectives && !pairs)
    return make_error(ErrorCode::kInvalidArgument,
                      "nothing to compare: baseline '" + options.baseline_label + "' (" + baseline.schema +
                          ") and the current result (" + current.schema +
                          ") share neither collective results nor a pairwise matrix",
                      options.current_label);
  if (collectives) diff_collectives(baseline, current, options, d);
  else if (!baseline.collectives.empty() || !current.collectives.empty())
    d.gaps.push_back(make_error(ErrorCode::kNotFound,
                                std::string("collective results exist only in ") +
                                    (current.collectives.empty() ? "the baseline" : "the current result") +
                                    "; not compared",
                                current.collectives.empty() ? options.current_label
                                                            : "baseline " + options.baseline_label));
  if (pairs) diff_pairs(*baseline.pairwise, *current.pairwise, options, d);
  else if (baseline.pairwise || current.pairwise)
    d.gaps.push_back(make_error(ErrorCode::kNotFound,
                                std::string("a pairwise matrix exists only in ") +
                                    (current.pairwise ? "the current result" : "the baseline") + "; not compared",
                                current.pairwise ? "baseline " + options.baseline_label : options.current_label));
  for (const auto& row : d.rows)
    if (row.status == DiffStatus::kRegression || row.status == DiffStatus::kImprovement)
      d.findings.push_back(finding_for(row, options));
  return d;
}

void to_json(nlohmann::json& j, const BaselineDiff& d) {
  j = nlohmann::json::object();
  j["baseline"] = d.baseline_label;
  j["current"] = d.current_label;
  j["baseline_schema"] = d.baseline_schema;
  j["current_schema"] = d.current_schema;
  j["tolerance"] = d.tolerance;
  j["summary"] = {{"ok", d.count(DiffStatus::kOk)},
                  {"regression", d.count(DiffStatus::kRegression)},
                  {"improvement", d.count(DiffStatus::kImprovement)},
                  {"missing", d.count(DiffStatus::kMissing)}};
  j["hosts_only_in_baseline"] = d.hosts_only_in_baseline;
  j["hosts_only_in_current"] = d.hosts_only_in_current;
  j["rows"] = nlohmann::json::array();
  for (const auto& r : d.rows) {
    nlohmann::json row = nlohmann::json::object();
    if (r.kind == DiffRow::Kind::kCollective) {
      row["kind"] = "collective";
      row["collective"] = r.collective;
      row["size_bytes"] = r.size_bytes;
    } else {
      row["kind"] = "pair";
      row["host_a"] = r.host_a;
      row["host_b"] = r.host_b;
      row["directed"] = r.directed;
    }
    row["baseline_bytes_per_s"] = opt_json(r.baseline_bytes_per_s);
    row["current_bytes_per_s"] = opt_json(r.current_bytes_per_s);
    row["ratio"] = opt_json(r.ratio);
    row["status"] = to_string(r.status);
    if (!r.missing_in.empty()) row["missing_in"] = r.missing_in;
    if (r.severity) row["severity"] = fabdiag::to_string(*r.severity);
    j["rows"].push_back(std::move(row));
  }
}

}  // namespace fabdiag::baseline
