// A matrix link's status in the report comes from the pairwise rule (perf/pairwise_analysis.h,
// docs/localization.md#fabdiag-pairwise) as the result recorded it; values that are no
// bandwidth, damaged matrices and documents without data are gaps in errors[].
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/matrix_links.h"
#include "report/result_model.h"

using namespace fabdiag;

namespace {

ReportModel model_from(const std::string& text, const std::string& file = "pw.json") {
  auto env = envelope_from_json(nlohmann::json::parse(text));
  REQUIRE(env);
  return model_of(*env, file);
}

const Verdict& link(const std::vector<Verdict>& links, const std::string& subject) {
  for (const auto& v : links)
    if (v.subject == subject) return v;
  FAIL("no link " << subject);
  return links.front();
}

std::string doc(const std::string& data) {
  return R"({"schema": "fabdiag.pairwise/1", "started_at": "2026-01-01T00:00:00Z", "findings": [], "errors": [], "data": )" +
         data + "}";
}

// The tester's list as `import pairs` writes it: n1..n6 at 90 GB/s, n7<->n8 at 5 GB/s, the
// fabric thresholds (p90 reference, 0.75 ratios).
const char* kSixPairs = R"({"hosts": ["n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8"],
  "matrix_bytes_per_s": [[null, 90e9, 90e9, null, null, null, null, null], [90e9, null, null, 90e9, null, null, null, null],
                         [90e9, null, null, 90e9, null, null, null, null], [null, 90e9, 90e9, null, null, null, null, null],
                         [null, null, null, null, null, 90e9, null, null], [null, null, null, null, 90e9, null, null, null],
                         [null, null, null, null, null, null, null, 5e9], [null, null, null, null, null, null, 5e9, null]],
  "node_median_bytes_per_s": {"n1": 90e9, "n2": 90e9, "n3": 90e9, "n4": 90e9, "n5": 90e9, "n6": 90e9, "n7": 5e9, "n8": 5e9},
  "fleet_median_bytes_per_s": 90e9, "reference_bytes_per_s": 90e9, "reference_source": "p90 of pairs",
  "pair_ratio": 0.75, "node_ratio": 0.75, "outlier_nodes": [], "outlier_links": [],
  "inconclusive": [{"hosts": ["n7"], "reason": "n7: no partner known good"}, {"hosts": ["n8"], "reason": "n8: no partner known good"},
                   {"hosts": ["n7", "n8"], "reason": "slow pair at 0.06 of the p90 of pairs"}]})";

}  // namespace

TEST_CASE("link rule: a slow pair is never a pass, and pinned on nothing it is not checked with the reason") {
  const ReportModel m = model_from(doc(kSixPairs));
  const auto links = all_links(m);
  REQUIRE(links.size() == 6);
  const Verdict& slow = link(links, "n7<->n8");
  CHECK(slow.status == Outcome::kNotChecked);
  CHECK(slow.reason == "slow pair at 0.06 of the p90 of pairs");
  CHECK(*slow.expected == doctest::Approx(90e9));  // the reference, not a median of medians
  CHECK(*slow.margin_pct == doctest::Approx(-94.44).epsilon(0.001));
  const Verdict& fine = link(links, "n1<->n2");
  CHECK(fine.status == Outcome::kPass);
  CHECK(fine.reason == "pair at or above the pair ratio 0.75 x the p90 of pairs");
  CHECK(m.errors.empty());
}

TEST_CASE("link rule: a slow pair between judged ends that the result did not name still fails") {
  nlohmann::json d = nlohmann::json::parse(kSixPairs);
  d["inconclusive"] = nlohmann::json::array();  // e.g. a document whose z test kept the link out
  const auto links = all_links(model_from(doc(d.dump())));
  const Verdict& slow = link(links, "n7<->n8");
  CHECK(slow.status == Outcome::kFail);
  CHECK(slow.reason == "slow pair: below the pair ratio 0.75 x the p90 of pairs");
}

TEST_CASE("link rule: a slow pair with a slow node at an end fails, explained by the node, and no link chain") {
  nlohmann::json d = nlohmann::json::parse(kSixPairs);
  d["inconclusive"] = nlohmann::json::array();
  d["outlier_nodes"] = nlohmann::json::array({{{"host", "n7"}, {"median_bytes_per_s", 5e9}, {"ratio", 0.0556}, {"partners", 1}}});
  const ReportModel m = model_from(doc(d.dump()));
  const auto links = all_links(m);
  const Verdict& slow = link(links, "n7<->n8");
  CHECK(slow.status == Outcome::kFail);
  CHECK(slow.reason == "slow pair: below the pair ratio 0.75 x the p90 of pairs, explained by the slow node n7");
  for (const auto& c : m.chains) CHECK(c.kind == "node");
}

TEST_CASE("link rule: without a reference every link is not checked") {
  const auto links = all_links(model_from(doc(R"({"hosts": ["a", "b"], "matrix_bytes_per_s": [[null, 1e9], [1e9, null]],
    "reference_bytes_per_s": null, "reference_source": "", "pair_ratio": 0.15,
    "inconclusive": [{"hosts": ["a", "b"], "reason": "1 measured pair(s) and no baseline"}]})")));
  REQUIRE(links.size() == 1);
  CHECK(links[0].status == Outcome::kNotChecked);
  CHECK(links[0].reason == "1 measured pair(s) and no baseline");
}

TEST_CASE("a matrix cell that is no bandwidth is a gap naming the file and the cell, never a link") {
  nlohmann::json d = nlohmann::json::parse(kSixPairs);
  d["matrix_bytes_per_s"][6][7] = -5e9;
  d["matrix_bytes_per_s"][7][6] = 1e15;  // 1 PB/s: a unit mistake
  const ReportModel m = model_from(doc(d.dump()), "neg.json");
  for (const auto& v : all_links(m)) CHECK(v.subject != "n7<->n8");
  REQUIRE(m.errors.size() == 1);
  CHECK(m.errors[0].error.message ==
        "pairwise matrix_bytes_per_s: 2 cell(s) not a bandwidth (negative, not finite or above 1e14 bytes/s), first n7 -> n8 "
        "= -5e+09; not read");
  CHECK(m.errors[0].error.source == "neg.json");
}

TEST_CASE("a short row and missing rows are gaps naming the file and the row, the rest is read") {
  nlohmann::json d = nlohmann::json::parse(kSixPairs);
  d["matrix_bytes_per_s"][1] = nlohmann::json::array({90e9});
  d["matrix_bytes_per_s"].erase(7);
  const ReportModel m = model_from(doc(d.dump()), "short.json");
  REQUIRE(m.errors.size() == 2);
  CHECK(m.errors[0].error.message ==
        "pairwise matrix_bytes_per_s has 7 rows for 8 hosts: row 7 (n8) missing, those hosts' sends not measured");
  CHECK(m.errors[1].error.message ==
        "pairwise matrix_bytes_per_s: 1 row(s) not read whole (row 1 (n2): 1 of 8 cells); their missing cells are not measured");
  CHECK(m.errors[1].error.source == "short.json");
  CHECK(link(all_links(m), "n1<->n2").status == Outcome::kPass);  // n1 -> n2 still read
  CHECK(link(all_links(m), "n7<->n8").status == Outcome::kNotChecked);  // n7 -> n8 still read
}

TEST_CASE("a result of a known schema with no data is a gap naming the file and what is missing") {
  for (const auto& entry : std::vector<std::pair<std::string, std::string>>{
           {"fabdiag.pairwise/1", "hosts[] and matrix_bytes_per_s"},
           {"fabdiag.accept/1", "checks[] or nodes[]"},
           {"fabdiag.triage/1", "hosts[], suspects[] or pairwise"},
           {"fabdiag.bench/1", "results[] or tables[]"},
           {"fabdiag.baseline_diff/1", "rows[]"}}) {
    const std::string& schema = entry.first;  // not a structured binding: CAPTURE's lambda takes it (clang)
    const std::string& want = entry.second;
    CAPTURE(schema);
    const ReportModel m = model_from(R"({"schema": ")" + schema + R"(", "data": {}})", "e.json");
    REQUIRE(m.errors.size() == 1);
    CHECK(m.errors[0].error.message == schema + " data has nothing to report: expected " + want);
    CHECK(m.errors[0].error.source == "e.json");
  }
}
