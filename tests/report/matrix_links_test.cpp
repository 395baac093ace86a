#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/html.h"
#include "report/junit.h"
#include "report/matrix_links.h"
#include "report/render_pieces.h"
#include "report/report_document.h"
#include "report/result_json.h"
#include "report/result_model.h"

using namespace fabdiag;

namespace {

// Five hosts: n1<->n2 an outlier link, n3<->n4 inconclusive, n4<->n5 measured in neither
// direction, n2<->n5 one way only; the rest 10 GB/s, a little apart.
const char* kPairwise = R"({"schema": "fabdiag.pairwise/1", "hosts": ["n1", "n2", "n3", "n4", "n5"],
  "started_at": "2026-01-01T00:00:00Z", "findings": [], "errors": [],
  "data": {"hosts": ["n1", "n2", "n3", "n4", "n5"], "size_bytes": 1048576,
    "matrix_bytes_per_s": [[null, 4e9, 10e9, 10.2e9, 10.4e9], [4.2e9, null, 10.1e9, 9.9e9, 9.8e9],
                           [10e9, 10e9, null, 9.7e9, 10.3e9], [10e9, 10e9, 9.6e9, null, null],
                           [10e9, null, 10e9, null, null]],
    "node_median_bytes_per_s": {"n1": 10e9, "n2": 10e9, "n3": 10e9, "n4": 10e9, "n5": 10e9},
    "fleet_median_bytes_per_s": 10e9, "outlier_nodes": [],
    "outlier_links": [{"hosts": ["n2", "n1"]}],
    "inconclusive": [{"hosts": ["n4", "n3"], "reason": "one round only"}]}})";

ReportModel model_from(const nlohmann::json& j, const std::string& file) {
  auto env = envelope_from_json(j);
  REQUIRE(env);
  return model_of(*env, file);
}

std::string report_json(const ReportModel& m) {
  std::string out;
  render_json_to(report_envelope(m), report_verdict_arrays(m), [&](std::string& piece) {
    out += piece;
    piece.clear();
  });
  return out;
}

}  // namespace

TEST_CASE("matrix links: one per measured pair in row order, judged by the result's outliers and inconclusive pairs") {
  const ReportModel m = model_from(nlohmann::json::parse(kPairwise), "pw.json");
  CHECK(m.links.empty());  // none stored: the matrix makes them
  REQUIRE(m.matrix_links.size() == 1);
  const auto links = all_links(m);
  std::vector<std::string> subjects;
  for (const auto& v : links) subjects.push_back(v.subject);
  CHECK(subjects == std::vector<std::string>{"n1<->n2", "n1<->n3", "n1<->n4", "n1<->n5", "n2<->n3", "n2<->n4",
                                             "n2<->n5", "n3<->n4", "n3<->n5"});  // not n4<->n5
  CHECK(link_count(m) == 9);
  CHECK(links[0].status == Outcome::kFail);
  CHECK(links[0].reason == "slow link: both ends are fine with their other partners");
  CHECK(*links[0].measured == doctest::Approx(4e9));  // the slower direction
  CHECK(*links[0].margin_pct == doctest::Approx(-60));
  REQUIRE(links[0].evidence.size() == 2);
  CHECK(links[0].evidence[1].metric == "bytes/s n2 -> n1");
  CHECK(*links[0].evidence[1].value == doctest::Approx(4.2e9));
  CHECK(links[6].subject == "n2<->n5");
  CHECK(*links[6].measured == doctest::Approx(9.8e9));  // one way only
  CHECK_FALSE(links[6].evidence[1].value);
  CHECK(links[7].status == Outcome::kNotChecked);
  CHECK(links[7].reason == "one round only");
  CHECK(links[1].status == Outcome::kPass);
  // A document without reference_bytes_per_s / pair_ratio: the fleet median and 0.15.
  CHECK(links[1].reason == "pair at or above the pair ratio 0.15 x the fleet median");
  // The outlines agree with the verdicts; the counts come from them.
  size_t k = 0;
  for_each_link_outline(m, [&](const LinkOutline& o) {
    REQUIRE(k < links.size());
    CHECK(o.status == links[k].status);
    CHECK(o.margin_pct == links[k].margin_pct);
    ++k;
  });
  CHECK(k == 9);
  const auto c = count_outcomes(m);
  CHECK(c.fail == 1);        // the link (no node failed)
  CHECK(c.not_checked == 1);  // n3<->n4
  CHECK(c.pass == 5 + 7);    // the nodes and the other links
  CHECK(m.chains.size() == 1);
  CHECK(m.chains[0].subject == "n1<->n2");
}

TEST_CASE("links_to_list lists what a stable sort on (passed, margin) lists first") {
  const ReportModel m = model_from(nlohmann::json::parse(kPairwise), "pw.json");
  const auto links = all_links(m);
  for (size_t limit : {1, 2, 3, 5, 8, 9, 20}) {
    CAPTURE(limit);
    std::vector<size_t> order(links.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    auto rank = [&](size_t i) { return links[i].status == Outcome::kPass ? 1 : 0; };
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      if (rank(a) != rank(b)) return rank(a) < rank(b);
      return rank(a) == 1 && links[a].margin_pct.value_or(0) < links[b].margin_pct.value_or(0);
    });
    if (links.size() <= limit) order = {0, 1, 2, 3, 4, 5, 6, 7, 8};  // every link, in order
    order.resize(std::min(limit, links.size()));
    const auto listed = link_verdicts(m, links_to_list(m, limit));
    REQUIRE(listed.size() == order.size());
    for (size_t i = 0; i < order.size(); ++i) CHECK(listed[i].subject == links[order[i]].subject);
  }
}

TEST_CASE("a document parsed with packed matrix rows gives the same report as the plain tree") {
  const auto packed = parse_result_json(kPairwise);
  const auto plain = nlohmann::json::parse(kPairwise);
  const auto& rows = packed["data"]["matrix_bytes_per_s"];
  REQUIRE(rows.size() == 5);
  CHECK(is_packed_row(rows[0]));
  CHECK(packed_row_size(rows[0]) == 5);
  CHECK_FALSE(packed_row_at(rows[0], 0));
  CHECK(*packed_row_at(rows[0], 1) == 4e9);
  CHECK_FALSE(is_packed_row(packed["data"]["hosts"]));  // only matrix rows are packed
  const ReportModel a = model_from(packed, "pw.json"), b = model_from(plain, "pw.json");
  CHECK(report_json(a) == report_json(b));
  CHECK(render_junit(a) == render_junit(b));
  CHECK(render_html(a, "t") == render_html(b, "t"));
  // A row with an item that is not a number stays a tree (read as before: that cell unmeasured).
  auto odd = parse_result_json(R"({"data": {"matrix_bytes_per_s": [[null, "x"], [1, null]]}})");
  CHECK_FALSE(is_packed_row(odd["data"]["matrix_bytes_per_s"][0]));
  CHECK(is_packed_row(odd["data"]["matrix_bytes_per_s"][1]));
  // Rows of a matrix deep inside (an import's parts) are packed too; not JSON stays discarded.
  auto pile = parse_result_json(R"({"data": {"parts": [{"data": {"matrix_bytes_per_s": [[null, 2], [3, null]]}}]}})");
  CHECK(is_packed_row(pile["data"]["parts"][0]["data"]["matrix_bytes_per_s"][1]));
  CHECK(parse_result_json("{\"data\": [1, 2").is_discarded());
}

TEST_CASE("a triage screen's links: its outliers cleared by the walk, the walk's suspect links fail") {
  auto j = nlohmann::json::parse(kPairwise);
  j["schema"] = "fabdiag.triage/1";
  nlohmann::json screen = j["data"];
  j["data"] = {{"hosts", screen["hosts"]},
               {"pairwise", screen},
               {"suspects", {{{"kind", "link"}, {"hosts", {"n3", "n2"}}, {"layer", "L2"}, {"action", "reseat"}},
                             {{"kind", "link"}, {"hosts", {"n4", "n5"}}, {"layer", "L2"}, {"action", "cable"}}}}};
  const ReportModel m = model_from(j, "triage.json");
  const auto links = all_links(m);
  REQUIRE(links.size() == 10);  // the screen's nine, then n4<->n5 (not measured) stored
  CHECK(links[0].status == Outcome::kPass);
  CHECK(links[0].reason == "the screen's outlier, cleared by the walk");
  CHECK(links[4].subject == "n2<->n3");
  CHECK(links[4].status == Outcome::kFail);
  CHECK(links[4].reason == "suspect link");
  CHECK(links[9].subject == "n4<->n5");
  CHECK(links[9].check == "link");
  REQUIRE(m.heatmaps.size() == 1);
  CHECK(m.heatmaps[0].title.rfind("Triage screen: ", 0) == 0);
  CHECK(m.heatmaps[0].suspect_links.size() == 2);
}
