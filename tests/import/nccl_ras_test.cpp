// NCCL RAS text reports: case 047 (MISMATCH of AllGather counts 640 vs 641) and variants.
#include <doctest/doctest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "import/nccl_ras.h"

using namespace fabdiag;

namespace {

std::string fixture(const std::string& rel) {
  auto text = read_file(std::string(FABDIAG_SOURCE_DIR) + "/tests/fixtures/" + rel);
  REQUIRE_MESSAGE(text.ok(), rel);
  return *text;
}

const std::string k047 = "cases/047-nccl-ras-mismatch-allgather-op-counts-640-vs-641.input.txt";

bool warn_or_worse_mentions(const std::vector<Finding>& fs, const std::string& word) {
  for (const auto& f : fs) {
    if (f.severity < Severity::kWarn) continue;
    std::string all = f.subject + " " + f.message + " " + f.action;
    for (const auto& e : f.evidence) all += " " + e.metric + " " + e.value_text + " " + e.source;
    if (all.find(word) != std::string::npos) return true;
  }
  return false;
}

const char* kHealthy =
    "Job summary\n===========\n\n  Nodes  Processes         GPUs  Processes     GPUs\n(total)   per node  per process"
    "    (total)  (total)\n      2          4            1          8        8\n\nCommunicators... (0.00s)\n"
    "=============\n\nGroup     Comms     Nodes     Ranks     Ranks     Ranks    Status  Errors\n    #  in group  per comm"
    "  per node  per comm  in group\n    0         1         2         4         8         8   RUNNING      OK\n";

}  // namespace

TEST_CASE("case 047: RAS MISMATCH, 30 ranks at AllGather 640 and ranks 12 and 13 at 641") {
  auto rep = import_nccl_ras(fixture(k047), "047");
  REQUIRE(rep.ok());
  CHECK(rep->gaps.empty());
  CHECK(rep->nccl_version == "2.26.2");
  CHECK(rep->nodes == 4);
  CHECK(rep->processes_per_node == 8);
  CHECK(rep->processes == 32);
  CHECK(rep->gpus == 32);
  REQUIRE(rep->groups.size() == 1);
  CHECK(rep->groups[0].comms == 1);
  CHECK(rep->groups[0].ranks_per_comm == 32);
  CHECK(rep->groups[0].status == "RUNNING");
  CHECK(rep->groups[0].errors == "MISMATCH");
  REQUIRE(rep->entries.size() == 1);
  const auto& e = rep->entries[0];
  CHECK_FALSE(e.error);  // under Warnings
  CHECK(e.comm == "#0-0");
  CHECK(e.hash == "fa93daea854b060b");
  CHECK(e.kind == "MISMATCH");
  CHECK(e.what == "Communicator ranks have different AllGather operation counts");
  REQUIRE(e.counts.size() == 2);
  CHECK(e.counts[0].ranks == 30);
  CHECK(e.counts[0].op == 640);
  CHECK(e.counts[0].listed.empty());
  CHECK(e.counts[1].ranks == 2);
  CHECK(e.counts[1].op == 641);
  CHECK(e.counts[1].listed == std::vector<int64_t>{12, 13});
  REQUIRE(e.ranks.size() == 2);
  CHECK(e.ranks[0].node == "192.0.2.1");
  CHECK(e.ranks[1].pid == 323033);

  auto data = nccl_ras_data(*rep);
  CHECK(data["entries"][0]["ahead"] == nlohmann::json::array({12, 13}));
  CHECK(data["entries"][0]["lagging_ranks"] == 30);

  auto fs = nccl_ras_findings(*rep, "047");
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].code == "nccl_ras_mismatch");
  CHECK(fs[0].severity == Severity::kWarn);  // one snapshot: at most warn
  CHECK(fs[0].message.find("MISMATCH") != std::string::npos);
  CHECK(fs[0].message.find("30 ranks lag behind operation 641") != std::string::npos);
  CHECK(fs[0].subject.find("fa93daea854b060b") != std::string::npos);
  // must not: blame the node or the ranks that are ahead.
  CHECK_FALSE(warn_or_worse_mentions(fs, "192.0.2.1"));
  CHECK_FALSE(warn_or_worse_mentions(fs, "Rank 12"));
  CHECK_FALSE(warn_or_worse_mentions(fs, "Rank 13"));
}

TEST_CASE("RAS variants: one lagging rank, an INCOMPLETE error, a healthy control, a cut report") {
  SUBCASE("one rank behind, the 'Rank R has launched' form") {
    std::string t = std::string(kHealthy) +
                    "\nWarnings\n========\n\n#0-0 (78db921d1c117b4a) MISMATCH\n"
                    "  Communicator ranks have different AllReduce operation counts\n"
                    "  7 ranks have launched up to operation 64\n"
                    "  Rank 7 has launched up to operation 60 -- GPU 3 managed by process 1650386 on node node1\n";
    auto rep = import_nccl_ras(t, "lag");
    REQUIRE(rep.ok());
    const auto& e = rep->entries.at(0);
    REQUIRE(e.counts.size() == 2);
    CHECK(e.counts[1].ranks == 1);
    CHECK(e.counts[1].op == 60);
    CHECK(e.counts[1].listed == std::vector<int64_t>{7});
    CHECK(e.ranks.at(0).node == "node1");
    auto data = nccl_ras_data(*rep);
    CHECK(data["entries"][0]["lagging_ranks"] == 1);
    CHECK(data["entries"][0]["ahead"].empty());
    auto fs = nccl_ras_findings(*rep, "lag");
    CHECK(fs.at(0).message.find("1 ranks lag behind operation 64") != std::string::npos);
  }
  SUBCASE("an Errors entry is an error") {
    std::string t = std::string(kHealthy) +
                    "\nErrors\n======\n\n#0-0 (78db921d1c117b4a) INCOMPLETE\n"
                    "  Missing communicator data from 1 rank\n  The missing rank: 7\n";
    auto rep = import_nccl_ras(t, "inc");
    REQUIRE(rep.ok());
    auto fs = nccl_ras_findings(*rep, "inc");
    REQUIRE(fs.size() == 1);
    CHECK(fs[0].code == "nccl_ras_incomplete");
    CHECK(fs[0].severity == Severity::kError);
    CHECK(fs[0].message.find("The missing rank: 7") != std::string::npos);
  }
  SUBCASE("healthy: no finding") {
    auto rep = import_nccl_ras(kHealthy, "ok");
    REQUIRE(rep.ok());
    CHECK(rep->groups.at(0).errors == "OK");
    CHECK(nccl_ras_findings(*rep, "ok").empty());
  }
  SUBCASE("a last line without its newline is a gap") {
    std::string t = kHealthy;
    t.pop_back();
    auto rep = import_nccl_ras(t, "cut");
    REQUIRE(rep.ok());
    CHECK(rep->gaps.size() == 1);
  }
  SUBCASE("another tool's text is refused") {
    auto rep = import_nccl_ras("CA 'mlx5_0'\n", "ibstat.txt");
    REQUIRE_FALSE(rep.ok());
    CHECK(rep.error().source == "ibstat.txt:1");
  }
}
