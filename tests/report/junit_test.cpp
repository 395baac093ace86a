#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "report/junit.h"

using namespace fabdiag;

namespace {

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

// Case 028 as `fabdiag import pairs` saw it (tests/fixtures/report/make.sh).
ReportModel pairwise_model() {
  std::ifstream in(std::string(FABDIAG_SOURCE_DIR) + "/tests/fixtures/report/pairwise-one-slow-node.json");
  std::stringstream ss;
  ss << in.rdbuf();
  auto env = envelope_from_json(nlohmann::json::parse(ss.str()));
  REQUIRE(env);
  return model_of(*env, "pw.json");
}

}  // namespace

TEST_CASE("junit has one testcase per node, link and check, failures with measured, expected, evidence") {
  const std::string x = render_junit(pairwise_model());
  CHECK(x.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"fabdiag\" tests=\"14\" failures=\"5\" errors=\"0\" skipped=\"3\">", 0) == 0);
  CHECK(count(x, "<testcase ") == 14);  // 7 nodes + 5 measured pairs + 2 findings at warn or above
  // node01, its two slow pairs (explained by it), its slow_node finding, the slow_pair_inconclusive finding
  CHECK(count(x, "<failure ") == 5);
  CHECK(count(x, "<skipped ") == 3);    // node05, node06 (only each other as partner) and their pair
  CHECK(x.find("<testcase classname=\"fabdiag.node\" name=\"node02\"/>") != std::string::npos);
  CHECK(x.find("<testcase classname=\"fabdiag.link\" name=\"node02&lt;-&gt;node07\"/>") != std::string::npos);
  CHECK(x.find("reason: slow pair: below the pair ratio 0.75 x the p90 of pairs, explained by the slow node node01") !=
        std::string::npos);
  CHECK(x.find("<skipped message=\"slow pair at 0.56 of the p90 of pairs (below the pair ratio 0.75), but node05 and node06") !=
        std::string::npos);
  const size_t at = x.find("<testcase classname=\"fabdiag.node\" name=\"node01\">");
  REQUIRE(at != std::string::npos);
  const std::string tc = x.substr(at, x.find("</testcase>", at) - at);
  CHECK(tc.find("measured: 49.33 GB/s\nexpected: 87.74 GB/s\nmargin: -43.8%\n") != std::string::npos);
  CHECK(tc.find("  - median pair bandwidth = 49.33 GB/s; limit 87.74 GB/s (the p90 of pairs) [pairwise matrix]") !=
        std::string::npos);
  CHECK(x.find("<skipped message=\"all 1 pair(s) at 0.56 of the p90 of pairs (with node06)") != std::string::npos);
  const size_t f = x.find("name=\"node01: slow_node\"");
  REQUIRE(f != std::string::npos);
  CHECK(x.find("measured: 49.33 GB/s\nexpected: 65.81 GB/s\nmargin: -25%", f) != std::string::npos);
}

TEST_CASE("junit escapes hostile names and counts gaps as errors") {
  ReportModel m;
  m.sources.push_back(ReportSource{"a\"b<c>.json", "fabdiag.accept/1", "", {}, false});
  Verdict v;
  v.scope = "node";
  v.subject = "n\"1'<&>\x01";
  v.check = "node";
  v.status = Outcome::kFail;
  v.evidence.push_back(Evidence::text("state", "]]></failure><x>", "/sys/\xff"));
  m.nodes.push_back(v);
  m.errors.push_back({0, make_error(ErrorCode::kNotFound, "no such file", "missing.json")});
  const std::string x = render_junit(m);
  CHECK(x.find("<testsuite name=\"a&quot;b&lt;c&gt;.json (fabdiag.accept/1)\" tests=\"2\" failures=\"1\" errors=\"1\" skipped=\"0\">") !=
        std::string::npos);
  CHECK(x.find("name=\"n&quot;1&#39;&lt;&amp;&gt;\xEF\xBF\xBD\"") != std::string::npos);
  CHECK(x.find("]]&gt;&lt;/failure&gt;&lt;x&gt;") != std::string::npos);
  CHECK(x.find("<testcase classname=\"fabdiag.gap\" name=\"missing.json\">") != std::string::npos);
  CHECK(x.find('\x01') == std::string::npos);
  CHECK(x.find('\xff') == std::string::npos);
}

TEST_CASE("junit of an empty model is one empty suite") {
  const std::string x = render_junit(ReportModel{});
  CHECK(x.find("<testsuites name=\"fabdiag\" tests=\"0\" failures=\"0\" errors=\"0\" skipped=\"0\">") != std::string::npos);
  CHECK(x.find("<testsuite name=\"fabdiag report\" tests=\"0\"") != std::string::npos);
}
