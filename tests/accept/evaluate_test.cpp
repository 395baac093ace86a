// accept/expected.h and accept/evaluate.h over small hand-built documents: derived floors (ring,
// alltoall, pair, the single-node caveat), pass/fail/not_checked per check, margins, the node
// roll-up, findings and the exit code.
#include <doctest/doctest.h>

#include "accept/evaluate.h"
#include "accept/expected.h"

using namespace fabdiag;
using namespace fabdiag::accept;
using nlohmann::json;

namespace {

// A topo `data` of `gpus` GPUs and `nics` RDMA NICs (one 400G port each, Gen5 x16 links).
json topo(int gpus, int nics, int nic_width = 16) {
  json d = {{"devices", json::array()}, {"nvlink", {{"state", "known"}}}, {"rails", {{"gpus", json::array()}, {"shared", json::array()},
            {"far_nics", json::array()}, {"unknown_gpus", json::array()}, {"gpus_without_local_nic", json::array()}}}};
  for (int i = 0; i < gpus; ++i) {
    d["devices"].push_back({{"name", "GPU" + std::to_string(i)}, {"kind", "gpu"}, {"nvml", {{"active_links", 18}}},
                            {"pcie", {{"current_speed_gts", 2.5}, {"max_speed_gts", 32.0}, {"current_width", 16},
                                      {"parent_max_speed_gts", 32.0}}}});
    d["rails"]["gpus"].push_back({{"gpu", "GPU" + std::to_string(i)}});
  }
  for (int i = 0; i < nics; ++i)
    d["devices"].push_back({{"name", "NIC" + std::to_string(i)}, {"kind", "nic"}, {"rdma", true}, {"ibdev", "mlx5_" + std::to_string(i)},
                            {"ports", {{{"port", 1}, {"state", "4: ACTIVE"}, {"rate", "400 Gb/sec (4X NDR)"}, {"rate_bits_per_s", 4e11},
                                        {"link_layer", "InfiniBand"}}}},
                            {"pcie", {{"current_speed_gts", 32.0}, {"max_speed_gts", 32.0}, {"current_width", i == 0 ? nic_width : 16}}}});
  return d;
}

const CheckResult& row(const Verdict& v, const std::string& subject, const std::string& check) {
  for (const auto& c : v.checks)
    if (c.subject == subject && c.check == check) return c;
  FAIL("no row " << subject << " " << check);
  static CheckResult none;
  return none;
}

Spec hgx_spec() {
  Spec s;
  s.file = "hgx.yaml";
  s.node.gpus = 8;
  s.node.nics = 8;
  s.node.nvlinks_per_gpu = 18;
  s.node.port_rate_gbit_per_s = 400;
  s.node.port_width = 4;
  s.node.pcie["gpu"] = PcieSpec{5, 16};
  s.node.pcie["nic"] = PcieSpec{5, 16};
  s.node.gpus_per_nic = 1;
  return s;
}

}  // namespace

TEST_CASE("rails and their bandwidth come from the active ports of GPU-local RDMA NICs") {
  json t = topo(8, 8);
  t["devices"][15]["ports"][0]["state"] = "1: DOWN";  // NIC7 down: not a rail
  t["devices"].push_back({{"name", "NIC8"}, {"kind", "nic"}, {"rdma", true},
                          {"ports", {{{"state", "4: ACTIVE"}, {"rate_bits_per_s", 2e11}}}}});
  t["rails"]["far_nics"] = {"NIC8"};  // a storage NIC close to no GPU
  auto net = node_network(t, "topo.json");
  REQUIRE(net);
  CHECK(net->gpus == 8);
  CHECK(net->rails == 7);
  CHECK(net->rail_bytes_per_s == doctest::Approx(7 * 50e9));
  CHECK(net->fastest_port_bytes_per_s == doctest::Approx(50e9));
  CHECK_FALSE(node_network(json::object(), "x").has_value());
}

TEST_CASE("derived busbw: one ring per rail, alltoall through a ranks share, none on one node") {
  auto net = node_network(topo(8, 8), "topo.json");
  Derived ring = derive_busbw("all_reduce", 16, 2, net, 0.8);
  REQUIRE(ring.bytes_per_s);
  CHECK(*ring.bytes_per_s == doctest::Approx(0.8 * 400e9));  // 320 GB/s
  Derived a2a = derive_busbw("alltoall", 16, 2, net, 0.8);
  REQUIRE(a2a.bytes_per_s);
  CHECK(*a2a.bytes_per_s == doctest::Approx(0.8 * 50e9 * 15.0 / 8.0));  // 75 GB/s
  Derived one_node = derive_busbw("all_reduce", 8, 1, net, 0.8);
  CHECK_FALSE(one_node.bytes_per_s);
  CHECK(one_node.reason.find("single node") == 0);
  CHECK_FALSE(derive_busbw("sendrecv", 16, 2, net, 0.8).bytes_per_s);
  CHECK_FALSE(derive_busbw("all_reduce", 16, 2, std::nullopt, 0.8).bytes_per_s);
  auto none = node_network(topo(0, 0), "t");
  CHECK(derive_busbw("all_reduce", 2, 2, none, 0.8).reason.find("no active RDMA port") == 0);
  Derived pair = derive_pair(net, net, 0.8);
  REQUIRE(pair.bytes_per_s);
  CHECK(*pair.bytes_per_s == doctest::Approx(40e9));
  CHECK_FALSE(derive_pair(net, std::nullopt, 0.8).bytes_per_s);
}

TEST_CASE("a healthy node passes every node check, a narrow NIC link fails pcie_width:nic only") {
  Inputs in;
  in.hosts.push_back({"node01", Doc{"fabdiag.topo/1", topo(8, 8), "n1/topo.json"}, {}, {}});
  in.hosts.push_back({"node02", Doc{"fabdiag.topo/1", topo(8, 8, 8), "n2/topo.json"}, {}, {}});
  Verdict v = evaluate(hgx_spec(), in);
  for (const auto& c : v.checks)
    if (c.subject == "node01") CHECK_MESSAGE(c.status == Outcome::kPass, c.check << ": " << c.reason);
  const CheckResult& w = row(v, "node02", "pcie_width:nic");
  CHECK(w.status == Outcome::kFail);
  CHECK(*w.measured == 8);
  CHECK(*w.expected == 16);
  CHECK(*w.margin_pct == doctest::Approx(-50.0));
  REQUIRE(w.evidence.size() == 1);
  CHECK(w.evidence[0].metric == "NIC0 pcie_width:nic");
  int failed = 0;
  for (const auto& c : v.checks) failed += c.status == Outcome::kFail;
  CHECK(failed == 1);
  CHECK(v.nodes.size() == 2);
  CHECK(v.nodes[0].status == Outcome::kPass);
  CHECK(v.nodes[1].status == Outcome::kFail);
  CHECK(verdict_exit_code(v) == 1);
  auto findings = verdict_findings(v);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].code == "accept_pcie_width");
  CHECK(findings[0].subject == "node02");
}

TEST_CASE("idle GPUs are judged on their link capability, with the current speed in the reason") {
  Inputs in;
  in.hosts.push_back({"node01", Doc{"fabdiag.topo/1", topo(8, 8), "topo.json"}, {}, {}});
  Verdict v = evaluate(hgx_spec(), in);
  const CheckResult& g = row(v, "node01", "pcie_gen:gpu");
  CHECK(g.status == Outcome::kPass);
  CHECK(*g.measured == 32.0);
  CHECK(g.reason.find("at 2.5 GT/s now") != std::string::npos);
}

TEST_CASE("a missing NIC fails nic_count, and rails is not judged on top of it") {
  Inputs in;
  json t = topo(8, 7);
  t["rails"]["shared"] = {{{"gpus", {"GPU6", "GPU7"}}, {"nics", {"NIC6"}}}};
  in.hosts.push_back({"node04", Doc{"fabdiag.topo/1", t, "topo.json"}, {}, {}});
  Verdict v = evaluate(hgx_spec(), in);
  CHECK(row(v, "node04", "nic_count").status == Outcome::kFail);
  CHECK(*row(v, "node04", "nic_count").measured == 7);
  CHECK(row(v, "node04", "rails").status == Outcome::kNotChecked);
  CHECK(v.fail == 1);
  Spec only_rails;
  only_rails.node.gpus_per_nic = 1;  // without nic_count in the spec, rails is judged
  Verdict r = evaluate(only_rails, in);
  CHECK(row(r, "node04", "rails").status == Outcome::kFail);
  CHECK(*row(r, "node04", "rails").measured == 2);
}

TEST_CASE("missing inputs are not_checked with the reason, never pass, exit 4 without a failure") {
  Inputs in;
  json t = topo(8, 8);
  t["nvlink"] = {{"state", "unknown"}, {"reason", "NVML not loaded"}};
  in.hosts.push_back({"node01", Doc{"fabdiag.topo/1", t, "topo.json"}, {}, {}});
  Spec s = hgx_spec();
  s.node.gdr = true;
  s.node.active_mtu_bytes = 4096;
  s.deliver.counter_growth_max["symbol_error"] = 0;
  s.deliver.busbw.push_back(BusbwSpec{"all_reduce", 1ull << 30, std::nullopt, 12});
  Verdict v = evaluate(s, in);
  CHECK(row(v, "node01", "nvlinks_per_gpu").status == Outcome::kNotChecked);
  CHECK(row(v, "node01", "nvlinks_per_gpu").reason == "NVLink state unknown: NVML not loaded");
  CHECK(row(v, "node01", "gdr").status == Outcome::kNotChecked);
  CHECK(row(v, "node01", "active_mtu").status == Outcome::kNotChecked);  // topo ports carry no MTU
  CHECK(row(v, "node01", "counter_growth:symbol_error").reason.find("no fabdiag.counters/1") == 0);
  CHECK(row(v, "cluster", "busbw:all_reduce:1G").reason.find("hgx.yaml line 12") != std::string::npos);
  CHECK(v.fail == 0);
  CHECK(v.nodes[0].status == Outcome::kNotChecked);
  CHECK(verdict_exit_code(v) == 4);
}

TEST_CASE("busbw floors: derived across nodes, the specs number when given") {
  Inputs in;
  in.hosts.push_back({"node01", Doc{"fabdiag.topo/1", topo(8, 8), "1"}, {}, {}});
  in.hosts.push_back({"node02", Doc{"fabdiag.topo/1", topo(8, 8), "2"}, {}, {}});
  json hosts = json::array();
  for (int i = 0; i < 16; ++i) hosts.push_back(i < 8 ? "node01" : "node02");
  in.bench.push_back(Doc{"fabdiag.bench/1", {{"collective", "all_reduce"}, {"ranks", 16}, {"hosts", hosts},
                                              {"results", {{{"size_bytes", 1 << 30}, {"busbw_bytes_per_s", 300e9}}}}}, "ar.txt"});
  Spec s;
  s.deliver.busbw.push_back(BusbwSpec{"all_reduce", 1ull << 30, std::nullopt, 3});
  Verdict v = evaluate(s, in);
  const CheckResult& c = row(v, "node01, node02", "busbw:all_reduce:1G");
  CHECK(c.scope == "cluster");
  CHECK(c.status == Outcome::kFail);
  CHECK(*c.expected == doctest::Approx(320e9));
  CHECK(*c.margin_pct == doctest::Approx(-6.25));
  CHECK(c.reason.find("derived: 0.8 x 400 GB/s") == 0);
  s.deliver.busbw[0].min_busbw_bytes_per_s = 290e9;
  Verdict given = evaluate(s, in);
  CHECK(row(given, "node01, node02", "busbw:all_reduce:1G").status == Outcome::kPass);
  CHECK(row(given, "node01, node02", "busbw:all_reduce:1G").reason == "floor from the spec");
}

TEST_CASE("pairs: a slow node fails its median, its pairs are attributed to it, a slow link fails alone") {
  Inputs in;
  const std::vector<std::string> names = {"n1", "n2", "n3", "n4"};
  json m = json::array();
  for (int i = 0; i < 4; ++i) {
    json r = json::array();
    for (int j = 0; j < 4; ++j) r.push_back(i == j ? json(nullptr) : json(i == 3 || j == 3 ? 10e9 : 46e9));
    m.push_back(r);
  }
  m[0][1] = 20e9;  // n1->n2 slow, one direction: the link n1<->n2
  in.pairwise.push_back(Doc{"fabdiag.pairwise/1", {{"hosts", names}, {"matrix_bytes_per_s", m},
                            {"node_median_bytes_per_s", {{"n1", 46e9}, {"n2", 46e9}, {"n3", 46e9}, {"n4", 10e9}}}}, "pw.json"});
  Spec s;
  s.deliver.pair_checked = true;
  s.deliver.pair_min_bytes_per_s = 40e9;
  Verdict v = evaluate(s, in);
  CHECK(row(v, "n4", "pair_bandwidth_median").status == Outcome::kFail);
  CHECK(row(v, "n1", "pair_bandwidth_median").status == Outcome::kPass);
  CHECK(row(v, "n1<->n2", "pair_bandwidth").status == Outcome::kFail);
  CHECK(*row(v, "n1<->n2", "pair_bandwidth").measured == 20e9);
  CHECK(row(v, "n1<->n4", "pair_bandwidth").status == Outcome::kNotChecked);
  CHECK(row(v, "n1<->n4", "pair_bandwidth").reason.find("attributed to node n4") == 0);
  CHECK(row(v, "n1<->n3", "pair_bandwidth").status == Outcome::kPass);
  CHECK(v.fail == 2);
  auto f = verdict_findings(v);
  REQUIRE(f.size() == 2);
  CHECK(f[0].subject == "n4");
  CHECK(f[1].subject == "n1<->n2");
  CHECK(f[1].layer == Layer::kLocalization);
}

TEST_CASE("counter growth: one link row per port against the allowance, one snapshot is not a soak") {
  Inputs in;
  json counters = {{"window_s", 600}, {"counters", {{{"device", "mlx5_0/1"}, {"name", "symbol_error"}, {"delta", 0}},
                                                    {{"device", "mlx5_1/1"}, {"name", "symbol_error"}, {"delta", 12}},
                                                    {{"device", "mlx5_1/1"}, {"name", "link_downed"}, {"delta", 0}}}}};
  in.hosts.push_back({"node01", {}, {}, Doc{"fabdiag.counters/1", counters, "c.json"}});
  in.hosts.push_back({"node02", {}, {}, Doc{"fabdiag.counters/1", {{"window_s", nullptr}, {"counters", json::array()}}, "c2.json"}});
  Spec s;
  s.deliver.counter_growth_max = {{"symbol_error", 0}, {"link_downed", 0}, {"port_rcv_errors", 0}};
  Verdict v = evaluate(s, in);
  const CheckResult& se = row(v, "node01:mlx5_1/1", "counter_growth:symbol_error");
  CHECK(se.scope == "link");
  CHECK(se.status == Outcome::kFail);
  CHECK(*se.measured == 12);
  CHECK(*se.expected == 0);
  CHECK(se.reason == "growth over 600 s (0.02/s)");
  REQUIRE(se.evidence.size() == 1);
  CHECK(se.evidence[0].metric == "mlx5_1/1 symbol_error delta");
  CHECK(se.evidence[0].source == "c.json");
  CHECK_FALSE(se.margin_pct.has_value());  // of an allowance of 0
  CHECK(*se.margin == -12);                 // but 12 over it
  CHECK(margin_text(se) == "-12 count");
  CHECK(row(v, "node01:mlx5_0/1", "counter_growth:symbol_error").status == Outcome::kPass);
  CHECK(row(v, "node01:mlx5_1/1", "counter_growth:link_downed").status == Outcome::kPass);
  CHECK(row(v, "node01", "counter_growth:port_rcv_errors").status == Outcome::kNotChecked);
  CHECK(row(v, "node02", "counter_growth:symbol_error").reason.find("one counters snapshot") == 0);
  // The roll-ups: the port's link fails, its node keeps its node checks' outcome.
  REQUIRE(v.links.size() == 2);  // in the order of their first check (link_downed sorts first)
  CHECK(v.links[0].link == "node01:mlx5_1/1");
  CHECK(v.links[0].status == Outcome::kFail);
  CHECK(v.links[1].link == "node01:mlx5_0/1");
  CHECK(v.links[1].status == Outcome::kPass);
  auto f = verdict_findings(v);
  REQUIRE(f.size() == 1);
  CHECK(f[0].code == "accept_counter_growth");
  CHECK(f[0].subject == "node01:mlx5_1/1");
  CHECK(f[0].message == "counter_growth:symbol_error failed on node01:mlx5_1/1: measured 12 count, expected 0 count, "
                        "margin -12 count (growth over 600 s (0.02/s))");
}

TEST_CASE("a failed floor names measured, expected and the margin") {
  Inputs in;
  in.pairwise.push_back(Doc{"fabdiag.pairwise/1", {{"hosts", {"a", "b"}}, {"matrix_bytes_per_s", {{nullptr, 30e9}, {30e9, nullptr}}},
                                                   {"node_median_bytes_per_s", {{"a", 30e9}, {"b", 46e9}}}}, "pw"});
  Spec s;
  s.deliver.pair_checked = true;
  s.deliver.pair_min_bytes_per_s = 40e9;
  auto f = verdict_findings(evaluate(s, in));
  REQUIRE(f.size() == 1);
  CHECK(f[0].message == "pair_bandwidth_median failed on a: measured 30 GB/s, expected 40 GB/s, margin -25.0% "
                        "(floor from the spec)");
  CHECK(value_text(357.19e9, "bytes/s") == "357.2 GB/s");
  CHECK(value_text(8, "lanes") == "8 lanes");
  CHECK(value_text(std::nullopt, "count") == "-");
  CheckResult r;
  r.measured = 357.19e9;
  r.expected = 320e9;
  judge(r, ">=");
  CHECK(margin_text(r) == "+11.6%");
  CHECK(*r.margin == doctest::Approx(37.19e9));
  CHECK(margin_text(CheckResult{}) == "-");
}

TEST_CASE("the fabdiag.accept/1 data has the agreed shape") {
  Inputs in;
  in.hosts.push_back({"node01", Doc{"fabdiag.topo/1", topo(8, 8), "topo.json"}, {}, {}});
  Spec s;
  s.file = "s.yaml";
  s.name = "x";
  s.node.gpus = 8;
  Verdict v = evaluate(s, in);
  json d = verdict_json(v, s);
  CHECK(d["summary"] == json({{"pass", 1}, {"fail", 0}, {"not_checked", 0}}));
  CHECK(d["nodes"] == json::array({{{"host", "node01"}, {"status", "pass"}}}));
  CHECK(d["links"] == json::array());
  const json& c = d["checks"][0];
  CHECK(c["scope"] == "node");
  CHECK(c["subject"] == "node01");
  CHECK(c["check"] == "gpu_count");
  CHECK(c["status"] == "pass");
  CHECK(c["measured"] == 8);
  CHECK(c["expected"] == 8);
  CHECK(c["unit"] == "count");
  CHECK(c["margin"] == 0);
  CHECK(c["margin_pct"] == 0);
  CHECK(c["evidence"].is_array());
  CHECK(c["evidence"][0]["metric"] == "gpus");
  CHECK(c.contains("reason"));
}
