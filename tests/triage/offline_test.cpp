// The offline verdict (triage/offline.h): systemic causes against one bad node, suspects
// ordered by the layers that point at them, fabric findings, cleared hosts.
#include <doctest/doctest.h>

#include "triage/offline.h"

namespace fabdiag::triage {
namespace {

HostedFinding hf(const std::string& host, const std::string& code, Severity sev, Layer layer) {
  Finding f;
  f.code = code;
  f.severity = sev;
  f.layer = layer;
  f.subject = host.empty() ? "MF0;sw01:SX6036/U1 port 5" : host;
  f.message = code + " on " + (host.empty() ? "a switch" : host);
  f.action = "fix " + code;
  return {f, host};
}

TEST_CASE("offline: one node with evidence at three layers is the suspect, the rest cleared") {
  std::vector<HostedFinding> in = {hf("node05", "nccl_socket_fallback", Severity::kError, Layer::kApplication),
                                   hf("node05", "port_down", Severity::kError, Layer::kPhysical),
                                   hf("node05", "link_flap", Severity::kWarn, Layer::kPhysical),
                                   hf("node02", "port_down", Severity::kError, Layer::kPhysical),
                                   hf("node03", "nccl_speed_assumed", Severity::kInfo, Layer::kApplication)};
  auto v = judge_offline(in, {"node01", "node02", "node03", "node04", "node05", "node06"});
  REQUIRE(v.suspects.size() == 2);
  CHECK(v.suspects[0].host == "node05");  // two layers beat one at the same severity
  CHECK(v.suspects[0].layers == std::vector<Layer>{Layer::kApplication, Layer::kPhysical});
  CHECK(v.suspects[0].findings.front().code == "port_down");  // the deeper layer first
  CHECK(v.suspects[0].action == "fix port_down");
  CHECK(v.suspects[1].host == "node02");
  CHECK(v.systemic.empty());  // port_down on 2 of 6 hosts: not systemic
  CHECK(v.cleared == std::vector<std::string>{"node01", "node03", "node04", "node06"});
}

TEST_CASE("offline: the same cause on most hosts is systemic, not six suspects") {
  std::vector<HostedFinding> in;
  for (const char* h : {"node01", "node02", "node03", "node04"})
    in.push_back(hf(h, "nccl_ib_disabled_by_env", Severity::kError, Layer::kApplication));
  in.push_back(hf("node06", "port_down", Severity::kError, Layer::kPhysical));
  auto v = judge_offline(in, {"node01", "node02", "node03", "node04", "node05", "node06"});
  REQUIRE(v.systemic.size() == 1);
  CHECK(v.systemic[0].code == "nccl_ib_disabled_by_env");
  CHECK(v.systemic[0].hosts.size() == 4);
  CHECK(v.systemic[0].of_hosts == 6);
  REQUIRE(v.suspects.size() == 1);  // node06's own fault stays a suspect
  CHECK(v.suspects[0].host == "node06");
  CHECK(v.cleared == std::vector<std::string>{"node05"});
}

TEST_CASE("offline: 2 of 2 hosts is systemic, 1 of 64 is one node, hostless findings are fabric") {
  auto two = judge_offline({hf("a1", "gdr_disabled", Severity::kWarn, Layer::kApplication),
                            hf("a2", "gdr_disabled", Severity::kWarn, Layer::kApplication)},
                           {});
  CHECK(two.systemic.size() == 1);
  CHECK(two.suspects.empty());
  std::vector<std::string> hosts;
  for (int i = 1; i <= 64; ++i) hosts.push_back("n" + std::to_string(i));
  auto one = judge_offline({hf("n7", "gdr_disabled", Severity::kWarn, Layer::kApplication),
                            hf("", "symbol_errors", Severity::kCritical, Layer::kPhysical)},
                           hosts);
  CHECK(one.systemic.empty());
  REQUIRE(one.suspects.size() == 1);
  CHECK(one.suspects[0].host == "n7");
  REQUIRE(one.fabric.size() == 1);
  CHECK(one.fabric[0].code == "symbol_errors");
  CHECK(one.cleared.size() == 63);
}

TEST_CASE("host_of_subject: a host word before a device, never a device or a switch") {
  const std::vector<std::string> known = {"gpu-node02"};
  CHECK(host_of_subject("node05 mlx5_0 port 1", {}) == "node05");
  CHECK(host_of_subject("gpu-node02", known) == "gpu-node02");
  CHECK(host_of_subject("gpu-node02: retries", {}) == "gpu-node02");
  CHECK(host_of_subject("node05", {}) == "");  // one word not known: could be a netdev
  CHECK(host_of_subject("mlx5_0/1", {}) == "");
  CHECK(host_of_subject("0000:9c:00.0", {}) == "");
  CHECK(host_of_subject("optics ens1f0np0", {}) == "");
  CHECK(host_of_subject("MF0;switch01:SX6036/U1 port 5", {}) == "");
  CHECK(host_of_subject("all_reduce 67108864 B", {}) == "");
  CHECK(host_of_subject("IBM HSSM port 1 <-> node01 HCA-1", {}) == "node01");  // the far end's host
  CHECK(host_of_subject("IBM HSSM port 2 <-> MT25204 InfiniHostLx Mellanox Technologies", {}) == "");
  CHECK(host_of_subject("leaf01 port 2 <-> (no name)", {}) == "");
  CHECK(host_of_subject("node05 mlx5_0 port 1 <-> (no name)", {"node05"}) == "node05");  // a known near end
  CHECK(host_of_subject("rank 3 of 8", {}) == "");
  CHECK(host_of_subject("CA Lid 2 port 1", {}) == "");
  CHECK(host_of_subject("OSU MPI-CUDA Bandwidth Test v7.2", {}) == "");
  // A node GUID (an ibqueryerrors line without its node's description) and an lspci fragment's
  // device are no hosts (cases w206, w215).
  CHECK(host_of_subject("0x0000000000000001 all ports", {}) == "");
  CHECK(host_of_subject("unnamed device (LnkCap/LnkSta at lnk.txt line 1, no lspci header)", {}) == "");
}

TEST_CASE("host_of_subject: the subjects of the GPU and job readers name no host") {
  CHECK(host_of_subject("PG 1 SeqNum 1580", {}) == "");
  CHECK(host_of_subject("PG 0 (default_pg) SeqNum 808", {}) == "");
  CHECK(host_of_subject("NvSwitch 3", {}) == "");
  CHECK(host_of_subject("dcgmi diag Persistence Mode", {}) == "");
  CHECK(host_of_subject("0000:b3:00.0", {}) == "");
}

}  // namespace
}  // namespace fabdiag::triage
