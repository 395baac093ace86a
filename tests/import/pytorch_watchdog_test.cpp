// PyTorch ProcessGroupNCCL watchdog logs: case 067 and made-up variants (ranks that moved on, a
// rank that never launched the work, tags, torchrun's host summary, a healthy control, a cut).
#include <doctest/doctest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "import/pytorch_watchdog.h"

using namespace fabdiag;

namespace {

std::string fixture(const std::string& rel) {
  auto text = read_file(std::string(FABDIAG_SOURCE_DIR) + "/tests/fixtures/" + rel);
  REQUIRE_MESSAGE(text.ok(), rel);
  return *text;
}

const std::string k067 = "cases/067-pytorch-nccl-watchdog-allreduce-seq808-three-ranks-600s-timeout.input.txt";

std::string timeout_line(int rank, int seq, const char* op, int ran_for) {
  return "[rank" + std::to_string(rank) + "]:[E1109 16:13:20.222 ProcessGroupNCCL.cpp:616] [Rank " +
         std::to_string(rank) + "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=" +
         std::to_string(seq) + ", OpType=" + op + ", NumelIn=67108864, NumelOut=8388608, Timeout(ms)=600000) ran for " +
         std::to_string(ran_for) + " milliseconds before timing out.\n";
}

std::string status_line(int rank, int at, int enq, int done) {
  return "[rank" + std::to_string(rank) + "]:[E1109 16:13:20.223 ProcessGroupNCCL.cpp:1785] [PG ID 1 PG GUID 1 Rank " +
         std::to_string(rank) + "] Exception (either an error or timeout) detected by watchdog at work: " +
         std::to_string(at) + ", last enqueued NCCL work: " + std::to_string(enq) +
         ", last completed NCCL work: " + std::to_string(done) + ".\n";
}

std::string dump_line(int rank, int enq, int done) {
  return "[rank" + std::to_string(rank) + "]:[E703 15:37:17.178 ProcessGroupNCCL.cpp:1987] [PG ID 1 PG GUID 1 Rank " +
         std::to_string(rank) +
         "] Received a dump signal due to a collective timeout from  rank 2 and we will try our best to dump the debug "
         "info. Last enqueued NCCL work: " + std::to_string(enq) + ", last completed NCCL work: " +
         std::to_string(done) + ".This is most likely caused by incorrect usages of collectives\n";
}

}  // namespace

TEST_CASE("case 067: ranks 0, 1 and 2 time out on the same ALLREDUCE SeqNum 808 after 600 s, the log cut") {
  auto imp = import_pytorch_watchdog(fixture(k067), "067");
  REQUIRE(imp.ok());
  REQUIRE(imp->groups.size() == 1);
  const auto& g = imp->groups[0];
  CHECK(g.pg == "0 (default_pg)");
  CHECK(g.stuck_seq == 808);
  CHECK(g.timed_out == std::vector<int64_t>{0, 1, 2});
  CHECK(g.stuck == std::vector<int64_t>{0, 1, 2});
  CHECK(g.moved_on.empty());
  CHECK(g.not_launched.empty());
  CHECK(g.same_op_everywhere);
  REQUIRE(g.ranks.size() == 3);
  int64_t max_ran = 0;
  for (const auto& r : g.ranks) {
    CHECK(r.op == "ALLREDUCE");
    CHECK(r.seq == 808);
    CHECK(r.numel_in == 9801523);
    CHECK(r.numel_out == 9801523);
    CHECK(r.timeout_ms == 600000);
    max_ran = std::max(max_ran, r.ran_for_ms.value_or(0));
  }
  CHECK(max_ran == 600061);
  CHECK(g.ranks[0].last_completed == 807);
  CHECK(g.ranks[0].last_enqueued == 811);
  CHECK(g.ranks[1].last_completed == 807);
  CHECK_FALSE(g.ranks[2].last_completed.has_value());  // its line is cut: unknown, not 0
  // The cut second line of rank 2 is a gap naming its line.
  REQUIRE(imp->gaps.size() == 1);
  CHECK(imp->gaps[0].source == "067:6");

  auto fs = pytorch_watchdog_findings(*imp, "067");
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].severity == Severity::kError);
  CHECK(fs[0].code == "pytorch_collective_timeout");
  CHECK(fs[0].message.find("timeout") != std::string::npos);
  CHECK(fs[0].message.find("all 3 reporting ranks (ranks 0, 1 and 2)") != std::string::npos);
  CHECK(fs[0].message.find("ALLREDUCE, SeqNum 808 (9801523 elements)") != std::string::npos);
  CHECK(fs[0].message.find("600020-600061 ms against a 600000 ms timeout") != std::string::npos);
  CHECK(fs[0].message.find("last completed 807, last enqueued 811") != std::string::npos);
  CHECK(fs[0].message.find("moved on") == std::string::npos);  // must not: claim that some rank moved on

  auto data = pytorch_watchdog_data(*imp);
  CHECK(data["groups"][0]["stuck_seq"] == 808);
  CHECK(data["groups"][0]["ranks"][2]["ran_for_ms"] == 600061);
  CHECK(data["groups"][0]["ranks"][2]["last_completed"].is_null());
}

TEST_CASE("ranks stuck while the others moved on, and a rank that never launched the work") {
  std::string log = timeout_line(2, 500045, "_REDUCE_SCATTER_BASE", 600038) + status_line(2, 500045, 500047, 500044) +
                    timeout_line(7, 500045, "_REDUCE_SCATTER_BASE", 600046) + status_line(7, 500045, 500047, 500044) +
                    dump_line(0, 500049, 500048) + dump_line(1, 500044, 500044) + dump_line(3, 500050, 500049);
  auto imp = import_pytorch_watchdog(log, "mixed");
  REQUIRE(imp.ok());
  CHECK(imp->gaps.empty());
  REQUIRE(imp->groups.size() == 1);
  const auto& g = imp->groups[0];
  CHECK(g.pg == "1");
  CHECK(g.stuck == std::vector<int64_t>{2, 7});
  CHECK(g.moved_on == std::vector<int64_t>{0, 3});
  CHECK(g.not_launched == std::vector<int64_t>{1});
  CHECK(g.not_in_log == std::vector<int64_t>{4, 5, 6});
  CHECK_FALSE(g.same_op_everywhere);
  auto fs = pytorch_watchdog_findings(*imp, "mixed");
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].message.find("ranks 2 and 7 stuck at _REDUCE_SCATTER_BASE, SeqNum 500045") != std::string::npos);
  CHECK(fs[0].message.find("the others (ranks 0 and 3) moved on") != std::string::npos);
  CHECK(fs[0].message.find("rank 1 never launched SeqNum 500045") != std::string::npos);
  CHECK(fs[0].message.find("all ") == std::string::npos);  // must not: "all ranks timed out on the same op"
}

TEST_CASE("older forms, mpirun tags and torchrun's host summary") {
  std::string log =
      "[1,0]<stdout>:[E ProcessGroupNCCL.cpp:475] [Rank 0] Watchdog caught collective operation timeout: "
      "WorkNCCL(SeqNum=6463, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800017 "
      "milliseconds before timing out.\n"
      "[1,0]<stdout>:[E ProcessGroupNCCL.cpp:1709] [PG 0 (default_pg) Rank 0] Timeout at NCCL work: 6463, last "
      "enqueued NCCL work: 6463, last completed NCCL work: 6462.\n"
      "Root Cause (first observed failure):\n"
      "[0]:\n"
      "  time      : 2024-10-03_18:37:05\n"
      "  host      : gpu-node-17\n"
      "  rank      : 0 (local_rank: 0)\n"
      "  exitcode  : -6 (pid: 4242)\n";
  auto imp = import_pytorch_watchdog(log, "old");
  REQUIRE(imp.ok());
  REQUIRE(imp->groups.size() == 1);
  const auto& r = imp->groups[0].ranks.at(0);
  CHECK(imp->groups[0].pg == "0 (default_pg)");
  CHECK(r.seq == 6463);
  CHECK(r.timeout_ms == 1800000);
  CHECK(r.last_completed == 6462);
  CHECK(r.host == "gpu-node-17");
}

TEST_CASE("healthy control: progress lines without a timeout give no finding") {
  auto imp = import_pytorch_watchdog(dump_line(0, 593, 593) + dump_line(1, 593, 593), "ok");
  REQUIRE(imp.ok());
  REQUIRE(imp->groups.size() == 1);
  CHECK_FALSE(imp->groups[0].stuck_seq.has_value());
  CHECK(pytorch_watchdog_findings(*imp, "ok").empty());
}

TEST_CASE("a timeout line cut before 'ran for' keeps what it says and is a gap") {
  std::string line = timeout_line(3, 12, "BROADCAST", 600010);
  line = line.substr(0, line.find(" ran for"));
  auto imp = import_pytorch_watchdog(line, "cut");
  REQUIRE(imp.ok());
  REQUIRE(imp->gaps.size() == 1);
  CHECK(imp->gaps[0].source == "cut:1");
  CHECK(imp->groups.at(0).ranks.at(0).timeout_ms == 600000);
  CHECK_FALSE(imp->groups.at(0).ranks.at(0).ran_for_ms.has_value());
}

TEST_CASE("another tool's file is refused naming its first line") {
  auto imp = import_pytorch_watchdog("CA 'mlx5_0'\n\tCA type: MT4129\n", "ibstat.txt");
  REQUIRE_FALSE(imp.ok());
  CHECK(imp.error().code == ErrorCode::kParse);
  CHECK(imp.error().source == "ibstat.txt:1");
}

TEST_CASE("w116: 'timed out in blocking wait' lines are reports of their ranks, not cut lines") {
  auto imp = import_pytorch_watchdog(fixture("cases/w116-pytorch-watchdog-blocking-wait-allreduce-seq2521.input.txt"), "w116");
  REQUIRE(imp.ok());
  CHECK(imp->gaps.empty());
  REQUIRE(imp->groups.size() == 1);
  const auto& g = imp->groups[0];
  CHECK(g.stuck_seq == 2521);
  CHECK(g.stuck == std::vector<int64_t>{1, 5, 7});
  CHECK(g.same_op_everywhere);
  for (const auto& r : g.ranks) {
    CHECK(r.op == "ALLREDUCE");
    CHECK(r.timeout_ms == 600000);
    CHECK(r.numel_in == 160672064);
  }
}

TEST_CASE("w118: PyTorch 2.6's 'failure detected by watchdog at work sequence id' gives the last works") {
  auto imp = import_pytorch_watchdog(fixture("cases/w118-nccl-ras-ok-while-pytorch-watchdog-times-out-rank118.input.txt"), "w118");
  REQUIRE(imp.ok());
  CHECK(imp->gaps.empty());
  REQUIRE(imp->groups.size() == 1);
  const auto& g = imp->groups[0];
  CHECK(g.pg == "0 (default_pg)");
  CHECK(g.stuck_seq == 2398459);
  REQUIRE(g.ranks.size() == 1);
  CHECK(g.ranks[0].rank == 118);
  CHECK(g.ranks[0].last_enqueued == 2398578);
  CHECK(g.ranks[0].last_completed == 2398458);
  CHECK(g.ranks[0].ran_for_ms == 1800068);
}

TEST_CASE("w112: a line number before the rank tag ('[80746] [rank0]:[E321 ...]') is read like any prefix") {
  auto imp = import_pytorch_watchdog(fixture("cases/w112-pytorch-watchdog-line-numbered-pg1-allreduce-seq1580.input.txt"), "w112");
  REQUIRE(imp.ok());
  REQUIRE(imp->groups.size() == 1);
  const auto& g = imp->groups[0];
  CHECK(g.pg == "1");
  CHECK(g.stuck_seq == 1580);
  CHECK(g.stuck == std::vector<int64_t>{0, 3, 4});
  auto fs = pytorch_watchdog_findings(*imp, "w112");
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].code == "pytorch_collective_timeout");
  CHECK(fs[0].severity == Severity::kError);
}
