// ibstat (case 013), ibstatus (case 015) and ibv_devinfo importers, and format detection.
#include <doctest/doctest.h>

#include "core/atomic_file.h"
#include "import/host_formats.h"
#include "import/ibstat.h"
#include "import/ibstatus.h"
#include "import/ibv_devinfo.h"

using namespace fabdiag;

namespace {

std::string fixture(const std::string& rel) {
  auto t = read_file(std::string(FABDIAG_SOURCE_DIR) + "/tests/fixtures/" + rel);
  REQUIRE(t.ok());
  return *t;
}

const RdmaPortFacts* find(const std::vector<RdmaPortFacts>& ports, const std::string& device) {
  for (const auto& p : ports)
    if (p.device == device) return &p;
  return nullptr;
}

}  // namespace

TEST_CASE("case 013 ibstat: 12 one-port CAs, models, states normalized, rate as printed") {
  auto ports = parse_ibstat(fixture("cases/013-ibstat-cx7-two-ports-down.input.txt"), "013.txt");
  REQUIRE(ports.ok());
  REQUIRE(ports->size() == 12);
  int cx7 = 0, cx6 = 0;
  for (const auto& p : *ports) {
    CHECK(p.link_layer == "Ethernet");
    CHECK(p.lid == "0");
    CHECK(p.port == 1);
    if (p.model == "MT4129") {
      ++cx7;
      CHECK(p.fw_ver == "28.39.1002");
    }
    if (p.model == "MT4125") {
      ++cx6;
      CHECK(p.rate_gbps == 100.0);
      CHECK(p.state == "4: ACTIVE");
    }
  }
  CHECK(cx7 == 8);
  CHECK(cx6 == 4);
  const auto* down = find(*ports, "mlx5_11/1");
  REQUIRE(down);
  CHECK(down->state == "1: DOWN");
  CHECK(down->phys_state == "2: Polling");
  CHECK(down->rate == "40");
  CHECK(down->source == "013.txt line 59: CA 'mlx5_11' port 1");
  const auto* disabled = find(*ports, "mlx5_5/1");
  REQUIRE(disabled);
  CHECK(disabled->phys_state == "3: Disabled");
  CHECK(find(*ports, "mlx5_0/1")->rate_gbps == 400.0);
  CHECK_FALSE(find(*ports, "mlx5_0/1")->rocev2_gids.has_value());
}

TEST_CASE("case 015 ibstatus: three RoCE ports, no model, rates with the mlx5 IB-style text") {
  auto ports = parse_ibstatus(fixture("cases/015-ibstatus-roce-rate-mismatch.input.txt"), "015.txt");
  REQUIRE(ports.ok());
  REQUIRE(ports->size() == 3);
  const auto& p0 = (*ports)[0];
  CHECK(p0.device == "mlx5_0/1");
  CHECK(p0.state == "4: ACTIVE");
  CHECK(p0.phys_state == "5: LinkUp");
  CHECK(p0.rate == "200 Gb/sec (4X HDR)");
  CHECK(p0.rate_gbps == 200.0);
  CHECK(p0.link_layer == "Ethernet");
  CHECK(p0.lid == "0x0");
  CHECK(p0.model.empty());
  CHECK((*ports)[2].rate_gbps == 400.0);
  CHECK((*ports)[2].source == "015.txt line 19: mlx5_2 port 1");
}

TEST_CASE("ibv_devinfo without -v: model from vendor_part_id, states, active_mtu, no rate") {
  auto ports = parse_ibv_devinfo(fixture("ibv_devinfo/roce-2port.txt"), "devinfo.txt");
  REQUIRE(ports.ok());
  REQUIRE(ports->size() == 2);
  const auto& a = (*ports)[0];
  CHECK(a.device == "mlx5_0/1");
  CHECK(a.model == "MT4129");
  CHECK(a.board_id == "MT_0000000838");
  CHECK(a.fw_ver == "28.39.1002");
  CHECK(a.state == "4: ACTIVE");
  CHECK(a.phys_state.empty());
  CHECK(a.active_mtu_bytes == 1024);
  CHECK(a.link_layer == "Ethernet");
  CHECK_FALSE(a.rate_gbps.has_value());
  CHECK_FALSE(a.rocev2_gids.has_value());
  CHECK((*ports)[1].state == "1: DOWN");
  CHECK((*ports)[1].source == "devinfo.txt line 30: hca_id mlx5_1 port 1");
}

TEST_CASE("ibv_devinfo -v: rate = width x lane speed, phys_state, typed GID table") {
  auto ports = parse_ibv_devinfo(fixture("ibv_devinfo/verbose-roce.txt"), "v.txt");
  REQUIRE(ports.ok());
  REQUIRE(ports->size() == 1);
  const auto& p = (*ports)[0];
  CHECK(p.rate_gbps == 400.0);
  CHECK(p.rate == "400 Gb/sec (4X 100 Gbps)");
  CHECK(p.phys_state == "5: LinkUp");
  REQUIRE(p.rocev2_gids.has_value());
  CHECK(*p.rocev2_gids == std::vector<std::string>{"fe80::3", "::ffff:192.0.2.3"});
}

TEST_CASE("ibv_devinfo -v: a GID line cut after the index or its colon is no GID, not a crash") {
  // The fuzzer's find of 2026-12: "GID[  3]" at the end of the text made substr run past it.
  std::string text = fixture("ibv_devinfo/verbose-roce.txt");
  for (const char* cut : {"\t\t\tGID[  9]", "\t\t\tGID[  9]:", "\t\t\tGID[  9"}) {
    CAPTURE(cut);
    auto ports = parse_ibv_devinfo(text + cut, "v.txt");
    REQUIRE(ports.ok());
    REQUIRE(ports->size() == 1);
    CHECK(*(*ports)[0].rocev2_gids == std::vector<std::string>{"fe80::3", "::ffff:192.0.2.3"});
  }
}

TEST_CASE("format detection and '###' sections") {
  CHECK(detect_format(fixture("cases/013-ibstat-cx7-two-ports-down.input.txt")) == InputFormat::kIbstat);
  CHECK(detect_format(fixture("cases/015-ibstatus-roce-rate-mismatch.input.txt")) == InputFormat::kIbstatus);
  CHECK(detect_format(fixture("ibv_devinfo/verbose-roce.txt")) == InputFormat::kIbvDevinfo);
  CHECK(detect_format(fixture("cases/021-lspci-h100-pex-switch-healthy.input.txt")) == InputFormat::kLspci);
  CHECK(detect_format("just some words\n") == InputFormat::kAuto);
  CHECK(parse_input_format("ibv-devinfo") == InputFormat::kIbvDevinfo);
  CHECK_FALSE(parse_input_format("xml").has_value());

  auto one = split_sections("a\nb\n");
  REQUIRE(one.size() == 1);
  CHECK(one[0].title.empty());
  CHECK(one[0].first_line == 1);

  std::string two = "### ibstatus\n" + fixture("cases/015-ibstatus-roce-rate-mismatch.input.txt") + "### junk\nhello\n";
  auto facts = import_host_facts(two, "two.txt", InputFormat::kAuto);
  REQUIRE(facts.ok());
  REQUIRE(facts->rdma_ports);
  CHECK(facts->rdma_ports->size() == 3);
  CHECK((*facts->rdma_ports)[0].source == "two.txt line 2: mlx5_0 port 1");  // line numbers of the whole file
  REQUIRE(facts->gaps.size() == 1);  // the unrecognized section is a gap, not a failure
  CHECK(facts->gaps[0].context.front().find("section 'junk'") != std::string::npos);

  auto none = import_host_facts("hello\n", "x.txt", InputFormat::kAuto);
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().code == ErrorCode::kParse);
  auto wrong = import_host_facts(fixture("cases/015-ibstatus-roce-rate-mismatch.input.txt"), "015.txt", InputFormat::kIbstat);
  REQUIRE_FALSE(wrong.ok());
  CHECK(wrong.error().message.find("not ibstat output") != std::string::npos);
}

namespace {

// The text of `text` up to and including the first line that contains `last`.
std::string cut_after(const std::string& text, const std::string& last) {
  auto at = text.find(last);
  REQUIRE(at != std::string::npos);
  return text.substr(0, text.find('\n', at) + 1);
}

std::string gap_text(const std::vector<Error>& gaps) {
  std::string out;
  for (const auto& e : gaps) out += e.to_string() + "\n";
  return out;
}

}  // namespace

TEST_CASE("ibstat: a whole last line without its newline is read, a cut one is a gap naming file:line") {
  const std::string head = "CA 'mlx5_0'\n\tCA type: MT4129\n\tNumber of ports: 1\n\tPort 1:\n\t\tState: Active\n"
                           "\t\tPhysical state: LinkUp\n\t\tRate: 400\n";
  std::vector<Error> gaps;
  auto whole = parse_ibstat(head + "\t\tLink layer: InfiniBand", "w.txt", 1, &gaps);
  REQUIRE(whole.ok());
  CHECK(gaps.empty());
  CHECK((*whole)[0].link_layer == "InfiniBand");
  auto cut = parse_ibstat(head + "\t\tLink layer: Infini", "c.txt", 1, &gaps);
  REQUIRE(cut.ok());
  CAPTURE(gap_text(gaps));
  REQUIRE(gaps.size() == 2);  // the cut line, and the port's missing Link layer line
  CHECK(gaps[0].source == "c.txt:8");
  CHECK(gaps[0].message.find("ends without a newline") != std::string::npos);
  CHECK(gaps[0].message.find("\"Link layer: Infini\"") != std::string::npos);
  CHECK((*cut)[0].link_layer.empty());
}

TEST_CASE("ibstat cut after a port's State line: the missing lines are a gap, not a healthy port") {
  std::string text = fixture("cases/013-ibstat-cx7-two-ports-down.input.txt");
  std::string cut = cut_after(text, "Port GUID: 0x0000000000000000") + "CA 'mlx5_9'\n\tCA type: MT4129\n"
                    "\tNumber of ports: 1\n\tPort 1:\n\t\tState: Active\n";
  std::vector<Error> gaps;
  auto ports = parse_ibstat(cut, "cut.txt", 1, &gaps);
  REQUIRE(ports.ok());
  REQUIRE(ports->size() == 3);
  CAPTURE(gap_text(gaps));
  REQUIRE(gaps.size() == 2);
  // mlx5_1's block ends before its Link layer line.
  CHECK(gaps[0].source == "cut.txt line 25: CA 'mlx5_1' port 1");
  CHECK(gaps[0].message.find("no \"Link layer\" line") != std::string::npos);
  CHECK(gaps[1].source == "cut.txt line 37: CA 'mlx5_9' port 1");
  CHECK(gaps[1].message.find("no \"Physical state\", \"Rate\" or \"Link layer\" line") != std::string::npos);
  CHECK(gaps[1].message.find("not healthy") != std::string::npos);
  CHECK((*ports)[2].phys_state.empty());
  CHECK_FALSE((*ports)[2].rate_gbps.has_value());

  // A CA cut before its "Port N:" block: fewer ports than "Number of ports".
  gaps.clear();
  auto no_port = parse_ibstat(cut_after(text, "Link layer: Ethernet") + "CA 'mlx5_1'\n\tNumber of ports: 1\n",
                              "c2.txt", 1, &gaps);
  REQUIRE(no_port.ok());
  REQUIRE(gaps.size() == 1);
  CHECK(gaps[0].source == "c2.txt line 18");
  CHECK(gaps[0].message.find("CA 'mlx5_1' has 1 ports but the text lists 0") != std::string::npos);

  // The whole file: no gap.
  gaps.clear();
  REQUIRE(parse_ibstat(text, "013.txt", 1, &gaps).ok());
  CHECK(gaps.empty());
}

TEST_CASE("ibstatus and ibv_devinfo cut inside a port block: gaps naming the port and the lines") {
  std::vector<Error> gaps;
  std::string st = fixture("cases/015-ibstatus-roce-rate-mismatch.input.txt");
  REQUIRE(parse_ibstatus(st, "015.txt", 1, &gaps).ok());
  CHECK(gaps.empty());
  auto ports = parse_ibstatus(cut_after(st, "400 Gb/sec (4X NDR)") , "015.txt", 1, &gaps);
  REQUIRE(ports.ok());
  REQUIRE(gaps.size() == 1);
  CHECK(gaps[0].source == "015.txt line 10: mlx5_1 port 1");
  CHECK(gaps[0].message.find("no \"link_layer\" line") != std::string::npos);

  // ibv_devinfo without -v: state and link_layer are always there, phys_state and the rate never.
  gaps.clear();
  std::string dv = fixture("ibv_devinfo/roce-2port.txt");
  REQUIRE(parse_ibv_devinfo(dv, "d.txt", 1, &gaps).ok());
  CHECK(gaps.empty());
  REQUIRE(parse_ibv_devinfo(cut_after(dv, "PORT_DOWN (1)"), "d.txt", 1, &gaps).ok());
  REQUIRE(gaps.size() == 1);
  CHECK(gaps[0].source == "d.txt line 30: hca_id mlx5_1 port 1");
  CHECK(gaps[0].message.find("no \"link_layer\" line") != std::string::npos);
  gaps.clear();
  // mlx5_1 cut after its phys_port_cnt line, before its "port:" block.
  REQUIRE(parse_ibv_devinfo(dv.substr(0, dv.find('\n', dv.find("phys_port_cnt", dv.find("mlx5_1"))) + 1), "d.txt", 1, &gaps).ok());
  REQUIRE(gaps.size() == 1);
  CHECK(gaps[0].message.find("hca_id mlx5_1 has 1 ports but the text lists 0") != std::string::npos);

  // -v: active_width, active_speed and (InfiniBand transport) phys_state too.
  gaps.clear();
  std::string v = fixture("ibv_devinfo/verbose-roce.txt");
  REQUIRE(parse_ibv_devinfo(v, "v.txt", 1, &gaps).ok());
  CHECK(gaps.empty());
  auto vp = parse_ibv_devinfo(cut_after(v, "active_width"), "v.txt", 1, &gaps);
  REQUIRE(vp.ok());
  REQUIRE(gaps.size() == 1);
  CHECK(gaps[0].message.find("no \"active_speed\" or \"phys_state\" line") != std::string::npos);
  CHECK_FALSE((*vp)[0].rate_gbps.has_value());
}

TEST_CASE("import_host_facts: a cut ibstat port is a gap of the facts") {
  std::string cut = "CA 'mlx5_0'\n\tCA type: MT4129\n\tNumber of ports: 1\n\tPort 1:\n\t\tState: Active\n";
  auto facts = import_host_facts(cut, "cut.txt", InputFormat::kAuto);
  REQUIRE(facts.ok());
  REQUIRE(facts->gaps.size() == 1);
  CHECK(facts->gaps[0].source == "cut.txt line 4: CA 'mlx5_0' port 1");
}
