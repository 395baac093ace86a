// Golden renderings: the JUnit XML and the HTML page of real result documents (written by
// fabdiag itself, tests/fixtures/report/make.sh) must match tests/fixtures/report/golden/
// byte for byte. After an intended change of the renderers, rerun make.sh and review the diff.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/html.h"
#include "report/junit.h"

using namespace fabdiag;

namespace {

const std::string kDir = std::string(FABDIAG_SOURCE_DIR) + "/tests/fixtures/report/";

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot read " << path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The model `fabdiag report FILE...` builds when run in the fixture folder.
ReportModel model_of_files(const std::vector<std::string>& files) {
  ReportModel m;
  for (const auto& f : files) {
    auto env = envelope_from_json(nlohmann::json::parse(slurp(kDir + f)));
    REQUIRE(env);
    add_document(m, f, *env);
  }
  return m;
}

// The first differing line, for a readable failure.
std::string first_difference(const std::string& got, const std::string& want) {
  std::istringstream g(got), w(want);
  std::string gl, wl;
  for (int line = 1;; ++line) {
    const bool gm = static_cast<bool>(std::getline(g, gl)), wm = static_cast<bool>(std::getline(w, wl));
    if (!gm && !wm) return "identical";
    if (gl != wl || gm != wm) return "line " + std::to_string(line) + ": got [" + gl + "] want [" + wl + "]";
  }
}

void check_golden(const std::string& name, const std::vector<std::string>& files) {
  const ReportModel m = model_of_files(files);
  const std::string junit = render_junit(m), want_junit = slurp(kDir + "golden/" + name + ".junit");
  CHECK_MESSAGE(junit == want_junit, name << ".junit: " << first_difference(junit, want_junit));
  const std::string html = render_html(m, "golden " + name), want_html = slurp(kDir + "golden/" + name + ".html");
  CHECK_MESSAGE(html == want_html, name << ".html: " << first_difference(html, want_html));
}

}  // namespace

TEST_CASE("golden junit and html of the pairwise result of case 028") {
  check_golden("pairwise-one-slow-node", {"pairwise-one-slow-node.json"});
}

TEST_CASE("golden junit and html of a bench baseline diff and a triage together") {
  check_golden("diff-bench-and-triage", {"baseline-diff-bench.json", "triage-from.json"});
}
