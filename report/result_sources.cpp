#include "report/result_sources.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

#include "report/humanize.h"
#include "report/matrix_links.h"
#include "report/result_json.h"

namespace fabdiag::report_detail {

namespace {

// Throws MalformedMember for j[key] of type `got` where `expected` belongs.
[[noreturn]] void wrong_type(const char* key, const char* expected, const nlohmann::json& got) {
  throw MalformedMember(std::string(key) + ": expected " + expected + ", got " + got.type_name());
}

}  // namespace

std::optional<double> number_at(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  if (!it->is_number()) wrong_type(key, "a number", *it);
  const double v = it->get<double>();
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

std::string string_at(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return "";
  if (!it->is_string()) wrong_type(key, "a string", *it);
  return it->get<std::string>();
}

const nlohmann::json& array_at(const nlohmann::json& j, const char* key) {
  static const nlohmann::json kEmpty = nlohmann::json::array();
  if (!j.is_object()) return kEmpty;
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return kEmpty;
  if (!it->is_array()) wrong_type(key, "a list", *it);
  return *it;
}

std::vector<std::string> strings_at(const nlohmann::json& j, const char* key) {
  std::vector<std::string> out;
  for (const auto& s : array_at(j, key)) {
    if (s.is_null()) continue;
    if (!s.is_string()) wrong_type((std::string(key) + "[]").c_str(), "a list of strings", s);
    out.push_back(s.get<std::string>());
  }
  return out;
}

std::vector<Evidence> evidence_at(const nlohmann::json& j, const char* key) {
  std::vector<Evidence> out;
  for (const auto& e : array_at(j, key)) {
    if (!e.is_object()) continue;
    Evidence ev;
    ev.metric = string_at(e, "metric");
    ev.value = number_at(e, "value");
    ev.value_text = string_at(e, "value_text");
    ev.unit = string_at(e, "unit");
    ev.threshold = number_at(e, "threshold");
    ev.threshold_text = string_at(e, "threshold_text");
    ev.source = string_at(e, "source");
    ev.at_least = e.contains("at_least") && e["at_least"].is_boolean() && e["at_least"].get<bool>();
    out.push_back(std::move(ev));
  }
  return out;
}

std::string link_name(const std::string& a, const std::string& b) { return a + "<->" + b; }

std::optional<double> margin_of(const std::optional<double>& measured, const std::optional<double>& expected,
                                Outcome status) {
  if (!measured || !expected || *expected == 0) return std::nullopt;
  const double r = (*measured / *expected - 1) * 100;
  return status == Outcome::kFail && r > 0 ? -r : r;  // failed above its limit: an "at most" check
}

namespace {

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// Whether link subject "a<->b" has `host` at one end.
bool link_touches(const std::string& subject, const std::string& host) {
  const size_t at = subject.find("<->");
  return at != std::string::npos && (subject.substr(0, at) == host || subject.substr(at + 3) == host);
}

Verdict make_verdict(size_t src, std::string scope, std::string subject, std::string check, Outcome status) {
  Verdict v;
  v.source = src;
  v.scope = std::move(scope);
  v.subject = std::move(subject);
  v.check = std::move(check);
  v.status = status;
  return v;
}

void set_measure(Verdict& v, std::optional<double> measured, std::optional<double> expected, std::string unit) {
  v.measured = measured;
  v.expected = expected;
  v.unit = std::move(unit);
  v.margin_pct = margin_of(measured, expected, v.status);
}

Curve& curve_for(ReportModel& m, const std::string& collective) {
  for (auto& c : m.curves)
    if (c.collective == collective) return c;
  m.curves.push_back(Curve{collective, {}, {}});
  return m.curves.back();
}

void add_series(ReportModel& m, const std::string& collective, CurveSeries s) {
  if (collective.empty() || s.points.empty()) return;
  std::sort(s.points.begin(), s.points.end(),
            [](const CurvePoint& a, const CurvePoint& b) { return a.size_bytes < b.size_bytes; });
  curve_for(m, collective).series.push_back(std::move(s));
}

// ---- pairwise ----

struct PairwiseRead {
  Heatmap map;
  std::optional<double> fleet_median;
  std::optional<double> reference;  // R: data.reference_bytes_per_s, else the fleet median
  std::string reference_source;
};

// A cell above this is no bandwidth a pair of hosts reaches (100 TB/s): a unit mistake or damage.
constexpr double kMaxBytesPerS = 1e14;

// The damage of one matrix, told in errors[] once per kind (a 1500-host matrix has 2.25
// million cells): rows missing or short, cells that are no bandwidth.
struct MatrixDamage {
  std::vector<std::string> rows;  // "row 3 (node04): 2 of 7 cells"
  size_t bad_cells = 0;
  std::string first_bad;  // "node05 -> node06 = -5e+09"

  void report(ReportModel& m, size_t src, size_t n_rows, const std::vector<std::string>& hosts) const {
    const std::string& file = m.sources[src].file;
    const size_t n = hosts.size();
    if (n_rows < n)
      m.errors.push_back({src, make_error(ErrorCode::kParse, "pairwise matrix_bytes_per_s has " + std::to_string(n_rows) +
                                                                 " rows for " + std::to_string(n) + " hosts: row " + std::to_string(n_rows) +
                                                                 " (" + hosts[n_rows] + ")" + (n - n_rows > 1 ? " and after" : "") +
                                                                 " missing, those hosts' sends not measured", file)});
    if (!rows.empty()) {
      std::string list;
      for (size_t k = 0; k < rows.size() && k < 5; ++k) list += (k ? "; " : "") + rows[k];
      if (rows.size() > 5) list += "; ... " + std::to_string(rows.size() - 5) + " more";
      m.errors.push_back({src, make_error(ErrorCode::kParse, "pairwise matrix_bytes_per_s: " + std::to_string(rows.size()) +
                                                                 " row(s) not read whole (" + list + "); their missing cells are not measured", file)});
    }
    if (bad_cells > 0)
      m.errors.push_back({src, make_error(ErrorCode::kParse, "pairwise matrix_bytes_per_s: " + std::to_string(bad_cells) +
                                                                 " cell(s) not a bandwidth (negative, not finite or above 1e14 bytes/s), first " +
                                                                 first_bad + "; not read", file)});
  }
};

// Stores cell (i, j) when it is a bandwidth; else counts it as damage.
void put_cell(PairwiseRead& r, MatrixDamage& dmg, size_t i, size_t j, double v) {
  const size_t n = r.map.hosts.size();
  if (i == j) return;
  if (std::isfinite(v) && v >= 0 && v <= kMaxBytesPerS) {
    r.map.cells[i * n + j] = v;
    return;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  if (dmg.bad_cells++ == 0) dmg.first_bad = r.map.hosts[i] + " -> " + r.map.hosts[j] + " = " + text;
}

// R of the analysis: data.reference_bytes_per_s (a triage screen: pair_reference_bytes_per_s);
// a document written before it was recorded gives it through an outlier's value / ratio, else
// the fleet median is taken.
void set_reference(PairwiseRead& r, const nlohmann::json& d) {
  if (d.is_object() && d.contains("reference_bytes_per_s")) {
    r.reference = number_at(d, "reference_bytes_per_s");
    r.reference_source = string_at(d, "reference_source");
    if (r.reference_source.empty()) r.reference_source = "reference";
    return;
  }
  if (auto pair_ref = number_at(d, "pair_reference_bytes_per_s")) {  // a triage screen
    r.reference = pair_ref, r.reference_source = "screen's pair reference";
    return;
  }
  r.reference = r.fleet_median, r.reference_source = "fleet median";
  for (const auto& [list, key] : {std::pair{"outlier_nodes", "median_bytes_per_s"}, std::pair{"outlier_links", "bytes_per_s"}})
    for (const auto& o : array_at(d, list)) {
      const auto value = number_at(o, key), ratio = number_at(o, "ratio");
      if (value && ratio && *ratio > 0) {
        r.reference = *value / *ratio, r.reference_source = "reference";
        return;
      }
    }
}

// `hosts` when d has none (a triage screen may leave them to the triage's data.hosts). Rows
// come as arrays, or packed by parse_result_json() (`fabdiag report`'s input). Missing or
// short rows and cells that are no bandwidth are gaps in m.errors, the rest is read.
PairwiseRead read_matrix(ReportModel& m, size_t src, const nlohmann::json& d, const std::vector<std::string>& hosts = {}) {
  PairwiseRead r;
  r.map.source = src;
  r.map.hosts = strings_at(d, "hosts");
  if (r.map.hosts.empty()) r.map.hosts = hosts;
  const size_t n = r.map.hosts.size();
  r.map.cells.assign(n * n, std::numeric_limits<double>::quiet_NaN());
  const auto& rows = array_at(d, "matrix_bytes_per_s");
  MatrixDamage dmg;
  for (size_t i = 0; i < n && i < rows.size(); ++i) {
    const auto& row = rows[i];
    const bool packed = is_packed_row(row);
    const size_t size = packed ? packed_row_size(row) : row.is_array() ? row.size() : 0;
    if (size < n) dmg.rows.push_back("row " + std::to_string(i) + " (" + r.map.hosts[i] + "): " + std::to_string(size) + " of " + std::to_string(n) + " cells");
    for (size_t j = 0; j < n && j < size; ++j) {
      if (packed) {
        if (auto v = packed_row_at(row, j)) put_cell(r, dmg, i, j, *v);
      } else if (row[j].is_number()) {
        put_cell(r, dmg, i, j, row[j].get<double>());
      }
    }
  }
  if (n > 0) dmg.report(m, src, rows.size(), r.map.hosts);
  for (const auto& o : array_at(d, "outlier_nodes")) r.map.suspect_hosts.push_back(string_at(o, "host"));
  for (const auto& l : array_at(d, "outlier_links")) {
    auto hs = strings_at(l, "hosts");
    if (hs.size() == 2) r.map.suspect_links.emplace_back(hs[0], hs[1]);
  }
  r.fleet_median = number_at(d, "fleet_median_bytes_per_s");
  set_reference(r, d);
  const auto size = number_at(d, "size_bytes");
  r.map.title = "Pair bandwidth, " + std::to_string(n) + " nodes" +
                (size && *size > 0 ? ", " + format_bytes_iec(*size) + " per pair" : "");
  return r;
}

// Node verdicts from the medians and outliers. The link verdicts, one per measured pair: a
// MatrixLinks over heatmaps[heatmap] (the caller's copy of r.map), made when visited.
void pairwise_verdicts(ReportModel& m, size_t src, const nlohmann::json& d, const PairwiseRead& r,
                       std::optional<size_t> heatmap) {
  const auto& h = r.map;
  const auto medians = d.contains("node_median_bytes_per_s") ? d["node_median_bytes_per_s"] : nlohmann::json::object();
  std::vector<std::pair<std::vector<std::string>, std::string>> inconclusive;
  for (const auto& i : array_at(d, "inconclusive")) inconclusive.emplace_back(strings_at(i, "hosts"), string_at(i, "reason"));
  for (const auto& host : h.hosts) {
    Verdict v = make_verdict(src, "node", host, "node median pair bandwidth", Outcome::kPass);
    set_measure(v, number_at(medians, host.c_str()), r.reference, "bytes/s");
    v.reason = "median over its partners, vs the " + r.reference_source;
    if (!v.measured) v.status = Outcome::kNotChecked, v.reason = "not measured in any pair";
    for (const auto& o : array_at(d, "outlier_nodes")) {
      if (string_at(o, "host") != host) continue;
      const auto ratio = number_at(o, "ratio");
      v.status = Outcome::kFail;
      set_measure(v, v.measured, r.reference, "bytes/s");
      v.reason = "slow node: " + (ratio ? format_sig(*ratio, 3) : std::string("?")) + " of the " + r.reference_source + " over " +
                 format_sig(number_at(o, "partners").value_or(0)) + " partners";
      v.evidence.push_back(Evidence::number("median pair bandwidth", v.measured, "bytes/s", "pairwise matrix")
                               .expect(v.expected, "the " + r.reference_source));
    }
    for (const auto& [hosts, why] : inconclusive)
      if (hosts.size() == 1 && hosts[0] == host && v.status != Outcome::kFail) v.status = Outcome::kNotChecked, v.reason = why;
    m.nodes.push_back(std::move(v));
  }
  if (!heatmap) return;
  MatrixLinks links;
  links.source = src;
  links.heatmap = *heatmap;
  links.before = m.links.size();
  links.reference = r.reference;
  links.reference_source = r.reference_source;
  links.pair_ratio = number_at(d, "pair_ratio").value_or(links.pair_ratio);
  links.slow = h.suspect_links;
  for (const auto& o : array_at(d, "outlier_nodes")) links.slow_nodes.push_back(string_at(o, "host"));
  for (auto& [hosts, why] : inconclusive)
    if (hosts.size() == 1) links.unsure_nodes.emplace_back(hosts[0], std::move(why));
    else if (hosts.size() >= 2) links.inconclusive.emplace_back(std::move(hosts), std::move(why));
  m.matrix_links.push_back(std::move(links));
}

// The failing links of `src` in `m` as chains of `layer`, in the links' order.
void chain_failed_links(ReportModel& m, size_t src, const std::string& layer) {
  std::vector<LinkRef> failed;
  for_each_link_outline(m, [&](const LinkOutline& o) {
    const size_t from = o.ref.block == LinkRef::kStored ? m.links[o.ref.i].source : m.matrix_links[o.ref.block].source;
    if (from == src && o.status == Outcome::kFail) failed.push_back(o.ref);
  });
  for (const auto& v : link_verdicts(m, failed)) {
    const bool explained = std::any_of(m.matrix_links.begin(), m.matrix_links.end(), [&](const MatrixLinks& b) {
      return b.source == src && std::any_of(b.slow_nodes.begin(), b.slow_nodes.end(),
                                            [&](const std::string& h) { return link_touches(v.subject, h); });
    });
    if (!explained) m.chains.push_back(SuspectChain{src, "link", v.subject, layer, v.evidence, v.reason});  // the node's chain covers it
  }
}

// ---- accept ----

// Failing checks of `subject` named in its verdict (reason, evidence, the first measure).
void explain_from_checks(Verdict& v, const std::vector<Verdict>& checks, size_t src) {
  std::string failing;
  for (const auto& c : checks) {
    if (c.source != src || c.subject != v.subject || c.status != Outcome::kFail) continue;
    failing += (failing.empty() ? "" : ", ") + c.check;
    if (!v.measured && c.measured) set_measure(v, c.measured, c.expected, c.unit);
    v.evidence.insert(v.evidence.end(), c.evidence.begin(), c.evidence.end());
  }
  if (v.reason.empty()) v.reason = failing.empty() ? "" : "failed: " + failing;
}

}  // namespace

void read_accept(ReportModel& m, size_t src, const nlohmann::json& data) {
  for (const auto& c : array_at(data, "checks")) {
    if (!c.is_object()) continue;
    std::string scope = string_at(c, "scope");
    if (scope != "node" && scope != "link") scope = "cluster";
    Verdict v = make_verdict(src, scope, string_at(c, "subject"), string_at(c, "check"),
                             parse_outcome(string_at(c, "status")).value_or(Outcome::kNotChecked));
    set_measure(v, number_at(c, "measured"), number_at(c, "expected"), string_at(c, "unit"));
    if (auto margin = number_at(c, "margin_pct")) v.margin_pct = margin;
    v.evidence = evidence_at(c, "evidence");
    v.reason = string_at(c, "reason");
    m.checks.push_back(std::move(v));
  }
  for (const auto& n : array_at(data, "nodes")) {
    if (!n.is_object()) continue;
    Verdict v = make_verdict(src, "node", string_at(n, "host"), "node",
                             parse_outcome(string_at(n, "status")).value_or(Outcome::kNotChecked));
    v.reason = string_at(n, "reason");
    explain_from_checks(v, m.checks, src);
    m.nodes.push_back(std::move(v));
  }
  if (data.contains("pairwise") && data["pairwise"].is_object()) {
    PairwiseRead r = read_matrix(m, src, data["pairwise"]);
    if (!r.map.hosts.empty()) m.heatmaps.push_back(std::move(r.map));
  }
  for (const auto& b : array_at(data, "bench")) read_bench(m, src, b, m.sources[src].file);
  auto chain_failures = [&](const std::vector<Verdict>& list, const char* kind) {
    for (const auto& v : list)
      if (v.source == src && v.status == Outcome::kFail)
        m.chains.push_back(SuspectChain{src, kind, v.subject, "", v.evidence, v.reason});
  };
  chain_failures(m.nodes, "node");
  std::vector<Verdict> links;
  for (const auto& c : m.checks)
    if (c.source == src && c.scope == "link" && c.status == Outcome::kFail) links.push_back(c);
  chain_failures(links, "link");
  for (auto& h : m.heatmaps) {
    if (h.source != src) continue;
    for (const auto& v : m.nodes)
      if (v.source == src && v.status == Outcome::kFail && !contains(h.suspect_hosts, v.subject)) h.suspect_hosts.push_back(v.subject);
    for (const auto& l : links) {
      const size_t at = l.subject.find("<->");
      if (at != std::string::npos) h.suspect_links.emplace_back(l.subject.substr(0, at), l.subject.substr(at + 3));
    }
  }
}

void read_pairwise(ReportModel& m, size_t src, const nlohmann::json& data) {
  PairwiseRead r = read_matrix(m, src, data);
  std::optional<size_t> heatmap;
  if (!r.map.hosts.empty()) heatmap = m.heatmaps.size(), m.heatmaps.push_back(r.map);
  pairwise_verdicts(m, src, data, r, heatmap);
  for (const auto& v : m.nodes)
    if (v.source == src && v.status == Outcome::kFail) m.chains.push_back(SuspectChain{src, "node", v.subject, "L2", v.evidence, v.reason});
  chain_failed_links(m, src, "L2");
}

void read_triage(ReportModel& m, size_t src, const nlohmann::json& data) {
  std::vector<std::string> hosts = strings_at(data, "hosts");
  std::vector<std::string> suspect_nodes;
  std::vector<std::pair<std::string, std::string>> suspect_links;
  const size_t first_link = m.links.size();
  std::optional<size_t> screen;  // the screen's heatmap (index) and its links (the last matrix_links)
  if (data.contains("pairwise") && data["pairwise"].is_object() && data["pairwise"].contains("matrix_bytes_per_s")) {
    PairwiseRead r = read_matrix(m, src, data["pairwise"], hosts);
    screen = m.heatmaps.size();
    m.heatmaps.push_back(r.map);
    pairwise_verdicts(m, src, data["pairwise"], r, screen);
    m.nodes.erase(std::remove_if(m.nodes.begin(), m.nodes.end(), [&](const Verdict& v) { return v.source == src; }),
                  m.nodes.end());  // the walk's verdict, not the screen's, judges nodes
    m.matrix_links.back().cleared_by_walk = true;  // the screen's outliers pass: the walk decides
  }
  for (const auto& s : array_at(data, "suspects")) {
    const auto who = strings_at(s, "hosts");
    if (who.empty()) continue;
    const bool link = string_at(s, "kind") == "link" && who.size() == 2;
    SuspectChain c{src, link ? "link" : "node", link ? link_name(who[0], who[1]) : who[0], string_at(s, "layer"),
                   evidence_at(s, "evidence"), string_at(s, "action")};
    if (link) suspect_links.emplace_back(who[0], who[1]);
    else suspect_nodes.push_back(who[0]);
    m.chains.push_back(std::move(c));
  }
  const bool undecided = m.sources[src].partial && suspect_nodes.empty() && suspect_links.empty();
  std::vector<std::pair<std::string, std::string>> not_judged, cleared;
  for (const auto& x : array_at(data, "not_judged")) not_judged.emplace_back(string_at(x, "subject"), string_at(x, "reason"));
  for (const auto& x : array_at(data, "cleared")) cleared.emplace_back(string_at(x, "subject"), string_at(x, "reason"));
  for (const auto& [h, why] : not_judged)
    if (!contains(hosts, h)) hosts.push_back(h);
  for (const auto& host : hosts) {
    Verdict v = make_verdict(src, "node", host, "node", undecided ? Outcome::kNotChecked : Outcome::kPass);
    v.reason = undecided ? "the walk was cut before its decision" : "not named by the walk";
    for (const auto& [h, why] : cleared)
      if (h == host) v.reason = why;
    for (const auto& [h, why] : not_judged)
      if (h == host) v.status = Outcome::kNotChecked, v.reason = why;
    for (const auto& c : m.chains)
      if (c.source == src && c.kind == "node" && c.subject == host)
        v.status = Outcome::kFail, v.evidence = c.evidence, v.reason = "suspect" + (c.layer.empty() ? "" : " (" + c.layer + ")") + ": " + c.action;
    m.nodes.push_back(std::move(v));
  }
  for (const auto& [a, b] : suspect_links) {
    bool found = false;
    if (screen && matrix_has_pair(m, m.matrix_links.back(), a, b))
      m.matrix_links.back().suspects.emplace_back(a, b), found = true;
    for (size_t i = first_link; i < m.links.size(); ++i)
      if (m.links[i].subject == link_name(a, b) || m.links[i].subject == link_name(b, a))
        m.links[i].status = Outcome::kFail, m.links[i].reason = "suspect link", found = true;
    if (!found) {
      Verdict v = make_verdict(src, "link", link_name(a, b), "link", Outcome::kFail);
      v.reason = "suspect link";
      m.links.push_back(std::move(v));
    }
  }
  if (screen) {
    Heatmap& map = m.heatmaps[*screen];
    map.suspect_hosts = suspect_nodes;
    map.suspect_links = suspect_links;
    map.title = "Triage screen: " + map.title;
  }
  for (const auto& b : array_at(data, "bench")) read_bench(m, src, b, m.sources[src].file);
}

void read_bench(ReportModel& m, size_t src, const nlohmann::json& data, const std::string& label) {
  const auto& tables = array_at(data, "tables");
  std::vector<const nlohmann::json*> list;
  if (!tables.empty())
    for (const auto& t : tables) list.push_back(&t);
  else
    list.push_back(&data);
  for (const nlohmann::json* t : list) {
    const std::string coll = string_at(*t, "collective");
    CurveSeries s{src, label + (number_at(*t, "ranks") ? " (" + format_sig(*number_at(*t, "ranks")) + " ranks)" : ""), {}};
    double wrong = 0;
    bool rows = false;
    for (const auto& r : array_at(*t, "results")) {
      const auto size = number_at(r, "size_bytes");
      const auto busbw = number_at(r, "busbw_bytes_per_s");
      if (size && busbw && *size > 0) s.points.push_back({*size, *busbw});
      wrong += number_at(r, "wrong_elements").value_or(0);
      rows = true;
    }
    if (rows && !coll.empty()) {
      Verdict v = make_verdict(src, "cluster", coll, "results correct (wrong elements)", wrong > 0 ? Outcome::kFail : Outcome::kPass);
      set_measure(v, wrong, 0.0, "count");
      v.margin_pct = std::nullopt;
      v.reason = wrong > 0 ? "the collective returned wrong elements" : "every element checked was right";
      m.checks.push_back(std::move(v));
    }
    add_series(m, coll, std::move(s));
  }
}

void read_baseline_diff(ReportModel& m, size_t src, const nlohmann::json& data, const std::string& label) {
  const double tolerance = number_at(data, "tolerance").value_or(0.1);
  const double k = number_at(data, "spread_k").value_or(3.5);
  const auto suspects = strings_at(data, "suspect_hosts");
  std::map<std::string, CurveSeries> current;
  for (const auto& r : array_at(data, "rows")) {
    const std::string status = string_at(r, "status");
    const bool drift = r.contains("drift") && r["drift"].is_boolean() && r["drift"].get<bool>();
    const std::string severity = string_at(r, "severity");
    Outcome o = status == "regression" || (drift && !severity.empty() && severity != "info") ? Outcome::kFail
                : status == "missing" ? Outcome::kNotChecked : Outcome::kPass;
    const auto ref = number_at(r, "baseline_bytes_per_s"), cur = number_at(r, "current_bytes_per_s");
    const auto spread = number_at(r, "spread_bytes_per_s");
    Verdict v;
    if (string_at(r, "kind") == "pair") {
      const bool directed = r.contains("directed") && r["directed"].is_boolean() && r["directed"].get<bool>();
      v = make_verdict(src, "link", link_name(string_at(r, "host_a"), string_at(r, "host_b")),
                       directed ? "pair bandwidth vs baseline (" + string_at(r, "host_a") + " sends)" : "pair bandwidth vs baseline", o);
    } else {
      const std::string coll = string_at(r, "collective"), scope = string_at(r, "scope");
      const auto size = number_at(r, "size_bytes").value_or(0);
      v = make_verdict(src, scope.empty() ? "cluster" : "node", scope.empty() ? coll : scope,
                       "busbw " + coll + " " + format_bytes_iec(size) + " vs baseline", o);
      if (ref && size > 0) {
        const double low = std::min(*ref * (1 - tolerance), spread ? *ref - k * *spread : *ref * (1 - tolerance));
        curve_for(m, coll).band.push_back({size, std::max(0.0, low), spread ? *ref + k * *spread : *ref});
      }
      if (cur && size > 0) {
        auto& s = current[coll];
        s.source = src;
        s.label = label + " (current vs baseline)";
        s.points.push_back({size, *cur});
      }
    }
    set_measure(v, cur, ref, "bytes/s");
    v.reason = status + (drift ? ", drifting" : "") +
               (number_at(r, "ratio") ? "; ratio " + format_sig(*number_at(r, "ratio"), 3) : "") +
               (spread ? "; spread " + format_gbytes_per_s(*spread) : "") + "; tolerance " + format_sig(tolerance * 100) + "%";
    v.evidence.push_back(Evidence::number(v.scope == "link" ? "bytes/s now" : "busbw now", cur, "bytes/s", label).expect(ref, "baseline median of the last runs"));
    m.checks.push_back(std::move(v));
  }
  for (auto& c : m.curves)
    std::sort(c.band.begin(), c.band.end(), [](const BandPoint& a, const BandPoint& b) { return a.size_bytes < b.size_bytes; });
  for (auto& [coll, s] : current) add_series(m, coll, std::move(s));
  for (const auto& host : suspects) {
    Verdict v = make_verdict(src, "node", host, "node vs baseline", Outcome::kFail);
    v.reason = "every pair touching it regressed";
    for (const auto& c : m.checks)
      if (c.source == src && c.scope == "link" && c.status == Outcome::kFail &&
          link_touches(c.subject, host))
        v.evidence.insert(v.evidence.end(), c.evidence.begin(), c.evidence.end());
    m.chains.push_back(SuspectChain{src, "node", host, "L2", v.evidence, v.reason});
    m.nodes.push_back(std::move(v));
  }
}

}  // namespace fabdiag::report_detail
