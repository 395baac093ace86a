#include "report/report_document.h"

#include <algorithm>
#include <set>

#include "report/evidence_text.h"
#include "report/humanize.h"
#include "report/matrix_links.h"

namespace fabdiag {

namespace {

std::string margin_text(const Verdict& v) { return v.margin_pct ? format_sig(*v.margin_pct, 3) + "%" : "-"; }

Table verdict_table(const std::vector<Verdict>& list, bool with_check) {
  Table t;
  t.columns = {"subject", "status", "measured", "expected", "margin", "why"};
  t.align = {Align::kLeft, Align::kLeft, Align::kRight, Align::kRight, Align::kRight, Align::kLeft};
  if (with_check) {
    t.columns.insert(t.columns.begin(), "scope");
    t.columns.insert(t.columns.begin() + 2, "check");
    t.align.insert(t.align.begin(), Align::kLeft);
    t.align.insert(t.align.begin() + 2, Align::kLeft);
  }
  for (const auto& v : list) {
    std::vector<std::string> row = {v.subject, to_string(v.status), format_measure(v.measured, v.unit),
                                    format_measure(v.expected, v.unit), margin_text(v), v.reason};
    if (with_check) {
      row.insert(row.begin(), v.scope);
      row.insert(row.begin() + 2, v.check);
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

Section matrix_section(const Heatmap& h) {
  Section s;
  s.title = h.title;
  Table t;
  t.title = "GB/s per direction (row = sender, column = receiver); * = suspect";
  t.columns.push_back("src \\ dst");
  t.align.push_back(Align::kLeft);
  auto mark = [&](const std::string& host) {
    return std::find(h.suspect_hosts.begin(), h.suspect_hosts.end(), host) != h.suspect_hosts.end() ? host + " *" : host;
  };
  for (const auto& host : h.hosts) t.columns.push_back(mark(host)), t.align.push_back(Align::kRight);
  for (size_t i = 0; i < h.hosts.size(); ++i) {
    std::vector<std::string> row = {mark(h.hosts[i])};
    for (size_t j = 0; j < h.hosts.size(); ++j) {
      const auto v = h.at(i, j);
      row.push_back(i == j ? "-" : v ? format_sig(*v / 1e9, 4) : "n/a");
    }
    t.rows.push_back(std::move(row));
  }
  for (const auto& [a, b] : h.suspect_links) t.notes.push_back("suspect link: " + a + "<->" + b);
  s.tables.push_back(std::move(t));
  return s;
}

Section curve_section(const Curve& c) {
  Section s;
  s.title = "busbw of " + c.collective + " (GB/s)";
  std::set<double> sizes;
  for (const auto& sr : c.series)
    for (const auto& p : sr.points) sizes.insert(p.size_bytes);
  for (const auto& b : c.band) sizes.insert(b.size_bytes);
  Table t;
  t.columns.push_back("size");
  for (const auto& sr : c.series) t.columns.push_back(sr.label);
  if (!c.band.empty()) t.columns.push_back("band low"), t.columns.push_back("band high");
  t.align.assign(t.columns.size(), Align::kRight);
  for (double size : sizes) {
    std::vector<std::string> row = {format_bytes_iec(size)};
    for (const auto& sr : c.series) {
      auto it = std::find_if(sr.points.begin(), sr.points.end(), [&](const CurvePoint& p) { return p.size_bytes == size; });
      row.push_back(it == sr.points.end() ? "" : format_sig(it->busbw_bytes_per_s / 1e9, 4));
    }
    if (!c.band.empty()) {
      auto it = std::find_if(c.band.begin(), c.band.end(), [&](const BandPoint& b) { return b.size_bytes == size; });
      row.push_back(it == c.band.end() ? "" : format_sig(it->low_bytes_per_s / 1e9, 4));
      row.push_back(it == c.band.end() ? "" : format_sig(it->high_bytes_per_s / 1e9, 4));
    }
    t.rows.push_back(std::move(row));
  }
  s.tables.push_back(std::move(t));
  return s;
}

// One verdict as an object, its keys in nlohmann's (sorted) order.
void write_verdict(JsonWriter& w, const ReportModel& m, const Verdict& v) {
  auto number = [&w](const std::optional<double>& x) {
    if (x) w.float_number(*x);
    else w.null();
  };
  w.begin_object();
  w.key_literal("check");
  w.string(v.check);
  w.key_literal("evidence");
  w.tree(nlohmann::json(v.evidence));
  w.key_literal("expected");
  number(v.expected);
  w.key_literal("file");
  w.string(v.source < m.sources.size() ? m.sources[v.source].file : "");
  w.key_literal("margin_pct");
  number(v.margin_pct);
  w.key_literal("measured");
  number(v.measured);
  w.key_literal("reason");
  w.string(v.reason);
  w.key_literal("scope");
  w.string(v.scope);
  w.key_literal("status");
  w.plain_string(to_string(v.status));
  w.key_literal("subject");
  w.string(v.subject);
  w.key_literal("unit");
  w.string(v.unit);
  w.end_object();
}

}  // namespace

Document report_document(const ReportModel& m, const std::string& title) {
  Document doc;
  doc.title = title;
  Section files;
  files.title = "Documents read";
  Table ft;
  ft.columns = {"file", "schema", "started"};
  for (const auto& s : m.sources) ft.rows.push_back({s.file + (s.partial ? " (partial)" : ""), s.schema, s.started_at});
  files.tables.push_back(std::move(ft));
  const auto c = count_outcomes(m);
  files.fields = {{"verdicts", std::to_string(c.pass) + " pass, " + std::to_string(c.fail) + " fail, " +
                                   std::to_string(c.not_checked) + " not checked"}};
  doc.sections.push_back(std::move(files));
  auto add = [&](const char* t, const std::vector<Verdict>& list, bool with_check) {
    if (list.empty()) return;
    Section s;
    s.title = t;
    s.tables.push_back(verdict_table(list, with_check));
    doc.sections.push_back(std::move(s));
  };
  add("Nodes", merged_nodes(m), false);
  if (const size_t links = link_count(m); links > 0) {
    Section s;
    s.title = "Links";
    s.tables.push_back(verdict_table(link_verdicts(m, links_to_list(m, kMaxListedLinks)), false));
    if (const size_t listed = s.tables.back().rows.size(); listed < links)
      s.lines.push_back(std::to_string(links - listed) + " of " + std::to_string(links) +
                        " links not listed: those that did not pass come first, then the passing ones with the "
                        "least margin; the JSON report lists every link.");
    doc.sections.push_back(std::move(s));
  }
  add("Checks", m.checks, true);
  for (const auto& h : m.heatmaps) doc.sections.push_back(matrix_section(h));
  for (const auto& cv : m.curves) doc.sections.push_back(curve_section(cv));
  if (!m.chains.empty()) {
    Section s;
    s.title = "Evidence chain";
    for (const auto& ch : m.chains) {
      s.lines.push_back(ch.kind + " " + ch.subject + (ch.layer.empty() ? "" : " (" + ch.layer + ")"));
      for (const auto& e : ch.evidence) s.lines.push_back("  - " + evidence_text(e));
      if (!ch.action.empty()) s.lines.push_back("  -> " + ch.action);
    }
    doc.sections.push_back(std::move(s));
  }
  return doc;
}

Envelope report_envelope(const ReportModel& m) {
  Envelope env = make_envelope("fabdiag.report/1");
  env.hosts.clear();
  for (const auto& s : m.sources)
    for (const auto& h : s.hosts)
      if (std::find(env.hosts.begin(), env.hosts.end(), h) == env.hosts.end()) env.hosts.push_back(h);
  nlohmann::json files = nlohmann::json::array();
  for (const auto& s : m.sources)
    files.push_back({{"file", s.file}, {"schema", s.schema}, {"started_at", s.started_at}, {"partial", s.partial}});
  const auto c = count_outcomes(m);
  env.data = {{"files", files}, {"summary", {{"pass", c.pass}, {"fail", c.fail}, {"not_checked", c.not_checked}}}};
  for (const auto& f : m.findings) env.findings.push_back(f.finding);
  for (const auto& e : m.errors) env.errors.push_back(e.error);
  return env;
}

std::vector<StreamedArray> report_verdict_arrays(const ReportModel& m) {
  auto list = [&m](auto&& each) {
    return [&m, each](JsonWriter& w, const std::function<void()>& written) {
      each([&](const Verdict& v) {
        write_verdict(w, m, v);
        written();
      });
    };
  };
  return {{"nodes", list([&m](const auto& fn) {
             for (const auto& v : merged_nodes(m)) fn(v);
           })},
          {"links", list([&m](const auto& fn) { for_each_link(m, fn); })},
          {"checks", list([&m](const auto& fn) {
             for (const auto& v : m.checks) fn(v);
           })}};
}

}  // namespace fabdiag
