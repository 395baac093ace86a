// Repeated captures of one host's facts (import/host_facts_merge.h, import/lspci_listings.h):
// a later capture of the same port, link or listing replaces the earlier one; different ones
// are all kept, within one file and across `check --from` files.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

#include "core/line_source.h"
#include "import/host_facts_merge.h"
#include "import/host_formats.h"
#include "tests/support/import_test_util.h"

using namespace fabdiag;

namespace {

std::string fixture(const std::string& rel) { return testing::repo_text("tests/fixtures/" + rel); }

// ibstat of one CA with one port in `state`, at `rate` Gb/s.
std::string ibstat_ca(const std::string& ca, const std::string& state, int rate) {
  return "CA '" + ca + "'\n\tCA type: MT4129\n\tNumber of ports: 1\n\tFirmware version: 28.39.1002\n\tPort 1:\n"
         "\t\tState: " + state + "\n\t\tPhysical state: LinkUp\n\t\tRate: " + std::to_string(rate) +
         "\n\t\tLink layer: InfiniBand\n";
}

const RdmaPortFacts* port(const HostFacts& f, const std::string& device) {
  if (!f.rdma_ports) return nullptr;
  for (const auto& p : *f.rdma_ports)
    if (p.device == device) return &p;
  return nullptr;
}

// `text` read as `fmt` through a LineSource (as `fabdiag import` reads a file), with listings.
Result<HostFacts> streamed(const std::string& text, InputFormat fmt, nlohmann::json& listings) {
  auto lines = text_line_source(text);
  return import_host_facts(*lines, "x.txt", fmt, ReadLimits{0}, &listings);
}

}  // namespace

TEST_CASE("import_host_facts: the same ibstat capture three times is one record per port, the last values") {
  std::string text = "### capture 1\n" + ibstat_ca("mlx5_0", "Down", 100) + "### capture 2\n" +
                     ibstat_ca("mlx5_0", "Initializing", 200) + "### capture 3\n" + ibstat_ca("mlx5_0", "Active", 400);
  auto facts = import_host_facts(text, "x.txt", InputFormat::kIbstat);
  REQUIRE(facts.ok());
  REQUIRE(facts->rdma_ports);
  REQUIRE(facts->rdma_ports->size() == 1);
  const RdmaPortFacts& p = facts->rdma_ports->front();
  CHECK(p.device == "mlx5_0/1");
  CHECK(p.state == "4: ACTIVE");
  CHECK(p.rate == "400");
  REQUIRE(p.rate_gbps);
  CHECK(*p.rate_gbps == doctest::Approx(400));
  REQUIRE(p.source.rfind("x.txt line ", 0) == 0);
  CHECK(std::stoi(p.source.substr(11)) > 21);  // a line of the third capture ("### capture 3" is line 21)
  CHECK(facts->origin == "ibstat x.txt");
  CHECK(facts->gaps.empty());
}

TEST_CASE("import_host_facts: repeated captures of 12 CAs keep 12 ports in their first order") {
  std::string one = fixture("cases/013-ibstat-cx7-two-ports-down.input.txt");
  std::string text;
  for (int k = 1; k <= 3; ++k) text += "### capture " + std::to_string(k) + "\n" + one;
  auto once = import_host_facts(one, "x.txt", InputFormat::kIbstat);
  auto thrice = import_host_facts(text, "x.txt", InputFormat::kIbstat);
  REQUIRE(once.ok());
  REQUIRE(thrice.ok());
  REQUIRE(thrice->rdma_ports);
  REQUIRE(thrice->rdma_ports->size() == 12);
  for (size_t i = 0; i < 12; ++i) {
    CAPTURE(i);
    CHECK((*thrice->rdma_ports)[i].device == (*once->rdma_ports)[i].device);
    CHECK((*thrice->rdma_ports)[i].state == (*once->rdma_ports)[i].state);
  }
  CHECK(thrice->origin == "ibstat x.txt");
}

TEST_CASE("import_host_facts: different CAs in different captures are all kept") {
  std::string text = "### a\n" + ibstat_ca("mlx5_0", "Active", 400) + "### b\n" + ibstat_ca("mlx5_1", "Down", 400) +
                     "### a again\n" + ibstat_ca("mlx5_0", "Down", 400);
  auto facts = import_host_facts(text, "x.txt", InputFormat::kAuto);
  REQUIRE(facts.ok());
  REQUIRE(facts->rdma_ports);
  REQUIRE(facts->rdma_ports->size() == 2);
  CHECK((*facts->rdma_ports)[0].device == "mlx5_0/1");  // where it was first read
  CHECK((*facts->rdma_ports)[0].state == "1: DOWN");    // the later capture's state
  CHECK((*facts->rdma_ports)[1].device == "mlx5_1/1");
}

TEST_CASE("import_host_files: different devices of two files both kept, the same port replaced by the later file") {
  std::map<std::string, std::string> files = {{"a.txt", ibstat_ca("mlx5_0", "Active", 400)},
                                              {"b.txt", ibstat_ca("mlx5_1", "Active", 200)},
                                              {"c.txt", ibstat_ca("mlx5_0", "Down", 100)}};
  auto read = [&](const std::string& f) -> Result<std::string> { return files.at(f); };
  auto two = import_host_files({"a.txt", "b.txt"}, read, InputFormat::kIbstat);
  REQUIRE(two.ok());
  REQUIRE(two->rdma_ports);
  CHECK(two->rdma_ports->size() == 2);
  CHECK(two->origin == "ibstat a.txt; ibstat b.txt");
  auto again = import_host_files({"a.txt", "b.txt", "c.txt"}, read, InputFormat::kIbstat);
  REQUIRE(again.ok());
  REQUIRE(again->rdma_ports);
  CHECK(again->rdma_ports->size() == 2);
  const RdmaPortFacts* p = port(*again, "mlx5_0/1");
  REQUIRE(p);
  CHECK(p->state == "1: DOWN");
  CHECK(p->source.find("c.txt") == 0);
}

TEST_CASE("import_host_files: ibstat then ibv_devinfo of one port keep ibstat's rate and take ibv_devinfo's MTU") {
  std::string devinfo =
      "hca_id:\tmlx5_0\n\ttransport:\t\t\tInfiniBand (0)\n\tfw_ver:\t\t\t\t28.39.1002\n"
      "\tphys_port_cnt:\t\t\t1\n\t\tport:\t1\n\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n"
      "\t\t\tmax_mtu:\t\t4096 (5)\n\t\t\tactive_mtu:\t\t4096 (5)\n\t\t\tsm_lid:\t\t\t1\n"
      "\t\t\tport_lid:\t\t7\n\t\t\tport_lmc:\t\t0x00\n\t\t\tlink_layer:\t\tInfiniBand\n";
  std::map<std::string, std::string> files = {{"ibstat.txt", ibstat_ca("mlx5_0", "Active", 200)},
                                              {"devinfo.txt", devinfo}};
  auto read = [&](const std::string& f) -> Result<std::string> { return files.at(f); };
  auto facts = import_host_files({"ibstat.txt", "devinfo.txt"}, read, InputFormat::kAuto);
  REQUIRE(facts.ok());
  REQUIRE(facts->rdma_ports);
  REQUIRE(facts->rdma_ports->size() == 1);
  const RdmaPortFacts& p = facts->rdma_ports->front();
  CHECK(p.device == "mlx5_0/1");
  CHECK(p.rate == "200");  // ibv_devinfo without -v prints no rate: ibstat's is kept
  REQUIRE(p.rate_gbps);
  CHECK(*p.rate_gbps == doctest::Approx(200));
  REQUIRE(p.active_mtu_bytes);
  CHECK(*p.active_mtu_bytes == 4096);  // ibstat prints no MTU: ibv_devinfo's is taken
  CHECK(p.state == "4: ACTIVE");
  CHECK(p.source.find("devinfo.txt") == 0);
}

TEST_CASE("import lspci: a listing captured three times is one listing, its links and ACS ports once") {
  std::string one = fixture("cases/021-lspci-h100-pex-switch-healthy.input.txt");
  std::string text;
  for (int k = 1; k <= 3; ++k) text += "### capture " + std::to_string(k) + "\n" + one;
  nlohmann::json once_listings = nlohmann::json::array(), listings = nlohmann::json::array();
  auto once = streamed(one, InputFormat::kLspci, once_listings);
  auto thrice = streamed(text, InputFormat::kLspci, listings);
  REQUIRE(once.ok());
  REQUIRE(thrice.ok());
  REQUIRE(listings.size() == 1);
  CHECK(listings[0]["functions"].size() == once_listings[0]["functions"].size());
  REQUIRE(once->pcie_links);
  REQUIRE(thrice->pcie_links);
  CHECK_FALSE(once->pcie_links->empty());
  CHECK(thrice->pcie_links->size() == once->pcie_links->size());
  REQUIRE(thrice->acs_ports);
  CHECK(thrice->acs_ports->size() == once->acs_ports->size());
  CHECK(thrice->origin == "lspci x.txt");
  // The in-memory form (host_facts_data over the text) keeps the listings the same way.
  nlohmann::json data = host_facts_data(*thrice, text, "x.txt", InputFormat::kLspci);
  CHECK(data["lspci"] == listings);
}

TEST_CASE("import lspci: listings of different functions are both kept") {
  std::string a = "17:00.0 3D controller: NVIDIA Corporation Device 2330 (rev a1)\n"
                  "\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x16\n\t\tLnkSta:\tSpeed 32GT/s (ok), Width x16 (ok)\n";
  std::string b = "18:00.0 3D controller: NVIDIA Corporation Device 2330 (rev a1)\n"
                  "\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x16\n\t\tLnkSta:\tSpeed 16GT/s (downgraded), Width x16 (ok)\n";
  nlohmann::json listings = nlohmann::json::array();
  auto facts = streamed("### a\n" + a + "### b\n" + b + "### a again\n" + a, InputFormat::kLspci, listings);
  REQUIRE(facts.ok());
  CHECK(listings.size() == 2);
  REQUIRE(facts->pcie_links);
  CHECK(facts->pcie_links->size() == 2);
}

TEST_CASE("import lspci: a header-less grep repeated under one title is kept once, under other titles kept") {
  std::string grep = fixture("cases/008-lspci-acsctl-redirect-enabled.input.txt");
  grep = grep.substr(grep.find("### lspci"));  // its ACSCtl section: 11 lines without addresses
  nlohmann::json listings = nlohmann::json::array();
  auto same = streamed(grep + grep, InputFormat::kLspci, listings);
  REQUIRE(same.ok());
  REQUIRE(same->acs_ports);
  CHECK(same->acs_ports->size() == 11);
  CHECK(listings.size() == 1);
  CHECK((*same->acs_ports)[0].source.find("line 14") != std::string::npos);  // the second capture's line

  std::string other = "### lspci on the second switch\n" + grep.substr(grep.find('\n') + 1);
  nlohmann::json both_listings = nlohmann::json::array();
  auto both = streamed(grep + other, InputFormat::kLspci, both_listings);
  REQUIRE(both.ok());
  REQUIRE(both->acs_ports);
  CHECK(both->acs_ports->size() == 22);
  CHECK(both_listings.size() == 2);
}

TEST_CASE("HostFactsMerge: counters by device, group and name, origins distinct and capped") {
  HostFactsMerge merge;
  for (int k = 0; k < 10; ++k) {
    HostFacts f;
    f.origin = "tool " + std::to_string(k % 10);
    CounterChange c;
    c.counter.device = "mlx5_0/1";
    c.counter.name = k % 2 ? "port_rcv_errors" : "symbol_error";
    c.counter.value = static_cast<uint64_t>(k);
    f.counters = std::vector<CounterChange>{c};
    merge.add(f, "");
    merge.add(f, "");  // the same origin again is not listed twice
  }
  HostFacts out = merge.take();
  REQUIRE(out.counters);
  REQUIRE(out.counters->size() == 2);
  CHECK((*out.counters)[0].counter.name == "symbol_error");
  CHECK((*out.counters)[0].counter.value == 8);
  CHECK((*out.counters)[1].counter.value == 9);
  CHECK(out.origin == "tool 0; tool 1; tool 2; tool 3; tool 4; tool 5; tool 6; tool 7; ... and 2 more");
  CHECK(merge.take().origin.empty());  // left empty
}

TEST_CASE("HostFactsMerge: gaps past the bound of one kind are summarised") {
  HostFactsMerge merge(2);
  for (int k = 0; k < 5; ++k) {
    HostFacts f;
    f.gaps.push_back(make_error(ErrorCode::kParse, "port " + std::to_string(k) + " cut short", "x.txt"));
    merge.add(f, "");
  }
  HostFacts out = merge.take();
  REQUIRE(out.gaps.size() == 3);
  CHECK(out.gaps[2].message.find("3 more") != std::string::npos);
}

TEST_CASE("import ibstat: repeated captures without \"###\" lines are read in parts, one record per port") {
  std::string one = fixture("cases/013-ibstat-cx7-two-ports-down.input.txt");
  std::string text;
  while (text.size() < (3u << 20)) text += one;  // past the 1 MiB part size: cut at "CA '" lines
  nlohmann::json listings = nlohmann::json::array();
  auto facts = streamed(text, InputFormat::kIbstat, listings);
  REQUIRE(facts.ok());
  REQUIRE(facts->rdma_ports);
  CHECK(facts->rdma_ports->size() == 12);
  CHECK(facts->gaps.empty());
  CHECK(facts->origin == "ibstat x.txt");
  size_t lines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
  REQUIRE(facts->rdma_ports->front().source.rfind("x.txt line ", 0) == 0);
  CHECK(std::stoul(facts->rdma_ports->front().source.substr(11)) > lines - 204);  // the last capture's
}
