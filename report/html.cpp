#include "report/html.h"

#include <algorithm>
#include <sstream>

#include "core/run_cut.h"
#include "report/evidence_text.h"
#include "report/humanize.h"
#include "report/matrix_links.h"
#include "report/svg_curves.h"
#include "report/svg_heatmap.h"
#include "report/xml_escape.h"

namespace fabdiag {

namespace {

constexpr const char* kStyle = R"(body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#222;background:#fff}
h1{font-size:22px}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:8px 0;font-size:13px}th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f2f2f2}td.num{text-align:right;font-variant-numeric:tabular-nums}
tr.pass td.status{background:#c7eac7}tr.fail td.status{background:#f4b6b6;font-weight:bold}
tr.not_checked td.status{background:#eee;color:#666}
tr.finding.critical td.sev,tr.finding.error td.sev{background:#f4b6b6}tr.finding.warn td.sev{background:#fde3a7}
#summary span{display:inline-block;padding:4px 10px;margin-right:8px;border-radius:4px}
#summary .pass{background:#c7eac7}#summary .fail{background:#f4b6b6}#summary .not_checked{background:#eee}
.partial{background:#fde3a7;padding:6px 10px}
svg text{font-size:11px;fill:#333}svg text.host.suspect{fill:#b00;font-weight:bold}
rect.cell.suspect{stroke:#000;stroke-width:2}rect.cell.missing{fill:#d0d0d0}
.chain{border-left:4px solid #d62728;padding:4px 12px;margin:10px 0}.chain .action{font-style:italic}
ul.evidence{margin:2px 0 2px 16px;padding:0;font-size:12px}
.legend-note{font-size:12px;color:#555}
)";

std::string esc(const std::string& s) { return xml_escape(s); }

std::string evidence_list(const std::vector<Evidence>& ev) {
  if (ev.empty()) return "";
  std::string o = "<ul class=\"evidence\">";
  for (const auto& e : ev) o += "<li>" + esc(evidence_text(e)) + "</li>";
  return o + "</ul>";
}

std::string margin_text(const Verdict& v) { return v.margin_pct ? format_sig(*v.margin_pct, 3) + "%" : "-"; }

void header(std::ostringstream& o, const ReportModel& m, const std::string& title) {
  o << "<h1 id=\"title\">" << esc(title) << "</h1>\n<ul id=\"sources\">\n";
  for (const auto& s : m.sources)
    o << "<li class=\"source\" data-schema=\"" << esc(s.schema) << "\">" << esc(s.file.empty() ? "(this run)" : s.file)
      << ": " << esc(s.schema) << (s.started_at.empty() ? "" : ", started " + esc(s.started_at))
      << (s.partial ? " <span class=\"partial\">partial</span>" : "") << "</li>\n";
  o << "</ul>\n";
  const auto c = count_outcomes(m);
  o << "<div id=\"summary\" data-pass=\"" << c.pass << "\" data-fail=\"" << c.fail << "\" data-not-checked=\""
    << c.not_checked << "\"><span class=\"pass\">" << c.pass << " passed</span><span class=\"fail\">" << c.fail
    << " failed</span><span class=\"not_checked\">" << c.not_checked << " not checked</span></div>\n";
}

void nodes_table(std::ostringstream& o, const ReportModel& m) {
  const auto nodes = merged_nodes(m);
  if (nodes.empty()) return;
  o << "<h2>Nodes</h2>\n<table id=\"nodes\"><tr><th>host</th><th>status</th><th>measured</th><th>expected</th>"
       "<th>margin</th><th>why</th></tr>\n";
  for (const auto& v : nodes)
    o << "<tr class=\"node " << to_string(v.status) << "\" data-host=\"" << esc(v.subject) << "\"><td>" << esc(v.subject)
      << "</td><td class=\"status\">" << to_string(v.status) << "</td><td class=\"num\">" << esc(format_measure(v.measured, v.unit))
      << "</td><td class=\"num\">" << esc(format_measure(v.expected, v.unit)) << "</td><td class=\"num\">" << esc(margin_text(v))
      << "</td><td>" << esc(v.reason) << evidence_list(v.status == Outcome::kFail ? v.evidence : std::vector<Evidence>{})
      << "</td></tr>\n";
  o << "</table>\n";
}

// Above kMaxListedLinks links (1500 hosts: 1.1 million pairs) the table lists the links that did
// not pass and the slowest that did, up to kMaxListedLinks, and says how many it leaves out.
void links_table(std::ostringstream& o, const ReportModel& m) {
  const size_t total = link_count(m);
  if (total == 0) return;
  const auto listed = link_verdicts(m, links_to_list(m, kMaxListedLinks));
  o << "<h2>Links</h2>\n";
  if (listed.size() < total)
    o << "<p class=\"legend-note\" id=\"links-not-listed\">" << total - listed.size() << " of " << total
      << " links not listed: those that did not pass come first, then the passing ones with the least margin; "
         "the JSON report lists every link.</p>\n";
  o << "<table id=\"links\"><tr><th>link</th><th>status</th><th>measured</th><th>expected</th>"
       "<th>margin</th><th>why</th></tr>\n";
  for (const Verdict& v : listed) {
    o << "<tr class=\"link " << to_string(v.status) << "\" data-subject=\"" << esc(v.subject) << "\"><td>" << esc(v.subject)
      << "</td><td class=\"status\">" << to_string(v.status) << "</td><td class=\"num\">" << esc(format_measure(v.measured, v.unit))
      << "</td><td class=\"num\">" << esc(format_measure(v.expected, v.unit)) << "</td><td class=\"num\">" << esc(margin_text(v))
      << "</td><td>" << esc(v.reason) << "</td></tr>\n";
  }
  o << "</table>\n";
}

void pictures(std::ostringstream& o, const ReportModel& m) {
  if (!m.heatmaps.empty()) {
    o << "<section id=\"pairwise\"><h2>Pairwise bandwidth</h2>\n<p class=\"legend-note\">Row = sender, column = receiver; "
         "red = slowest measured pair, green = fastest; outlined cells and red names: the suspects.</p>\n";
    for (size_t i = 0; i < m.heatmaps.size(); ++i) {
      const auto& h = m.heatmaps[i];
      o << "<h3>" << esc(h.title) << "</h3>\n";
      if (const std::string note = heatmap_note(h); !note.empty()) o << "<p class=\"legend-note heatmap-blocks\">" << esc(note) << "</p>\n";
      o << svg_heatmap(h, i == 0 ? "pairwise-heatmap" : "pairwise-heatmap-" + std::to_string(i + 1));
    }
    o << "</section>\n";
  }
  if (!m.curves.empty()) {
    o << "<section id=\"curves\"><h2>busbw vs message size</h2>\n<p class=\"legend-note\">busbw as nccl-tests defines "
         "it (GB/s = 1e9 bytes/s); the shaded band, where a baseline diff gives one: values inside it are not a "
         "regression.</p>\n";
    for (const auto& c : m.curves) o << "<h3>" << esc(c.collective) << "</h3>\n" << svg_curve(c);
    o << "</section>\n";
  }
}

void checks_table(std::ostringstream& o, const ReportModel& m) {
  if (m.checks.empty()) return;
  o << "<h2>Checks</h2>\n<table id=\"checks\"><tr><th>scope</th><th>subject</th><th>check</th><th>status</th>"
       "<th>measured</th><th>expected</th><th>margin</th><th>why, evidence</th></tr>\n";
  for (const auto& v : m.checks)
    o << "<tr class=\"check " << to_string(v.status) << "\" data-scope=\"" << esc(v.scope) << "\" data-subject=\""
      << esc(v.subject) << "\" data-check=\"" << esc(v.check) << "\"><td>" << esc(v.scope) << "</td><td>" << esc(v.subject)
      << "</td><td>" << esc(v.check) << "</td><td class=\"status\">" << to_string(v.status) << "</td><td class=\"num\">"
      << esc(format_measure(v.measured, v.unit)) << "</td><td class=\"num\">" << esc(format_measure(v.expected, v.unit))
      << "</td><td class=\"num\">" << esc(margin_text(v)) << "</td><td>" << esc(v.reason) << evidence_list(v.evidence)
      << "</td></tr>\n";
  o << "</table>\n";
}

void findings_table(std::ostringstream& o, const ReportModel& m) {
  std::vector<const SourcedFinding*> fs;
  for (const auto& f : m.findings) fs.push_back(&f);
  std::stable_sort(fs.begin(), fs.end(), [](auto* a, auto* b) { return a->finding.severity > b->finding.severity; });
  o << "<h2>Findings</h2>\n";
  if (fs.empty()) {
    o << "<p id=\"no-findings\">None.</p>\n";
    return;
  }
  o << "<table id=\"findings\"><tr><th>severity</th><th>layer</th><th>code</th><th>subject</th><th>message, evidence</th>"
       "<th>next</th></tr>\n";
  for (const auto* sf : fs) {
    const Finding& f = sf->finding;
    o << "<tr class=\"finding " << to_string(f.severity) << "\" data-code=\"" << esc(f.code) << "\" data-subject=\""
      << esc(f.subject) << "\"><td class=\"sev\">" << to_string(f.severity) << "</td><td>" << to_string(f.layer)
      << "</td><td><code>" << esc(f.code) << "</code></td><td>" << esc(f.subject) << "</td><td>" << esc(f.message)
      << evidence_list(f.evidence) << "</td><td>" << esc(f.action) << "</td></tr>\n";
  }
  o << "</table>\n";
}

void chains(std::ostringstream& o, const ReportModel& m) {
  if (m.chains.empty()) return;
  o << "<section id=\"evidence-chain\"><h2>Evidence chain</h2>\n";
  for (const auto& c : m.chains) {
    o << "<div class=\"chain\" data-kind=\"" << esc(c.kind) << "\" data-subject=\"" << esc(c.subject) << "\"><h3>" << esc(c.kind)
      << " " << esc(c.subject) << (c.layer.empty() ? "" : " (" + esc(c.layer) + ")") << "</h3>\n<ol>";
    for (const auto& e : c.evidence) o << "<li>" << esc(evidence_text(e)) << "</li>";
    o << "</ol>\n";
    if (!c.action.empty()) o << "<p class=\"action\">" << esc(c.action) << "</p>\n";
    o << "</div>\n";
  }
  o << "</section>\n";
}

void details(std::ostringstream& o, const Document& doc) {
  if (doc.sections.empty()) return;
  o << "<section id=\"details\"><h2>Details</h2>\n";
  for (const auto& s : doc.sections) {
    if (!s.title.empty()) o << "<h3>" << esc(s.title) << "</h3>\n";
    if (!s.fields.empty()) {
      o << "<table class=\"fields\">";
      for (const auto& [k, v] : s.fields) o << "<tr><th>" << esc(k) << "</th><td>" << esc(v) << "</td></tr>";
      o << "</table>\n";
    }
    for (const auto& t : s.tables) {
      o << "<table class=\"detail\">";
      if (!t.title.empty()) o << "<caption>" << esc(t.title) << "</caption>";
      o << "<tr>";
      for (const auto& c : t.columns) o << "<th>" << esc(c) << "</th>";
      o << "</tr>\n";
      for (const auto& r : t.rows) {
        o << "<tr>";
        for (size_t i = 0; i < r.size(); ++i)
          o << (i < t.align.size() && t.align[i] == Align::kRight ? "<td class=\"num\">" : "<td>") << esc(r[i]) << "</td>";
        o << "</tr>\n";
      }
      o << "</table>\n";
      for (const auto& n : t.notes) o << "<p class=\"legend-note\">" << esc(n) << "</p>\n";
    }
    if (!s.lines.empty()) {
      o << "<pre>";
      for (const auto& l : s.lines) o << esc(l) << "\n";
      o << "</pre>\n";
    }
  }
  o << "</section>\n";
}

}  // namespace

std::string render_html(const ReportModel& m, const std::string& title, const Document* doc) {
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
       "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n"
       "<title>"
    << esc(title) << "</title>\n<style>\n" << kStyle << "</style>\n</head>\n<body>\n";
  header(o, m, title);
  nodes_table(o, m);
  links_table(o, m);
  pictures(o, m);
  checks_table(o, m);
  findings_table(o, m);
  chains(o, m);
  if (!m.errors.empty()) {
    o << "<section id=\"gaps\"><h2>Not read (the result is partial)</h2>\n<ul>\n";
    for (const auto& e : m.errors) o << "<li class=\"gap\">" << esc(e.error.to_string()) << "</li>\n";
    o << "</ul></section>\n";
  }
  if (doc) details(o, *doc);
  o << "</body>\n</html>\n";
  return o.str();
}

}  // namespace fabdiag
