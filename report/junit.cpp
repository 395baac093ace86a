#include "report/junit.h"

#include <sstream>

#include "report/evidence_text.h"
#include "report/humanize.h"
#include "report/xml_escape.h"

namespace fabdiag {

namespace {

struct Case {
  std::string classname, name;
  Outcome status = Outcome::kPass;
  std::string message, body;  // <failure>/<skipped> message and text
  bool error = false;         // a gap: <error>
};

struct Suite {
  std::string name;
  std::string timestamp;
  std::vector<Case> cases;
};

std::string failure_body(const Verdict& v) {
  std::string b = "measured: " + format_measure(v.measured, v.unit) + "\n";
  b += "expected: " + format_measure(v.expected, v.unit) + "\n";
  if (v.margin_pct) b += "margin: " + format_sig(*v.margin_pct, 3) + "%\n";
  if (!v.reason.empty()) b += "reason: " + v.reason + "\n";
  if (!v.evidence.empty()) b += "evidence:\n";
  for (const auto& e : v.evidence) b += "  - " + evidence_text(e) + "\n";
  return b;
}

Case verdict_case(const Verdict& v, const std::string& classname, const std::string& name) {
  Case c{classname, name, v.status, "", "", false};
  if (v.status == Outcome::kFail) {
    const bool measures = v.measured || v.expected;
    c.message = v.check + " failed" +
                (measures ? ": measured " + format_measure(v.measured, v.unit) + ", expected " + format_measure(v.expected, v.unit)
                          : std::string()) +
                (v.reason.empty() ? "" : " (" + v.reason + ")");
    c.body = failure_body(v);
  } else if (v.status == Outcome::kNotChecked) {
    c.message = v.reason.empty() ? "not checked" : v.reason;
  }
  return c;
}

std::vector<Suite> suites_of(const ReportModel& m) {
  std::vector<Suite> suites;
  for (const auto& s : m.sources)
    suites.push_back(Suite{(s.file.empty() ? "fabdiag" : s.file) + " (" + s.schema + ")", s.started_at, {}});
  if (suites.empty()) suites.push_back(Suite{"fabdiag report", "", {}});
  auto at = [&](size_t src) -> Suite& { return suites[src < suites.size() ? src : 0]; };
  Suite* unread = nullptr;  // the files that could not be read at all
  for (const auto& v : m.nodes) at(v.source).cases.push_back(verdict_case(v, "fabdiag.node", v.subject));
  for (const auto& v : m.links) at(v.source).cases.push_back(verdict_case(v, "fabdiag.link", v.subject));
  for (const auto& v : m.checks)
    at(v.source).cases.push_back(verdict_case(v, "fabdiag.check." + v.scope, v.subject + ": " + v.check));
  for (const auto& se : m.errors) {
    const Error& e = se.error;
    Case c{"fabdiag.gap", e.source.empty() ? "gap" : e.source, Outcome::kFail, e.to_string(), e.to_string(), true};
    if (se.source < m.sources.size()) {
      at(se.source).cases.push_back(std::move(c));
      continue;
    }
    if (unread == nullptr) unread = &suites.emplace_back(Suite{"files not read", "", {}});
    unread->cases.push_back(std::move(c));
  }
  return suites;
}

struct Totals {
  size_t tests = 0, failures = 0, skipped = 0, errors = 0;
  void add(const Case& c) {
    ++tests;
    if (c.error) ++errors;
    else if (c.status == Outcome::kFail) ++failures;
    else if (c.status == Outcome::kNotChecked) ++skipped;
  }
  std::string attributes() const {
    return " tests=\"" + std::to_string(tests) + "\" failures=\"" + std::to_string(failures) + "\" errors=\"" +
           std::to_string(errors) + "\" skipped=\"" + std::to_string(skipped) + "\"";
  }
};

void write_case(std::ostringstream& out, const Case& c) {
  out << "    <testcase classname=\"" << xml_escape(c.classname) << "\" name=\"" << xml_escape(c.name) << "\"";
  if (c.status == Outcome::kPass && !c.error) {
    out << "/>\n";
    return;
  }
  out << ">\n";
  if (c.error)
    out << "      <error message=\"" << xml_escape(c.message) << "\" type=\"gap\">" << xml_escape(c.body) << "</error>\n";
  else if (c.status == Outcome::kFail)
    out << "      <failure message=\"" << xml_escape(c.message) << "\" type=\"fail\">" << xml_escape(c.body) << "</failure>\n";
  else
    out << "      <skipped message=\"" << xml_escape(c.message) << "\"/>\n";
  out << "    </testcase>\n";
}

}  // namespace

std::string render_junit(const ReportModel& model) {
  const auto suites = suites_of(model);
  Totals all;
  for (const auto& s : suites)
    for (const auto& c : s.cases) all.add(c);
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<testsuites name=\"fabdiag\"" << all.attributes() << ">\n";
  for (const auto& s : suites) {
    Totals t;
    for (const auto& c : s.cases) t.add(c);
    out << "  <testsuite name=\"" << xml_escape(s.name) << "\"" << t.attributes();
    if (!s.timestamp.empty()) out << " timestamp=\"" << xml_escape(s.timestamp) << "\"";
    out << ">\n";
    for (const auto& c : s.cases) write_case(out, c);
    out << "  </testsuite>\n";
  }
  out << "</testsuites>\n";
  return out.str();
}

}  // namespace fabdiag
