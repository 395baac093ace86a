#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "import/fabric_topology.h"

using namespace fabdiag;

namespace {

std::string fixture(const std::string& rel) {
  std::ifstream in(std::string(FABDIAG_SOURCE_DIR) + "/tests/fixtures/" + rel);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("topology text: host leaf spine lines, arrows and comments") {
  auto t = read_fabric_topology("# rack 1\nnode01 leaf1 spine1\nnode02 -> leaf1 -> spine1\n\nnode03 leaf2  # no spine\n"
                                "node04 -> leaf2\nnode05 leaf2 spine2\n",
                                "topo.txt");
  REQUIRE(t.ok());
  CHECK(t->format == "text");
  CHECK(t->leaf_of_host.size() == 5);
  CHECK(t->leaf_of_host.at("node02") == "leaf1");
  CHECK(t->leaf_of_host.at("node04") == "leaf2");
  CHECK(t->spines_of_leaf.at("leaf1") == std::vector<std::string>{"spine1"});
  CHECK(t->spines_of_leaf.at("leaf2") == std::vector<std::string>{"spine2"});
  auto j = fabric_topology_json(*t);
  CHECK(j["hosts"] == 5);
  CHECK(j["leaves"].size() == 2);
}

TEST_CASE("topology text: errors name the file and line") {
  auto one = read_fabric_topology("node01 leaf1\nnode02\n", "t.txt");
  REQUIRE_FALSE(one.ok());
  CHECK(one.error().code == ErrorCode::kParse);
  CHECK(one.error().source == "t.txt:2");
  auto four = read_fabric_topology("node01 leaf1 spine1 extra\n", "t.txt");
  REQUIRE_FALSE(four.ok());
  CHECK(four.error().source == "t.txt:1");
  auto twice = read_fabric_topology("node01 leaf1\n# x\nnode01 leaf2\n", "t.txt");
  REQUIRE_FALSE(twice.ok());
  CHECK(twice.error().source == "t.txt:3");
  CHECK(twice.error().message.find("leaf1") != std::string::npos);
  auto bad = read_fabric_topology("node01 leaf$1\n", "t.txt");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().source == "t.txt:1");
  auto empty = read_fabric_topology("# nothing\n\n", "t.txt");
  REQUIRE_FALSE(empty.ok());
  CHECK(empty.error().source == "t.txt");
}

TEST_CASE("hostlist ranges expand with their zero padding") {
  CHECK(*expand_hostlist("node[01-03,07]") == std::vector<std::string>{"node01", "node02", "node03", "node07"});
  CHECK(*expand_hostlist("a1,b[8-10]") == std::vector<std::string>{"a1", "b8", "b9", "b10"});
  CHECK(*expand_hostlist("r[1-2]-n[1-2]") == std::vector<std::string>{"r1-n1", "r1-n2", "r2-n1", "r2-n2"});
  CHECK_FALSE(expand_hostlist("node[01-03").ok());
  CHECK_FALSE(expand_hostlist("node01]").ok());
  CHECK_FALSE(expand_hostlist("node[5-3]").ok());
  CHECK_FALSE(expand_hostlist("node[a-b]").ok());
  CHECK_FALSE(expand_hostlist("node[0-99999999]").ok());
  CHECK_FALSE(expand_hostlist("n[0-999]x[0-999]", 10000).ok());
}

TEST_CASE("slurm topology.conf: leaves with hostlists and a spine") {
  auto t = read_fabric_topology("# topology.conf\nSwitchName=leaf1 Nodes=node[01-04]\n"
                                "switchname=leaf2 nodes=node[05-06],node08 LinkSpeed=100\n"
                                "SwitchName=spine Switches=leaf[1-2]\n",
                                "topology.conf");
  REQUIRE(t.ok());
  CHECK(t->format == "slurm");
  CHECK(t->leaf_of_host.size() == 7);
  CHECK(t->leaf_of_host.at("node04") == "leaf1");
  CHECK(t->leaf_of_host.at("node08") == "leaf2");
  CHECK(t->spines_of_leaf.at("leaf2") == std::vector<std::string>{"spine"});
  auto bad = read_fabric_topology("SwitchName=leaf1 Nodes=node[01-04\n", "topology.conf");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().source == "topology.conf:1");
  auto twice = read_fabric_topology("SwitchName=a Nodes=n[1-2]\nSwitchName=b Nodes=n2\n", "topology.conf");
  REQUIRE_FALSE(twice.ok());
  CHECK(twice.error().source == "topology.conf:2");
  auto no_switch = read_fabric_topology("SwitchName=a Nodes=n1\nNodes=n2\n", "topology.conf");
  REQUIRE_FALSE(no_switch.ok());
  CHECK(no_switch.error().source == "topology.conf:2");
}

TEST_CASE("ibnetdiscover: hosts' HCAs to leaf switches to the spine") {
  auto t = read_fabric_topology(fixture("ibnetdiscover/two-leaves-one-spine.txt"), "ibnet.txt");
  REQUIRE(t.ok());
  CHECK(t->format == "ibnetdiscover");
  CHECK(t->leaf_of_host.size() == 4);
  CHECK(t->leaf_of_host.at("node01") == "leaf01");
  CHECK(t->leaf_of_host.at("node04") == "leaf02");
  CHECK(t->spines_of_leaf.at("leaf01") == std::vector<std::string>{"spine01"});
  auto ports = read_fabric_topology(fixture("ibnetdiscover/ports-two-leaves.txt"), "ports.txt");
  REQUIRE(ports.ok());
  CHECK(ports->format == "ibnetdiscover");
  CHECK(ports->leaf_of_host.size() >= 2);
}

TEST_CASE("topology fixtures read as their format") {
  auto text = read_fabric_topology(fixture("topology/leaves.txt"), "leaves.txt");
  REQUIRE(text.ok());
  CHECK(text->format == "text");
  CHECK(text->leaf_of_host.at("node03") == "leaf2");
  auto slurm = read_fabric_topology(fixture("topology/topology.conf"), "topology.conf");
  REQUIRE(slurm.ok());
  CHECK(slurm->format == "slurm");
  CHECK(slurm->leaf_of_host.size() == 8);
  CHECK(slurm->spines_of_leaf.at("leaf1") == std::vector<std::string>{"spine1"});
}
