// NCCL RAS monitor-mode events (`ncclras -m`, NCCL 2.29+), text and JSON:
// tests/fixtures/nccl_ras (SOURCES.md) and variants written inline in the same shape.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "import/nccl_ras.h"

using namespace fabdiag;

namespace {

std::string fixture(const std::string& rel) {
  auto text = read_file(std::string(FABDIAG_SOURCE_DIR) + "/tests/fixtures/nccl_ras/" + rel);
  REQUIRE_MESSAGE(text.ok(), rel);
  return *text;
}

bool has(const std::string& s, const std::string& w) { return s.find(w) != std::string::npos; }

}  // namespace

TEST_CASE("nccl_ras monitor: text events, a peer unresponsive then dead, another recovered") {
  auto rep = import_nccl_ras(fixture("monitor-peer-dead.txt"), "mon.txt");
  REQUIRE(rep.ok());
  CHECK(rep->form == "monitor");
  CHECK(rep->gaps.empty());
  CHECK(rep->event_count == 8);
  REQUIRE(rep->events.size() == 7);
  const auto& unresp = rep->events[1];
  CHECK(unresp.event == "PEER_UNRESPONSIVE");
  CHECK(unresp.host == "10.0.0.2");
  CHECK(unresp.pid == 31007);
  CHECK(unresp.gpus == "3");
  CHECK(unresp.count == 2);
  CHECK(unresp.first_time == "2026-11-30 09:14:05");
  CHECK(unresp.last_time == "2026-11-30 09:14:10");
  CHECK(unresp.details == "peer not responding for 10s (keepalive warning)");
  CHECK(unresp.line == 4);
  CHECK(unresp.last_line == 5);
  CHECK(rep->events[3].event == "PEER_DEAD");
  CHECK(rep->events[3].details.empty());
  CHECK(rep->events[4].addr == "10.0.0.3<41877>");
  CHECK(rep->events[4].host.empty());
  CHECK(rep->events[6].gpus == "0,1 (NVML 2,3)");
  CHECK(rep->events[6].details == "connection attempt timed out after 5s, attempting reconnect");

  auto fs = nccl_ras_findings(*rep, "mon.txt");
  REQUIRE(fs.size() == 2);  // the dead peer's earlier warnings are folded into its death
  CHECK(fs[0].code == "nccl_ras_peer_dead");
  CHECK(fs[0].severity == Severity::kError);
  CHECK(has(fs[0].message, "process 31007 on node 10.0.0.2 (GPU 3)"));
  CHECK(has(fs[0].message, "at 2026-11-30 09:15:05"));
  CHECK(fs[0].evidence.at(0).source == "mon.txt:7");
  CHECK(fs[1].code == "nccl_ras_peer_unreachable");
  CHECK(fs[1].severity == Severity::kInfo);  // PEER_RECOVERED later
  CHECK(has(fs[1].message, "10.0.0.3<41877>"));
  CHECK(has(fs[1].message, "PEER_RECOVERED at 2026-11-30 09:15:34"));

  auto data = nccl_ras_data(*rep);
  CHECK(data["event_count"] == 8);
  CHECK(data["events"][1]["count"] == 2);
}

TEST_CASE("nccl_ras monitor: JSON events, the last one cut") {
  auto rep = import_nccl_ras(fixture("monitor-json-cut.json"), "mon.json");
  REQUIRE(rep.ok());
  CHECK(rep->form == "monitor");
  CHECK(rep->event_count == 3);
  REQUIRE(rep->events.size() == 3);
  CHECK(rep->events[0].group == "TRACE");
  CHECK(rep->events[1].event == "PEER_DEAD");
  CHECK(rep->events[1].gpus == "2,3 (NVML 6,7)");
  CHECK(rep->events[1].line == 13);
  CHECK(rep->events[2].addr == "10.0.0.3<41877>");
  REQUIRE(rep->gaps.size() == 1);
  CHECK(rep->gaps[0].source == "mon.json:34");
  CHECK(has(rep->gaps[0].message, "cut"));
  auto fs = nccl_ras_findings(*rep, "mon.json");
  REQUIRE(fs.size() == 2);
  CHECK(fs[0].code == "nccl_ras_peer_dead");
  CHECK(has(fs[0].message, "process 31007 on node 10.0.0.2 (GPUs 2,3 (NVML 6,7))"));
  CHECK(fs[1].code == "nccl_ras_peer_unreachable");
  CHECK(fs[1].severity == Severity::kWarn);
  CHECK(has(fs[1].message, "not seen answering again"));
}

TEST_CASE("nccl_ras monitor: variants and bad input") {
  SUBCASE("mpirun tags, compact JSON events one a line, repeats counted") {
    std::string ev = "{\"timestamp\":\"2026-11-30 10:00:0X\",\"group\":\"LIFECYCLE\",\"event\":\"PEER_DEAD\",\"peer\":"
                     "{\"host\":\"n7\",\"pid\":9,\"cuda_devs\":[0],\"nvml_devs\":[0]},\"details\":\"\"}\n";
    std::string t;
    for (char c : std::string("123")) {
      std::string e = ev;
      e[e.find('X')] = c;
      t += e;
    }
    auto rep = import_nccl_ras(t, "c.json");
    REQUIRE(rep.ok());
    REQUIRE(rep->events.size() == 1);
    CHECK(rep->events[0].count == 3);
    CHECK(rep->events[0].last_time == "2026-11-30 10:00:03");
    CHECK(has(nccl_ras_findings(*rep, "c.json").at(0).message, "3 times from 2026-11-30 10:00:01 to 2026-11-30 10:00:03"));
  }
  SUBCASE("a text event without a peer, and the banner alone") {
    auto rep = import_nccl_ras("[2026-11-30 10:00:00] PEER_SEND_STUCK: send operation stuck for 30s\n", "s.txt");
    REQUIRE(rep.ok());
    CHECK(rep->events.at(0).details == "send operation stuck for 30s");
    CHECK(nccl_ras_findings(*rep, "s.txt").at(0).subject.empty());
    auto banner = import_nccl_ras("RAS Monitor Mode - watching for peer changes (Ctrl+C to exit)...\n", "b.txt");
    REQUIRE(banner.ok());
    CHECK(banner->events.empty());
    CHECK(nccl_ras_findings(*banner, "b.txt").empty());
  }
  SUBCASE("a malformed JSON event is a gap naming its line") {
    auto rep = import_nccl_ras(
        "[2026-11-30 10:00:00] PEER_NEW: Process 1 on node a managing GPU 0 \n{\n  \"event\": \"PEER_DEAD\" oops\n}\n",
        "m.txt");
    REQUIRE(rep.ok());
    REQUIRE(rep->gaps.size() == 1);
    CHECK(rep->gaps[0].source == "m.txt:2");
  }
  SUBCASE("a shell prompt before the events, and before a JSON report") {
    auto rep = import_nccl_ras("$ ncclras -m all\n[2026-11-30 10:00:00] PEER_DEAD: Process 5 on node n1 managing GPU 2 \n",
                               "p.txt");
    REQUIRE(rep.ok());
    CHECK(rep->form == "monitor");
    CHECK(rep->events.at(0).line == 2);
    auto json = import_nccl_ras("$ ncclras -f json\n{\n  \"nccl_version\": \"2.29.2\",\n  \"communicators\": [\n  ]\n}\n",
                                "p.json");
    REQUIRE(json.ok());
    CHECK(json->form == "json");
    CHECK(json->gaps.empty());
    CHECK(json->nccl_version == "2.29.2");
  }
  SUBCASE("another tool's timestamped lines are refused") {
    auto rep = import_nccl_ras("[2026-11-30 10:00:00] kernel: eth0 link up\n", "k.log");
    REQUIRE_FALSE(rep.ok());
    CHECK(rep.error().source == "k.log:1");
  }
}
