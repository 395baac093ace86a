#include "report/result_model.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <set>

#include "report/humanize.h"
#include "report/matrix_links.h"
#include "report/result_sources.h"

namespace fabdiag {

using namespace report_detail;

const char* to_string(Outcome o) {
  switch (o) {
    case Outcome::kPass: return "pass";
    case Outcome::kFail: return "fail";
    case Outcome::kNotChecked: return "not_checked";
  }
  return "not_checked";
}

std::optional<Outcome> parse_outcome(const std::string& s) {
  if (s == "pass") return Outcome::kPass;
  if (s == "fail") return Outcome::kFail;
  if (s == "not_checked") return Outcome::kNotChecked;
  return std::nullopt;
}

std::optional<double> Heatmap::at(size_t src, size_t dst) const {
  const size_t n = hosts.size();
  if (src == dst || src >= n || dst >= n || src * n + dst >= cells.size()) return std::nullopt;
  const double v = cells[src * n + dst];
  return std::isnan(v) ? std::nullopt : std::optional<double>(v);
}

Outcome worse(Outcome a, Outcome b) { return static_cast<int>(a) >= static_cast<int>(b) ? a : b; }

bool is_report_schema(const std::string& schema) {
  static const std::set<std::string> kKnown = {"fabdiag.bench/1", "fabdiag.pairwise/1", "fabdiag.triage/1",
                                               "fabdiag.baseline_diff/1", "fabdiag.accept/1", "fabdiag.import/1"};
  return kKnown.count(schema) > 0;
}

namespace {

// The host a finding is about: its subject's first word ("node05 mlx5_0 port 1", "node05:")
// when that is one of `hosts`; else the one host whose folder every evidence source is under
// (triage --from: "DIR/node05/ibstat.txt line 59" for subject "mlx5_5/1"); "" otherwise.
std::string subject_host(const Finding& f, const std::vector<std::string>& hosts) {
  const std::string first = f.subject.substr(0, f.subject.find_first_of(" :/,"));
  if (std::find(hosts.begin(), hosts.end(), first) != hosts.end()) return first;
  std::string found;
  for (const auto& e : f.evidence) {
    std::string in;
    for (const auto& h : hosts)
      if (e.source.find("/" + h + "/") != std::string::npos || e.source.rfind(h + "/", 0) == 0) in = h;
    if (in.empty() || (!found.empty() && in != found)) return "";
    found = in;
  }
  return found;
}

// A finding at warn or above as a failing check: measured and expected from its first evidence
// with a value and a threshold, else its first with a value.
Verdict finding_check(const Finding& f, size_t src, const std::vector<std::string>& hosts) {
  Verdict v;
  v.source = src;
  const std::string host = subject_host(f, hosts);
  v.scope = f.subject.find("<->") != std::string::npos ? "link" : !host.empty() ? "node" : "cluster";
  v.subject = v.scope == "node" ? host : f.subject;
  v.check = f.code;
  v.status = Outcome::kFail;
  v.evidence = f.evidence;
  v.reason = std::string(to_string(f.severity)) + ": " + f.message;
  const Evidence* best = nullptr;
  for (const auto& e : f.evidence)
    if (e.value && (!best || (e.threshold && !best->threshold))) best = &e;
  if (best) {
    v.measured = best->value;
    v.expected = best->threshold;
    v.unit = best->unit;
    v.margin_pct = margin_of(v.measured, v.expected, v.status);
  }
  return v;
}

// Nodes and links that only checks name get the verdict of their worst check.
void derive_subjects(ReportModel& m, size_t src) {
  auto derive = [&](std::vector<Verdict>& into, const std::string& scope) {
    std::map<std::string, size_t> at;  // subject -> index in `into`, this source only
    std::set<std::string> given;
    for (size_t i = 0; i < into.size(); ++i)
      if (into[i].source == src) given.insert(into[i].subject);
    // A link a matrix of this source makes counts as given too (asked per check: a 1500-host
    // matrix has 1.1 million links, its checks a handful).
    auto made = [&](const std::string& subject) {
      if (scope != "link") return false;
      for (const auto& b : m.matrix_links)
        if (b.source == src && matrix_makes_link(m, b, subject)) return true;
      return false;
    };
    for (const auto& c : m.checks) {
      if (c.source != src || c.scope != scope || c.subject.empty() || given.count(c.subject) || made(c.subject)) continue;
      auto it = at.find(c.subject);
      if (it == at.end()) {
        Verdict v;
        v.scope = scope;
        v.subject = c.subject;
        v.check = scope;
        v.status = Outcome::kPass;
        v.source = src;
        v.reason = "its checks passed";
        it = at.emplace(c.subject, into.size()).first;
        into.push_back(v);
      }
      Verdict& v = into[it->second];
      if (c.status == Outcome::kPass) continue;
      if (static_cast<int>(c.status) > static_cast<int>(v.status) || v.reason == "its checks passed") {
        v.measured = c.measured, v.expected = c.expected, v.unit = c.unit, v.margin_pct = c.margin_pct;
      }
      v.status = worse(v.status, c.status);
      const std::string why = c.check + " " + to_string(c.status) + (c.reason.empty() ? "" : " (" + c.reason + ")");
      v.reason = v.reason == "its checks passed" ? why : v.reason + "; " + why;
      v.evidence.insert(v.evidence.end(), c.evidence.begin(), c.evidence.end());
    }
  };
  derive(m.nodes, "node");
  derive(m.links, "link");
}

void read_data(ReportModel& m, size_t src, const std::string& file, const std::string& schema,
               const nlohmann::json& data) {
  if (schema == "fabdiag.accept/1") read_accept(m, src, data);
  else if (schema == "fabdiag.pairwise/1") read_pairwise(m, src, data);
  else if (schema == "fabdiag.triage/1") read_triage(m, src, data);
  else if (schema == "fabdiag.bench/1") read_bench(m, src, data, file);
  else if (schema == "fabdiag.baseline_diff/1") read_baseline_diff(m, src, data, file);
}

size_t add_source(ReportModel& m, const std::string& file, const std::string& schema, const Envelope& env) {
  m.sources.push_back(ReportSource{file, schema, env.started_at, env.hosts, env.partial});
  return m.sources.size() - 1;
}

// Appends what one document gave (`part`, read with m's sources) to m; curves of the same
// collective are joined (bands kept sorted by size).
void merge_into(ReportModel& m, ReportModel&& part) {
  auto append = [](auto& to, auto& from) { to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end())); };
  for (auto& b : part.matrix_links) {  // their places in m's lists
    b.before += m.links.size();
    b.heatmap += m.heatmaps.size();
  }
  append(m.matrix_links, part.matrix_links);
  append(m.nodes, part.nodes);
  append(m.links, part.links);
  append(m.checks, part.checks);
  append(m.heatmaps, part.heatmaps);
  append(m.chains, part.chains);
  append(m.findings, part.findings);
  append(m.errors, part.errors);
  for (auto& c : part.curves) {
    auto it = std::find_if(m.curves.begin(), m.curves.end(), [&](const Curve& x) { return x.collective == c.collective; });
    if (it == m.curves.end()) {
      m.curves.push_back(std::move(c));
      continue;
    }
    append(it->series, c.series);
    append(it->band, c.band);
    std::stable_sort(it->band.begin(), it->band.end(),
                     [](const BandPoint& a, const BandPoint& b) { return a.size_bytes < b.size_bytes; });
  }
}

// What a schema's data needs to give any verdict, for the gap of a document without it.
std::string required_data(const std::string& schema) {
  if (schema == "fabdiag.accept/1") return "checks[] or nodes[]";
  if (schema == "fabdiag.pairwise/1") return "hosts[] and matrix_bytes_per_s";
  if (schema == "fabdiag.triage/1") return "hosts[], suspects[] or pairwise";
  if (schema == "fabdiag.bench/1") return "results[] or tables[]";
  if (schema == "fabdiag.baseline_diff/1") return "rows[]";
  return "its data";
}

// Reads one schema's data; a member of the wrong type (a JSON type error, MalformedMember)
// costs that document's verdicts, not the report: nothing of the document is kept but the gap,
// named in errors[] with the file and the key.
void read_guarded(ReportModel& m, size_t src, const std::string& file, const std::string& schema,
                  const nlohmann::json& data) {
  ReportModel part;
  part.sources = m.sources;
  std::string what;
  try {
    read_data(part, src, file, schema, data);
  } catch (const nlohmann::json::exception& e) {
    what = e.what();
  } catch (const MalformedMember& e) {
    what = e.what();
  }
  if (!what.empty()) {
    m.errors.push_back({src, make_error(ErrorCode::kParse, "malformed " + schema + " data: " + what, file)});
    return;
  }
  const bool nothing = part.nodes.empty() && part.links.empty() && part.checks.empty() && part.heatmaps.empty() &&
                       part.curves.empty() && part.chains.empty() && part.matrix_links.empty() && part.errors.empty();
  if (nothing && is_report_schema(schema) && schema != "fabdiag.import/1")
    part.errors.push_back({src, make_error(ErrorCode::kParse, schema + " data has nothing to report: expected " + required_data(schema), file)});
  merge_into(m, std::move(part));
}

}  // namespace

void add_document(ReportModel& m, const std::string& file, const Envelope& env) {
  const size_t src = add_source(m, file, env.schema, env);
  std::vector<size_t> sources = {src};
  if (env.schema == "fabdiag.import/1" && env.data.is_object()) {
    size_t n = 0;
    for (const auto& part : array_at(env.data, "parts")) {
      if (!part.is_object()) continue;
      const std::string schema = string_at(part, "schema");
      Envelope p;
      p.schema = schema;
      p.started_at = env.started_at;
      p.hosts = env.hosts;
      const size_t psrc = add_source(m, file + " part " + std::to_string(++n), schema, p);
      read_guarded(m, psrc, m.sources[psrc].file, schema, part.contains("data") ? part["data"] : nlohmann::json());
      sources.push_back(psrc);
    }
  } else if (env.data.is_object()) {
    read_guarded(m, src, file, env.schema, env.data);
  }
  std::vector<std::string> hosts = env.hosts;
  for (const auto& n : m.nodes)
    if (std::find(sources.begin(), sources.end(), n.source) != sources.end()) hosts.push_back(n.subject);
  for (const auto& f : env.findings) {
    m.findings.push_back({src, f});
    if (env.schema != "fabdiag.accept/1" && f.severity >= Severity::kWarn)
      m.checks.push_back(finding_check(f, src, hosts));
  }
  for (const auto& e : env.errors) {
    m.errors.push_back({src, file.empty() ? e : e.with_context("in " + file)});
  }
  for (size_t s : sources) derive_subjects(m, s);
}

ReportModel model_of(const Envelope& env, const std::string& file) {
  ReportModel m;
  add_document(m, file, env);
  return m;
}

std::vector<Verdict> merged_nodes(const ReportModel& model) {
  std::vector<Verdict> out;
  std::map<std::string, size_t> at;
  for (const auto& n : model.nodes) {
    auto it = at.find(n.subject);
    if (it == at.end()) {
      at.emplace(n.subject, out.size());
      out.push_back(n);
      continue;
    }
    Verdict& v = out[it->second];
    if (n.status == Outcome::kPass) continue;
    if (static_cast<int>(n.status) > static_cast<int>(v.status)) {
      v.measured = n.measured, v.expected = n.expected, v.unit = n.unit, v.margin_pct = n.margin_pct;
      v.reason = n.reason;
      v.source = n.source;
    } else if (n.status == v.status && !n.reason.empty()) {
      v.reason += "; " + n.reason;
    }
    v.status = worse(v.status, n.status);
    v.evidence.insert(v.evidence.end(), n.evidence.begin(), n.evidence.end());
  }
  return out;
}

OutcomeCounts count_outcomes(const ReportModel& model) {
  OutcomeCounts c;
  auto count = [&c](Outcome status) {
    if (status == Outcome::kPass) ++c.pass;
    else if (status == Outcome::kFail) ++c.fail;
    else ++c.not_checked;
  };
  for (const auto& v : model.nodes) count(v.status);
  for_each_link_outline(model, [&](const LinkOutline& o) { count(o.status); });
  for (const auto& v : model.checks) count(v.status);
  return c;
}

std::string format_measure(const std::optional<double>& value, const std::string& unit) {
  if (!value) return "-";
  if (unit == "bytes/s") return format_gbytes_per_s(*value);
  if (unit == "bytes") return format_bytes_iec(*value);
  if (unit == "s") return format_seconds(*value);
  return format_sig(*value, 6) + (unit.empty() ? "" : " " + unit);
}

}  // namespace fabdiag
