#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "report/matrix_links.h"
#include "report/result_model.h"
#include "report/result_sources.h"

using namespace fabdiag;

namespace {

Envelope load(const std::string& rel) {
  std::ifstream in(std::string(FABDIAG_SOURCE_DIR) + "/" + rel);
  std::stringstream ss;
  ss << in.rdbuf();
  auto env = envelope_from_json(nlohmann::json::parse(ss.str()));
  REQUIRE(env);
  return *env;
}

Envelope pairwise_envelope() {
  Envelope env;
  env.schema = "fabdiag.pairwise/1";
  env.hosts = {"n1", "n2", "n3", "n4"};
  env.data = nlohmann::json::parse(R"({
    "hosts": ["n1", "n2", "n3", "n4"], "size_bytes": 1048576, "iters": 3, "rounds": [],
    "matrix_bytes_per_s": [[null, 10e9, 10e9, 5e9], [10e9, null, 10e9, 5e9], [10e9, 10e9, null, 5e9], [5e9, 5e9, null, null]],
    "node_median_bytes_per_s": {"n1": 10e9, "n2": 10e9, "n3": 10e9, "n4": 5e9},
    "fleet_median_bytes_per_s": 10e9,
    "outlier_nodes": [{"host": "n4", "median_bytes_per_s": 5e9, "ratio": 0.5, "partners": 3}],
    "outlier_links": [], "inconclusive": []})");
  return env;
}

// The shape `fabdiag accept` writes (fabdiag.accept/1 data: nodes[] {host, status}, checks[]
// {scope, subject, check, status, measured, expected, unit, margin_pct, evidence[], reason}).
Envelope accept_envelope() {
  auto env = envelope_from_json(nlohmann::json::parse(R"({
    "schema": "fabdiag.accept/1", "hosts": ["node01", "node02", "node03"], "started_at": "2026-12-01T02:00:00Z",
    "data": {
      "nodes": [{"host": "node01", "status": "pass"}, {"host": "node02", "status": "fail"},
                {"host": "node03", "status": "not_checked"}],
      "checks": [
        {"scope": "node", "subject": "node01", "check": "gpus", "status": "pass", "measured": 8, "expected": 8,
         "unit": "count", "margin_pct": 0, "evidence": [], "reason": ""},
        {"scope": "node", "subject": "node02", "check": "busbw all_reduce 64 MiB", "status": "fail", "measured": 91e9,
         "expected": 170e9, "unit": "bytes/s", "margin_pct": -46.5, "reason": "",
         "evidence": [{"metric": "busbw all_reduce 64 MiB", "value": 91e9, "unit": "bytes/s", "threshold": 170e9,
                       "source": "bench all_reduce on node02"}]},
        {"scope": "node", "subject": "node03", "check": "busbw all_reduce 64 MiB", "status": "not_checked",
         "measured": null, "expected": 170e9, "unit": "bytes/s", "margin_pct": null, "evidence": [], "reason": "not run"},
        {"scope": "link", "subject": "node01<->node02", "check": "symbol errors over the soak", "status": "fail",
         "measured": 1250, "expected": 0, "unit": "count", "margin_pct": null, "reason": "rose during the soak",
         "evidence": [{"metric": "symbol_error delta", "value": 1250, "unit": "count", "threshold": 0,
                       "source": "/sys/class/infiniband/mlx5_0/ports/1/counters/symbol_error"}]},
        {"scope": "link", "subject": "node02<->node03", "check": "pair bandwidth", "status": "pass", "measured": 46e9,
         "expected": 45e9, "unit": "bytes/s", "margin_pct": 2.2, "evidence": [], "reason": ""}]},
    "findings": [{"severity": "error", "layer": "L4", "code": "accept_symbol_errors", "subject": "node01<->node02",
                  "message": "1250 symbol errors", "evidence": [], "action": "reseat"}],
    "errors": []})"));
  REQUIRE(env);
  return *env;
}

const Verdict* find(const std::vector<Verdict>& list, const std::string& subject, const std::string& check = "") {
  for (const auto& v : list)
    if (v.subject == subject && (check.empty() || v.check == check)) return &v;
  return nullptr;
}

}  // namespace

TEST_CASE("outcome names round-trip and worse orders fail above not_checked above pass") {
  for (auto o : {Outcome::kPass, Outcome::kFail, Outcome::kNotChecked}) CHECK(parse_outcome(to_string(o)) == o);
  CHECK_FALSE(parse_outcome("ok"));
  CHECK(worse(Outcome::kPass, Outcome::kNotChecked) == Outcome::kNotChecked);
  CHECK(worse(Outcome::kFail, Outcome::kNotChecked) == Outcome::kFail);
}

TEST_CASE("accept document gives its nodes and checks, links from its link checks") {
  ReportModel m;
  add_document(m, "accept.json", accept_envelope());
  REQUIRE(m.nodes.size() == 3);
  const Verdict* n2 = find(m.nodes, "node02");
  REQUIRE(n2);
  CHECK(n2->status == Outcome::kFail);
  CHECK(n2->reason == "failed: busbw all_reduce 64 MiB");
  CHECK(n2->measured == doctest::Approx(91e9));
  CHECK(n2->expected == doctest::Approx(170e9));
  CHECK(n2->evidence.size() == 1);
  CHECK(find(m.nodes, "node03")->status == Outcome::kNotChecked);
  CHECK(m.checks.size() == 5);  // accept's findings are not checks again
  const Verdict* sym = find(m.checks, "node01<->node02", "symbol errors over the soak");
  REQUIRE(sym);
  CHECK(sym->status == Outcome::kFail);
  CHECK(sym->measured == doctest::Approx(1250));
  CHECK(sym->evidence.at(0).source == "/sys/class/infiniband/mlx5_0/ports/1/counters/symbol_error");
  REQUIRE(all_links(m).size() == 2);  // node01<->node02, node02<->node03
  CHECK(find(all_links(m), "node01<->node02")->status == Outcome::kFail);
  CHECK(find(all_links(m), "node02<->node03")->status == Outcome::kPass);
  CHECK(m.findings.size() == 1);
  CHECK(m.chains.size() == 2);  // node02 and the link
  const auto c = count_outcomes(m);
  CHECK(c.fail == 4);  // node02, the link, two checks
  CHECK(c.not_checked == 2);
  CHECK(c.pass == 4);  // node01, node02<->node03, two checks
}

TEST_CASE("pairwise document gives a node per host, a link per measured pair, the heatmap") {
  auto m = model_of(pairwise_envelope(), "pw.json");
  REQUIRE(m.nodes.size() == 4);
  CHECK(find(m.nodes, "n4")->status == Outcome::kFail);
  CHECK(find(m.nodes, "n4")->expected == doctest::Approx(10e9));  // median / ratio
  CHECK(find(m.nodes, "n4")->margin_pct == doctest::Approx(-50));
  CHECK(find(m.nodes, "n1")->status == Outcome::kPass);
  CHECK(all_links(m).size() == 6);  // n3<->n4 measured one way only still counts
  CHECK(find(all_links(m), "n3<->n4")->measured == doctest::Approx(5e9));
  REQUIRE(m.heatmaps.size() == 1);
  CHECK(m.heatmaps[0].suspect_hosts == std::vector<std::string>{"n4"});
  CHECK_FALSE(m.heatmaps[0].at(3, 2));
  CHECK(*m.heatmaps[0].at(0, 1) == doctest::Approx(10e9));
  REQUIRE(m.chains.size() == 1);
  CHECK(m.chains[0].subject == "n4");
}

TEST_CASE("findings at warn or above become failing checks on their node") {
  auto env = pairwise_envelope();
  env.findings.push_back(Finding{Severity::kError, Layer::kLocalization, "pairwise_slow_node", "n4", "n4 is slow",
                                 {Evidence::number("median", 5e9, "bytes/s", "m").expect(10e9, "ref")}, "look"});
  env.findings.push_back(Finding{Severity::kInfo, Layer::kLocalization, "note", "n1", "fine", {}, ""});
  auto m = model_of(env, "pw.json");
  REQUIRE(m.checks.size() == 1);
  CHECK(m.checks[0].scope == "node");
  CHECK(m.checks[0].check == "pairwise_slow_node");
  CHECK(m.checks[0].margin_pct == doctest::Approx(-50));
  CHECK(m.findings.size() == 2);
}

TEST_CASE("baseline diff rows become checks, the band and the current curve") {
  Envelope env;
  env.schema = "fabdiag.baseline_diff/1";
  env.data = nlohmann::json::parse(R"({"tolerance": 0.1, "spread_k": 3.5, "suspect_hosts": ["n2"], "rows": [
    {"kind": "collective", "collective": "all_reduce", "size_bytes": 1048576, "scope": "", "baseline_bytes_per_s": 1e9,
     "current_bytes_per_s": 0.7e9, "ratio": 0.7, "spread_bytes_per_s": 0.01e9, "drift": false, "status": "regression"},
    {"kind": "collective", "collective": "all_reduce", "size_bytes": 4194304, "scope": "", "baseline_bytes_per_s": 2e9,
     "current_bytes_per_s": 2e9, "ratio": 1.0, "spread_bytes_per_s": null, "drift": false, "status": "ok"},
    {"kind": "pair", "host_a": "n1", "host_b": "n2", "directed": false, "baseline_bytes_per_s": 1e9,
     "current_bytes_per_s": null, "ratio": null, "spread_bytes_per_s": null, "drift": false, "status": "missing"}]})");
  auto m = model_of(env, "diff.json");
  REQUIRE(m.checks.size() == 3);
  CHECK(m.checks[0].status == Outcome::kFail);
  CHECK(m.checks[0].margin_pct == doctest::Approx(-30));
  CHECK(m.checks[1].status == Outcome::kPass);
  CHECK(m.checks[2].status == Outcome::kNotChecked);
  CHECK(m.checks[2].scope == "link");
  REQUIRE(m.curves.size() == 1);
  REQUIRE(m.curves[0].band.size() == 2);
  CHECK(m.curves[0].band[0].low_bytes_per_s == doctest::Approx(0.9e9));  // tolerance wins over 3.5 x spread
  CHECK(m.curves[0].band[0].high_bytes_per_s == doctest::Approx(1.035e9));
  CHECK(m.curves[0].band[1].low_bytes_per_s == doctest::Approx(1.8e9));
  REQUIRE(m.curves[0].series.size() == 1);
  CHECK(m.curves[0].series[0].points.size() == 2);
  CHECK(find(m.nodes, "n2")->status == Outcome::kFail);
  CHECK(find(all_links(m), "n1<->n2")->status == Outcome::kNotChecked);
}

TEST_CASE("bench gives a curve per collective and a wrong-elements check") {
  // Case 001 as `fabdiag import nccl-tests` read it: all_reduce and alltoall tables, 8 nodes.
  auto m = model_of(load("tests/fixtures/report/bench-two-collectives.json"), "bench.json");
  REQUIRE(m.curves.size() == 2);
  CHECK(m.curves[0].collective == "all_reduce");
  CHECK(m.curves[1].collective == "alltoall");
  REQUIRE(m.curves[0].series.size() == 1);
  REQUIRE(m.curves[0].series[0].points.size() == 2);
  CHECK(m.curves[0].series[0].points[0].size_bytes == 268435456);
  CHECK(m.curves[0].series[0].points[0].busbw_bytes_per_s == doctest::Approx(4.33e9));
  CHECK(m.curves[1].series.at(0).points.at(1).busbw_bytes_per_s == doctest::Approx(0.51e9));
  CHECK(m.curves[0].band.empty());
  REQUIRE(m.checks.size() == 3);
  CHECK(m.checks[0].check == "results correct (wrong elements)");
  CHECK(m.checks[0].status == Outcome::kPass);
  CHECK(*m.checks[0].measured == 0);
  // The import's finding: busbw below what the platform's link carries.
  CHECK(m.checks[2].check == "nccl_tests_busbw_below_link");
  CHECK(m.checks[2].status == Outcome::kFail);
  CHECK(*m.checks[2].measured == doctest::Approx(4.33e9));
  CHECK(*m.checks[2].expected == doctest::Approx(11.25e9));
}

TEST_CASE("triage from files: suspects fail their node, device findings land on the host whose folder gave them") {
  auto m = model_of(load("tests/fixtures/report/triage-from.json"), "triage.json");
  REQUIRE(m.nodes.size() == 4);
  CHECK(find(m.nodes, "gpu-node01")->status == Outcome::kPass);
  CHECK(find(m.nodes, "gpu-node02")->status == Outcome::kFail);
  CHECK(find(m.nodes, "gpu-node03")->status == Outcome::kFail);
  CHECK(find(m.nodes, "gpu-node03")->reason.rfind("suspect (L4): ", 0) == 0);
  CHECK(find(m.nodes, "gpu-node03")->evidence.size() == 5);
  const Verdict* flap = find(m.checks, "gpu-node03", "link_flap");  // subject "enp59s0f0", source gpu-node03/syslog.txt
  REQUIRE(flap);
  CHECK(flap->scope == "node");
  CHECK(*flap->measured == 6);
  CHECK(m.checks.size() == 7);
  CHECK(m.chains.size() == 2);
  CHECK(m.errors.size() == 1);  // the triage's own gap, kept with its document
  CHECK(m.errors[0].source == 0);
}

TEST_CASE("a pairwise baseline diff fails the regressed link") {
  auto m = model_of(load("tests/fixtures/report/baseline-diff-pairwise.json"), "diff.json");
  const auto links = all_links(m);
  REQUIRE(links.size() == 3);
  const Verdict* l = find(links, "node01<->node03");
  REQUIRE(l);
  CHECK(l->status == Outcome::kFail);
  CHECK(*l->measured == doctest::Approx(0.52e9));
  CHECK(*l->expected == doctest::Approx(1.12e9));
  CHECK(find(all_links(m), "node01<->node02")->status == Outcome::kPass);
  CHECK(count_outcomes(m).fail == 3);
}

TEST_CASE("live triage suspects fail their node, the screen's heatmap marks them") {
  Envelope env;
  env.schema = "fabdiag.triage/1";
  env.data = nlohmann::json::parse(R"({"hosts": ["a", "b", "c"],
    "suspects": [{"kind": "node", "hosts": ["c"], "layer": "L4", "evidence": [{"metric": "symbol_error delta", "value": 9, "unit": "count"}], "action": "reseat"}],
    "cleared": [{"subject": "a", "reason": "fast with every partner"}], "inconclusive": [],
    "pairwise": {"hosts": ["a", "b", "c"], "matrix_bytes_per_s": [[null, 1, 0.5], [1, null, 0.5], [0.5, 0.5, null]],
                 "outlier_nodes": [], "outlier_links": []},
    "bench": [{"collective": "all_reduce", "results": [{"size_bytes": 1024, "busbw_bytes_per_s": 5e8, "wrong_elements": 0}]}]})");
  auto m = model_of(env, "t.json");
  REQUIRE(m.nodes.size() == 3);
  CHECK(find(m.nodes, "c")->status == Outcome::kFail);
  CHECK(find(m.nodes, "c")->evidence.size() == 1);
  CHECK(find(m.nodes, "a")->reason == "fast with every partner");
  REQUIRE(m.heatmaps.size() == 1);
  CHECK(m.heatmaps[0].suspect_hosts == std::vector<std::string>{"c"});
  CHECK(m.curves.size() == 1);
  CHECK(m.chains.size() == 1);
}

TEST_CASE("an import with parts is read part by part") {
  Envelope env;
  env.schema = "fabdiag.import/1";
  env.data = {{"parts", nlohmann::json::array({{{"schema", "fabdiag.pairwise/1"}, {"data", pairwise_envelope().data}},
                                               {{"schema", "fabdiag.topo/1"}, {"data", nlohmann::json::object()}}})}};
  auto m = model_of(env, "pile");
  REQUIRE(m.sources.size() == 3);
  CHECK(m.sources[1].file == "pile part 1");
  CHECK(m.nodes.size() == 4);
  CHECK(m.nodes[0].source == 1);
}

TEST_CASE("mistyped data of a known schema is a gap naming the file and the key, not a crash nor an empty read") {
  Envelope env;
  env.schema = "fabdiag.pairwise/1";
  env.data = nlohmann::json::parse(R"({"hosts": "n1", "matrix_bytes_per_s": 7, "outlier_nodes": [1, "x"],
                                       "node_median_bytes_per_s": [], "inconclusive": [{"hosts": 3}]})");
  auto m = model_of(env, "bad.json");
  CHECK(m.nodes.empty());
  CHECK(m.heatmaps.empty());
  REQUIRE(m.errors.size() == 1);
  CHECK(m.errors[0].error.source == "bad.json");
  CHECK(m.errors[0].error.message == "malformed fabdiag.pairwise/1 data: hosts: expected a list, got string");
  Envelope acc;
  acc.schema = "fabdiag.accept/1";
  acc.data = nlohmann::json::parse(R"({"nodes": [{"host": 5, "status": 1}], "checks": [{"scope": [], "evidence": {}}]})");
  auto a = model_of(acc, "acc.json");
  CHECK(a.nodes.empty());  // nothing of a malformed document is kept but the gap
  CHECK(a.checks.empty());
  REQUIRE(a.errors.size() == 1);
  CHECK(a.errors[0].error.message.find("malformed fabdiag.accept/1 data: ") == 0);
  // null members are absent, not mistyped.
  Envelope nulls;
  nulls.schema = "fabdiag.pairwise/1";
  nulls.data = nlohmann::json::parse(R"({"hosts": ["n1", "n2"], "matrix_bytes_per_s": [[null, 5e9], [5e9, null]], "outlier_nodes": null})");
  auto n = model_of(nulls, "nulls.json");
  CHECK(n.errors.empty());
  CHECK(n.heatmaps.size() == 1);
}

TEST_CASE("merged nodes keep one row per host with the worst status") {
  ReportModel m;
  add_document(m, "pw.json", pairwise_envelope());
  add_document(m, "accept.json", accept_envelope());
  const auto merged = merged_nodes(m);
  CHECK(merged.size() == 7);  // n1..n4 and node01..node03
  CHECK(find(merged, "n4")->status == Outcome::kFail);
  CHECK(format_measure(91e9, "bytes/s") == "91.00 GB/s");
  CHECK(format_measure(std::nullopt, "count") == "-");
  CHECK(format_measure(12, "count") == "12 count");
}

TEST_CASE("margin: + is room to spare, and a failure above its limit is an at-most check with a negative margin") {
  using fabdiag::report_detail::margin_of;
  using fabdiag::Outcome;
  CHECK(*margin_of(6.0, 1.0, Outcome::kFail) == doctest::Approx(-500));
  CHECK(*margin_of(28.05, 40.0, Outcome::kFail) == doctest::Approx(-29.875));
  CHECK(*margin_of(44.0, 40.0, Outcome::kPass) == doctest::Approx(10));
  CHECK(*margin_of(39.0, 40.0, Outcome::kPass) == doctest::Approx(-2.5));  // a pass below the fleet median
  CHECK_FALSE(margin_of(1.0, 0.0, Outcome::kFail).has_value());
  CHECK_FALSE(margin_of(std::nullopt, 1.0, Outcome::kPass).has_value());
}
