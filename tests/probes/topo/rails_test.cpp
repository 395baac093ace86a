#include <doctest/doctest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "probes/topo/nvlink_topology.h"
#include "probes/topo/rails.h"
#include "probes/topo/topology.h"

using namespace fabdiag;

namespace {

FsRoot fixture(const std::string& name) {
  std::string root = std::string(FABDIAG_SOURCE_DIR) + "/tests/fixtures/" + name;
  return FsRoot(root, root);
}

// A report from a hand-written matrix: names "GPU<n>" are GPUs, others RDMA NICs ("-" = missing).
TopologyReport synthetic(const std::vector<std::string>& names, const std::vector<std::vector<std::string>>& cells) {
  TopologyReport r;
  for (const auto& n : names) {
    TopoDevice d;
    d.name = n;
    d.kind = n.rfind("GPU", 0) == 0 ? TopoKind::kGpu : TopoKind::kNic;
    d.rdma = d.kind == TopoKind::kNic;
    if (d.rdma) d.ibdev = "mlx5_" + n.substr(3);
    r.devices.push_back(d);
  }
  const std::pair<const char*, PcieLevel> levels[] = {{"X", PcieLevel::kSelf}, {"PIX", PcieLevel::kPix},
                                                      {"PXB", PcieLevel::kPxb}, {"PHB", PcieLevel::kPhb},
                                                      {"NODE", PcieLevel::kNode}, {"SYS", PcieLevel::kSys}};
  for (const auto& row : cells) {
    std::vector<Relation> rr;
    for (const auto& c : row) {
      Relation rel;
      rel.missing = c == "-";
      for (const auto& [code, level] : levels)
        if (c == code) rel.pcie = level;
      rr.push_back(rel);
    }
    r.matrix.push_back(rr);
  }
  return r;
}

std::vector<std::string> codes(const std::vector<Finding>& fs) {
  std::vector<std::string> out;
  for (const auto& f : fs) out.push_back(to_string(f.severity) + std::string(" ") + f.code + " " + f.subject);
  return out;
}

}  // namespace

TEST_CASE("rails: dgx8 (two GPUs and two NICs per switch, PIX) shares nothing and has no finding") {
  auto r = discover_topology(fixture("dgx8"));
  auto rails = compute_rails(r);
  CHECK(rails.rdma_nics.size() == 8);
  REQUIRE(rails.gpus.size() == 8);
  CHECK(rails.gpus[0].relation == PcieLevel::kPix);
  CHECK(rails.gpus[0].closest_nics == std::vector<std::string>{"NIC0", "NIC1"});
  CHECK(rails.gpus[6].closest_nics == std::vector<std::string>{"NIC6"});
  CHECK(rails.gpus[7].closest_nics == std::vector<std::string>{"NIC7"});
  CHECK(rails.shared.empty());
  CHECK(rails.far_nics.empty());
  CHECK(rails.gpus_without_local_nic.empty());
  CHECK(judge_rails(rails, r, "test").empty());
}

TEST_CASE("rails: case 011 machine: two GPUs per PXB NIC, NIC3/NIC4 close to no GPU, PXB is not a fault") {
  auto r = discover_topology(fixture("case011-a100"));
  auto rails = compute_rails(r);
  REQUIRE(rails.gpus.size() == 8);
  const char* nic_of[8] = {"NIC1", "NIC1", "NIC0", "NIC0", "NIC5", "NIC5", "NIC2", "NIC2"};
  for (size_t g = 0; g < 8; ++g) {
    CAPTURE(g);
    CHECK(rails.gpus[g].known);
    CHECK(rails.gpus[g].relation == PcieLevel::kPxb);
    CHECK(rails.gpus[g].closest_nics == std::vector<std::string>{nic_of[g]});
    CHECK(rails.gpus[g].shares_with == std::vector<std::string>{"GPU" + std::to_string(g ^ 1)});
  }
  CHECK(rails.far_nics == std::vector<std::string>{"NIC3", "NIC4"});
  CHECK(rails.gpus_without_local_nic.empty());
  REQUIRE(rails.shared.size() == 4);
  CHECK(rails.shared[0].gpus == std::vector<std::string>{"GPU0", "GPU1"});
  CHECK(rails.shared[0].nics == std::vector<std::string>{"NIC1"});
  auto f = judge_rails(rails, r, "test");
  CHECK(codes(f) == std::vector<std::string>{"warn nic_shared_by_gpus mlx5_1", "warn nic_shared_by_gpus mlx5_0",
                                             "warn nic_shared_by_gpus mlx5_5", "warn nic_shared_by_gpus mlx5_2",
                                             "info nic_far_from_gpus mlx5_3", "info nic_far_from_gpus mlx5_4"});
  CHECK(f[0].layer == Layer::kPhysical);
  CHECK(f[0].message.find("GPU0 and GPU1 (PXB)") != std::string::npos);
  CHECK(f[0].message.find("not a hardware fault; yet NIC3 (mlx5_3) and NIC4 (mlx5_4) serve no GPU)") !=
        std::string::npos);
  REQUIRE(f[0].evidence.size() == 3);
  CHECK(f[0].evidence[0].value == 2.0);
  CHECK(f[0].evidence[1].metric == "GPU0-NIC1 relation");
  CHECK(f[0].evidence[1].value_text == "PXB");
  CHECK(f[4].action.find("NCCL_IB_HCA") != std::string::npos);
  CHECK(f[4].message.find("best relation SYS") != std::string::npos);
  for (const auto& x : f) CHECK(x.code != "gpu_without_local_nic");
}

TEST_CASE("rails: GPUs whose best NIC is beyond PXB have no local NIC, 3 GPUs on 2 NICs share") {
  auto r = synthetic({"GPU0", "GPU1", "GPU2", "GPU3", "NIC0", "NIC1"},
                     {{"X", "PIX", "PIX", "SYS", "PIX", "PIX"},
                      {"PIX", "X", "PIX", "SYS", "PIX", "PXB"},
                      {"PIX", "PIX", "X", "SYS", "PXB", "PIX"},
                      {"SYS", "SYS", "SYS", "X", "NODE", "SYS"},
                      {"PIX", "PIX", "PXB", "NODE", "X", "PIX"},
                      {"PIX", "PXB", "PIX", "SYS", "PIX", "X"}});
  auto rails = compute_rails(r);
  CHECK(rails.gpus_without_local_nic == std::vector<std::string>{"GPU3"});
  CHECK(rails.gpus[3].relation == PcieLevel::kNode);
  CHECK(rails.gpus[3].closest_nics == std::vector<std::string>{"NIC0"});
  REQUIRE(rails.shared.size() == 1);
  CHECK(rails.shared[0].gpus == std::vector<std::string>{"GPU0", "GPU1", "GPU2"});
  CHECK(rails.shared[0].nics == std::vector<std::string>{"NIC0", "NIC1"});
  CHECK(rails.shared[0].relation == PcieLevel::kPix);
  CHECK(rails.far_nics.empty());  // NIC0/NIC1 are PIX to GPU0-2
  auto f = judge_rails(rails, r, "test");
  // Every RDMA NIC is GPU-local: sharing is the design (info); GPU3's missing NIC is the warning.
  CHECK(codes(f) == std::vector<std::string>{"info nic_shared_by_gpus mlx5_0, mlx5_1", "warn gpu_without_local_nic GPU3"});
  CHECK(f[0].message.find("each gets about 2/3 of a NIC") != std::string::npos);
  CHECK(f[1].message.find("NIC0 (mlx5_0) at NODE") != std::string::npos);
}

TEST_CASE("rails: missing cells stay unknown, no RDMA NIC means no rails finding") {
  auto r = synthetic({"GPU0", "GPU1", "NIC0"},
                     {{"X", "-", "PXB"}, {"-", "-", "-"}, {"-", "-", "-"}});
  auto rails = compute_rails(r);
  CHECK(rails.unknown_gpus == std::vector<std::string>{"GPU1"});
  CHECK_FALSE(rails.gpus[1].known);
  CHECK(rails.shared.empty());  // GPU1 is unknown, not assumed to share NIC0
  CHECK(rails.gpus_without_local_nic.empty());
  CHECK(judge_rails(rails, r, "test").empty());

  auto gpus_only = synthetic({"GPU0", "GPU1"}, {{"X", "PIX"}, {"PIX", "X"}});
  auto none = compute_rails(gpus_only);
  CHECK(none.rdma_nics.empty());
  CHECK(none.unknown_gpus.empty());
  CHECK(judge_rails(none, gpus_only, "test").empty());
  auto j = rails_to_json(none);
  CHECK(j["gpus"][0]["relation"].is_null());
  CHECK(j["shared"].empty());
}

TEST_CASE("rails_to_json: the case 011 machine") {
  auto r = discover_topology(fixture("case011-a100"));
  auto j = rails_to_json(compute_rails(r));
  CHECK(j["far_nics"] == nlohmann::json({"NIC3", "NIC4"}));
  CHECK(j["gpus"][2]["closest_nics"] == nlohmann::json({"NIC0"}));
  CHECK(j["gpus"][2]["relation"] == "PXB");
  CHECK(j["shared"][1]["gpus"] == nlohmann::json({"GPU2", "GPU3"}));
  CHECK(j["rdma_nics"].size() == 6);
}

TEST_CASE("rails: 8 GPUs on 4 NICs, two per PIX NIC and no spare NIC, is the design: info only") {
  std::vector<std::string> names = {"GPU0", "GPU1", "GPU2", "GPU3", "GPU4", "GPU5", "GPU6", "GPU7",
                                    "NIC0", "NIC1", "NIC2", "NIC3"};
  // GPU 2k and 2k+1 sit with NIC k under one PCIe switch; everything else is SYS.
  auto group = [](size_t i) { return i < 8 ? i / 2 : i - 8; };
  std::vector<std::vector<std::string>> m(12, std::vector<std::string>(12));
  for (size_t i = 0; i < 12; ++i)
    for (size_t j = 0; j < 12; ++j) m[i][j] = i == j ? "X" : group(i) == group(j) ? "PIX" : "SYS";
  auto r = synthetic(names, m);
  auto rails = compute_rails(r);
  REQUIRE(rails.shared.size() == 4);
  CHECK(rails.far_nics.empty());
  CHECK(rails.gpus_without_local_nic.empty());
  auto f = judge_rails(rails, r, "test");
  CHECK(codes(f) == std::vector<std::string>{"info nic_shared_by_gpus mlx5_0", "info nic_shared_by_gpus mlx5_1",
                                             "info nic_shared_by_gpus mlx5_2", "info nic_shared_by_gpus mlx5_3"});
  CHECK(f[0].message.find("about 1/2 of a NIC (topology, not a hardware fault)") != std::string::npos);
}
