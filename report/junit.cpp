#include "report/junit.h"

#include <algorithm>
#include <string>
#include <vector>

#include "report/evidence_text.h"
#include "report/humanize.h"
#include "report/matrix_links.h"
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

Case gap_case(const Error& e) {
  return Case{"fabdiag.gap", e.source.empty() ? "gap" : e.source, Outcome::kFail, e.to_string(), e.to_string(), true};
}

// Which suite each case goes to: its document's (a verdict of no known document: the first);
// a gap of no document: "files not read", the suite after the documents'.
struct SuiteOf {
  const ReportModel& m;
  size_t verdict(size_t src) const { return src < m.sources.size() ? src : 0; }
  size_t gap(size_t src) const { return src < m.sources.size() ? src : unread(); }
  size_t unread() const { return std::max<size_t>(m.sources.size(), 1); }
};

// One suite per document (or "fabdiag report" when none), then "files not read" when a gap
// belongs to no document.
std::vector<Suite> suites_of(const ReportModel& m) {
  std::vector<Suite> suites;
  for (const auto& s : m.sources)
    suites.push_back(Suite{(s.file.empty() ? "fabdiag" : s.file) + " (" + s.schema + ")", s.started_at});
  if (suites.empty()) suites.push_back(Suite{"fabdiag report", ""});
  if (std::any_of(m.errors.begin(), m.errors.end(), [&](const SourcedError& e) { return e.source >= m.sources.size(); }))
    suites.push_back(Suite{"files not read", ""});
  return suites;
}

struct Totals {
  size_t tests = 0, failures = 0, skipped = 0, errors = 0;
  void add(Outcome status, bool error) {
    ++tests;
    if (error) ++errors;
    else if (status == Outcome::kFail) ++failures;
    else if (status == Outcome::kNotChecked) ++skipped;
  }
  std::string attributes() const {
    return " tests=\"" + std::to_string(tests) + "\" failures=\"" + std::to_string(failures) + "\" errors=\"" +
           std::to_string(errors) + "\" skipped=\"" + std::to_string(skipped) + "\"";
  }
};

// The totals of every suite, from the statuses alone (no case text is made).
std::vector<Totals> count_suites(const ReportModel& m, size_t suites) {
  std::vector<Totals> t(suites);
  const SuiteOf of{m};
  for (const auto& v : m.nodes) t[of.verdict(v.source)].add(v.status, false);
  for_each_link_outline(m, [&](const LinkOutline& o) {
    const size_t src = o.ref.block == LinkRef::kStored ? m.links[o.ref.i].source : m.matrix_links[o.ref.block].source;
    t[of.verdict(src)].add(o.status, false);
  });
  for (const auto& v : m.checks) t[of.verdict(v.source)].add(v.status, false);
  for (const auto& se : m.errors) t[of.gap(se.source)].add(Outcome::kFail, true);
  return t;
}

// Calls fn with the cases of suite `suite` in order (nodes, links, checks, gaps), each made
// when it is written.
template <typename Fn>
void suite_cases(const ReportModel& m, size_t suite, Fn&& fn) {
  const SuiteOf of{m};
  for (const auto& v : m.nodes)
    if (of.verdict(v.source) == suite) fn(verdict_case(v, "fabdiag.node", v.subject));
  for_each_link(m, [&](const Verdict& v) {
    if (of.verdict(v.source) == suite) fn(verdict_case(v, "fabdiag.link", v.subject));
  });
  for (const auto& v : m.checks)
    if (of.verdict(v.source) == suite) fn(verdict_case(v, "fabdiag.check." + v.scope, v.subject + ": " + v.check));
  for (const auto& se : m.errors)
    if (of.gap(se.source) == suite) fn(gap_case(se.error));
}

void write_case(std::string& out, const Case& c) {
  out += "    <testcase classname=\"" + xml_escape(c.classname) + "\" name=\"" + xml_escape(c.name) + "\"";
  if (c.status == Outcome::kPass && !c.error) {
    out += "/>\n";
    return;
  }
  out += ">\n";
  if (c.error)
    out += "      <error message=\"" + xml_escape(c.message) + "\" type=\"gap\">" + xml_escape(c.body) + "</error>\n";
  else if (c.status == Outcome::kFail)
    out += "      <failure message=\"" + xml_escape(c.message) + "\" type=\"fail\">" + xml_escape(c.body) + "</failure>\n";
  else
    out += "      <skipped message=\"" + xml_escape(c.message) + "\"/>\n";
  out += "    </testcase>\n";
}

constexpr size_t kPieceBytes = 1 << 20;

}  // namespace

void render_junit_to(const ReportModel& model, const TextDrain& drain) {
  const auto suites = suites_of(model);
  const auto totals = count_suites(model, suites.size());
  Totals all;
  for (const auto& t : totals)
    all.tests += t.tests, all.failures += t.failures, all.skipped += t.skipped, all.errors += t.errors;
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<testsuites name=\"fabdiag\"" + all.attributes() + ">\n";
  for (size_t k = 0; k < suites.size(); ++k) {
    out += "  <testsuite name=\"" + xml_escape(suites[k].name) + "\"" + totals[k].attributes();
    if (!suites[k].timestamp.empty()) out += " timestamp=\"" + xml_escape(suites[k].timestamp) + "\"";
    out += ">\n";
    suite_cases(model, k, [&](const Case& c) {
      write_case(out, c);
      if (out.size() >= kPieceBytes) drain(out);
    });
    out += "  </testsuite>\n";
  }
  out += "</testsuites>\n";
  drain(out);
}

std::string render_junit(const ReportModel& model) {
  std::string whole;
  render_junit_to(model, [&whole](std::string& piece) {
    whole += piece;
    piece.clear();
  });
  return whole;
}

}  // namespace fabdiag
