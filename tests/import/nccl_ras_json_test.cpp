// NCCL RAS JSON reports (`ncclras -f json`, NCCL 2.28.7+): tests/fixtures/nccl_ras (SOURCES.md)
// and variants written inline in the same shape.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "import/format_detect.h"
#include "import/nccl_ras.h"

using namespace fabdiag;

namespace {

std::string fixture(const std::string& rel) {
  auto text = read_file(std::string(FABDIAG_SOURCE_DIR) + "/tests/fixtures/nccl_ras/" + rel);
  REQUIRE_MESSAGE(text.ok(), rel);
  return *text;
}

const Finding* with_code(const std::vector<Finding>& fs, const std::string& code) {
  for (const auto& f : fs)
    if (f.code == code) return &f;
  return nullptr;
}

bool has(const std::string& s, const std::string& w) { return s.find(w) != std::string::npos; }

// One communicator in the printed shape, ranks given as whole records.
std::string one_comm(const std::string& head, const std::string& ranks, const std::string& missing = "") {
  return "{\n  \"nccl_version\": \"2.29.2\",\n  \"communicators_count\": 1,\n  \"communicators\": [\n    {\n" + head +
         "      \"ranks\": [\n" + ranks + "\n      ],\n      \"missing_ranks\": [\n" + missing +
         "\n      ]\n    }\n  ],\n  \"ras\": {\n    \"collection_time_sec\": 0.001,\n    \"timeouts_count\": 0\n  }\n}\n";
}

std::string rank(int r, int allreduce, int status_async = 0, bool finalize = false) {
  return "        {\"rank\": " + std::to_string(r) + ", \"host\": \"h" + std::to_string(r / 4) + "\", \"pid\": " +
         std::to_string(100 + r) + ", \"cuda_dev\": " + std::to_string(r % 4) + ", \"nvml_dev\": " + std::to_string(r % 4) +
         ", \"status\": {\"init_state\": 0, \"async_error\": " + std::to_string(status_async) +
         ", \"finalize_called\": " + (finalize ? "true" : "false") +
         ", \"destroy_flag\": false, \"abort_flag\": false}, \"collective_counts\": {\"AllReduce\": " +
         std::to_string(allreduce) + "}}";
}

}  // namespace

TEST_CASE("nccl_ras json: NCCL's documented sample, one rank missing and unresponsive") {
  auto rep = import_nccl_ras(fixture("json-nccl-docs-sample-missing-rank.json"), "docs.json");
  REQUIRE(rep.ok());
  CHECK(rep->form == "json");
  CHECK(rep->gaps.empty());
  CHECK(rep->nccl_version == "2.29.1");
  CHECK(rep->cuda_runtime == 13000);
  CHECK(rep->timestamp == "2025-12-19 13:06:53");
  CHECK(rep->communicators_count == 1);
  CHECK(rep->collection_s == 0.0);
  REQUIRE(rep->comms.size() == 1);
  CHECK(rep->comms[0].hash == "ae94423cfbb2ef4a");
  CHECK(rep->comms[0].size == 2);
  CHECK(rep->comms[0].ranks_read == 1);
  CHECK(rep->comms[0].missing_read == 1);
  REQUIRE(rep->entries.size() == 1);
  const auto& e = rep->entries[0];
  CHECK(e.kind == "INCOMPLETE");
  CHECK(e.error);
  CHECK(e.comm == "#0");
  CHECK(e.what == "Missing communicator data from 1 rank");
  REQUIRE(e.ranks.size() == 1);
  CHECK(e.ranks[0].rank == 1);
  CHECK(e.ranks[0].gpu == "1");
  CHECK(e.ranks[0].pid == 1524345);
  CHECK(e.ranks[0].node == "172.16.64.245");
  auto fs = nccl_ras_findings(*rep, "docs.json");
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].code == "nccl_ras_incomplete");
  CHECK(fs[0].severity == Severity::kError);
  CHECK(has(fs[0].message, "rank 1 (GPU 1, process 1524345 on node 172.16.64.245)"));
  CHECK(fs[0].evidence.at(0).source == "docs.json:38");
}

TEST_CASE("nccl_ras json: a dead rank, one rank an AllReduce behind, an async error, timeouts") {
  auto rep = import_nccl_ras(fixture("json-8rank-dead-lagging-async-error.json"), "r.json");
  REQUIRE(rep.ok());
  CHECK(rep->gaps.empty());
  CHECK(rep->nccl_version == "2.29.2");
  CHECK(rep->timeouts == 2);
  REQUIRE(rep->comms.size() == 2);
  CHECK(rep->comms[0].hash == "78db921d1c117b4a");
  CHECK(rep->comms[1].ranks_read == 2);
  REQUIRE(rep->entries.size() == 5);
  CHECK(rep->entries[0].kind == "INCOMPLETE");
  CHECK(rep->entries[0].text.at(0) == "1 of them unresponsive to RAS, 1 considered dead");
  CHECK(rep->entries[1].kind == "DEAD");
  CHECK(rep->entries[1].ranks.at(0).rank == 7);
  CHECK(rep->entries[1].ranks.at(0).node == "10.0.0.2");
  CHECK(rep->entries[1].ranks.at(0).gpu == "3");
  const auto& m = rep->entries[2];
  CHECK(m.kind == "MISMATCH");
  CHECK_FALSE(m.error);
  CHECK(m.what == "Communicator ranks have different AllReduce operation counts");
  REQUIRE(m.counts.size() == 2);
  CHECK(m.counts[0].ranks == 6);
  CHECK(m.counts[0].op == 6650);
  CHECK(m.counts[0].listed.empty());
  CHECK(m.counts[1].ranks == 1);
  CHECK(m.counts[1].op == 6649);
  CHECK(m.counts[1].listed == std::vector<int64_t>{6});
  CHECK(rep->entries[3].kind == "ERROR");
  CHECK(rep->entries[3].comm == "#1");
  CHECK(rep->entries[3].what == "Asynchronous error on 1 rank");
  CHECK(rep->entries[3].text.at(0) == "1 rank reported asynchronous: Remote process error");
  CHECK(rep->entries[4].kind == "TIMEOUT");

  auto data = nccl_ras_data(*rep);
  CHECK(data["form"] == "json");
  CHECK(data["entries"][2]["lagging_ranks"] == 1);
  CHECK(data["entries"][2]["ahead"].empty());
  CHECK(data["comms"][0]["missing_ranks_count"] == 1);

  auto fs = nccl_ras_findings(*rep, "r.json");
  REQUIRE(fs.size() == 5);
  const Finding* dead = with_code(fs, "nccl_ras_dead");
  REQUIRE(dead);
  CHECK(dead->severity == Severity::kError);
  CHECK(has(dead->message, "rank 7 (GPU 3, process 31007 on node 10.0.0.2)"));
  const Finding* mm = with_code(fs, "nccl_ras_mismatch");
  REQUIRE(mm);
  CHECK(mm->severity == Severity::kWarn);
  CHECK(has(mm->message, "1 ranks lag behind operation 6650"));
  const Finding* err = with_code(fs, "nccl_ras_error");
  REQUIRE(err);
  CHECK(has(err->message, "rank 1 (GPU 1, process 31001 on node 10.0.0.1)"));
  const Finding* to = with_code(fs, "nccl_ras_timeout");
  REQUIRE(to);
  CHECK(to->severity == Severity::kWarn);
}

TEST_CASE("nccl_ras json: a document cut inside a rank record keeps the complete records") {
  auto rep = import_nccl_ras(fixture("json-cut-in-second-comm.json"), "cut.json");
  REQUIRE(rep.ok());
  REQUIRE(rep->comms.size() == 2);
  CHECK_FALSE(rep->comms[0].cut);
  CHECK(rep->comms[1].cut);
  CHECK(rep->comms[1].ranks_read == 1);  // rank 0 whole, rank 1 cut
  CHECK_FALSE(rep->timeouts.has_value());  // the "ras" footer was never written
  REQUIRE(rep->gaps.size() == 1);
  CHECK(has(rep->gaps[0].message, "cut"));
  CHECK(has(rep->gaps[0].message, "kept 2 communicators (the last one with its 1 complete rank records)"));
  CHECK(rep->gaps[0].source == "cut.json:207");
  // comm #0's entries are all there; the cut one is not called INCONSISTENT for its missing records
  for (const auto& e : rep->entries) CHECK(e.kind != "INCONSISTENT");
  CHECK(rep->entries.size() == 3);
}

TEST_CASE("nccl_ras json: healthy, inconsistent, status mismatch, bad input") {
  SUBCASE("healthy: no entry, no finding") {
    auto rep = import_nccl_ras(fixture("json-4rank-healthy.json"), "ok.json");
    REQUIRE(rep.ok());
    CHECK(rep->entries.empty());
    CHECK(rep->gaps.empty());
    CHECK(nccl_ras_findings(*rep, "ok.json").empty());
  }
  SUBCASE("counts that do not add up and a rank twice are INCONSISTENT") {
    std::string head = "      \"hash\": \"0x1\",\n      \"size\": 4,\n      \"ranks_count\": 3,\n      \"missing_ranks_count\": 0,\n";
    auto rep = import_nccl_ras(one_comm(head, rank(0, 5) + ",\n" + rank(0, 5)), "inc.json");
    REQUIRE(rep.ok());
    REQUIRE(rep->entries.size() == 1);
    const auto& e = rep->entries[0];
    CHECK(e.kind == "INCONSISTENT");
    CHECK(e.hash == "0000000000000001");
    REQUIRE(e.text.size() == 3);
    CHECK(e.text[0] == "\"ranks_count\" is 3 but 2 rank records follow");
    CHECK(e.text[1] == "\"size\" 4 is not ranks_count + missing_ranks_count (3)");
    CHECK(e.text[2] == "rank 0 has more than one record");
    auto fs = nccl_ras_findings(*rep, "inc.json");
    CHECK(fs.at(0).code == "nccl_ras_inconsistent");
    CHECK(fs.at(0).severity == Severity::kWarn);
  }
  SUBCASE("a communicators_count that disagrees is INCONSISTENT") {
    std::string head = "      \"hash\": \"0x2\",\n      \"size\": 1,\n      \"ranks_count\": 1,\n      \"missing_ranks_count\": 0,\n";
    std::string t = one_comm(head, rank(0, 5));
    t.replace(t.find("\"communicators_count\": 1"), 24, "\"communicators_count\": 3");
    auto rep = import_nccl_ras(t, "cc.json");
    REQUIRE(rep.ok());
    REQUIRE(rep->entries.size() == 1);
    CHECK(rep->entries[0].what == "\"communicators_count\" is 3 but 1 communicators are listed");
  }
  SUBCASE("one rank in ncclCommFinalize: status MISMATCH lists it") {
    std::string head = "      \"hash\": \"0x3\",\n      \"size\": 8,\n      \"ranks_count\": 8,\n      \"missing_ranks_count\": 0,\n";
    std::string ranks;
    for (int r = 0; r < 8; ++r) ranks += (r ? ",\n" : "") + rank(r, 9, 0, r == 5);
    auto rep = import_nccl_ras(one_comm(head, ranks), "st.json");
    REQUIRE(rep.ok());
    REQUIRE(rep->entries.size() == 1);
    CHECK(rep->entries[0].what == "Communicator ranks have different status");
    CHECK(rep->entries[0].text == std::vector<std::string>{"7 ranks have status RUNNING", "1 rank has status FINALIZE"});
    REQUIRE(rep->entries[0].ranks.size() == 1);
    CHECK(rep->entries[0].ranks[0].rank == 5);
    CHECK(rep->entries[0].ranks[0].node == "h1");
  }
  SUBCASE("malformed JSON before any communicator is refused with file:line") {
    auto rep = import_nccl_ras("{\n  \"nccl_version\": \"2.29.2\",\n  \"communicators\": [ oops\n", "bad.json");
    REQUIRE_FALSE(rep.ok());
    CHECK(rep.error().source == "bad.json:3");
  }
  SUBCASE("JSON that is not a RAS report is refused") {
    auto rep = import_nccl_ras("{\n  \"version\": 2,\n  \"results\": []\n}\n", "other.json");
    REQUIRE_FALSE(rep.ok());
    CHECK(has(rep.error().message, "RAS JSON report"));
  }
  SUBCASE("a one-line (compact) document reads the same") {
    auto rep = import_nccl_ras(
        "{\"nccl_version\":\"2.29.2\",\"communicators_count\":1,\"communicators\":[{\"hash\":\"0x9\",\"size\":2,"
        "\"ranks_count\":2,\"missing_ranks_count\":0,\"ranks\":[{\"rank\":0,\"host\":\"a\",\"pid\":1,\"cuda_dev\":0,"
        "\"nvml_dev\":0,\"collective_counts\":{\"AllReduce\":3}},{\"rank\":1,\"host\":\"b\",\"pid\":2,\"cuda_dev\":0,"
        "\"nvml_dev\":0,\"collective_counts\":{\"AllReduce\":0}}],\"missing_ranks\":[]}]}\n",
        "compact.json");
    REQUIRE(rep.ok());
    REQUIRE(rep->entries.size() == 1);
    REQUIRE(rep->entries[0].counts.size() == 2);
    CHECK(rep->entries[0].counts[1].op == -1);  // 0: "have not launched any operations"
  }
}

TEST_CASE("nccl_ras json: detection, a RAS JSON report is nccl-ras and nccl-tests -J is not") {
  CHECK(detect_tool_in_text(fixture("json-nccl-docs-sample-missing-rank.json")).tool == ToolText::kNcclRas);
  CHECK(detect_tool_in_text(fixture("json-8rank-dead-lagging-async-error.json")).tool == ToolText::kNcclRas);
  CHECK(detect_tool_in_text(fixture("monitor-peer-dead.txt")).tool == ToolText::kNcclRas);
  CHECK(detect_tool_in_text(fixture("monitor-json-cut.json")).tool == ToolText::kNcclRas);
  for (const char* f : {"json-v2-allreduce-2node.pretty.json", "json-v2-allreduce-2node.json", "json-v2-allreduce-cut.json"}) {
    auto tests_json = read_file(std::string(FABDIAG_SOURCE_DIR) + "/tests/fixtures/nccl-tests/" + f);
    REQUIRE(tests_json.ok());
    CHECK_MESSAGE(detect_tool_in_text(*tests_json).tool != ToolText::kNcclRas, f);
  }
  CHECK(detect_tool_in_text("{\n  \"nccl_version\": \"2.29.2\",\n  \"a\": 1\n}\n").tool == ToolText::kUnknown);
}
