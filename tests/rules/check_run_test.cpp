// run_checks: what each check says when its facts are missing, empty, undecided or present.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "rules/check_run.h"

using namespace fabdiag;

namespace {
CheckStatus status_of(const CheckReport& r, const std::string& name) {
  for (const auto& c : r.checks)
    if (c.name == name) return c.status;
  FAIL("no check " << name);
  return CheckStatus::kNotChecked;
}
}  // namespace

TEST_CASE("no facts: every check is 'not checked', no finding") {
  auto r = run_checks(HostFacts{}, {});
  CHECK(r.findings.empty());
  REQUIRE(r.checks.size() == 10);  // nccl_errors only appears with completion errors
  for (const auto& c : r.checks) CHECK(c.status == CheckStatus::kNotChecked);
}

TEST_CASE("empty facts are 'n/a', a node without GPUs has nothing for GPUDirect") {
  HostFacts f;
  f.pcie_links.emplace();
  f.acs_ports.emplace();
  f.aer.emplace();
  f.rdma_ports.emplace();
  f.counters.emplace();
  f.gdr = GdrFacts{};
  f.gdr->rdma_nics = 2;
  auto r = run_checks(f, {});
  for (const char* n : {"pcie_link", "acs", "aer", "gpudirect_rdma", "port_state", "port_rate", "roce_mtu",
                        "roce_gid", "ecn"})
    CHECK(status_of(r, n) == CheckStatus::kNotApplicable);
}

TEST_CASE("ACS unreadable everywhere is 'unknown' (info), partly read is decided, IOMMU unknown too") {
  HostFacts f;
  AcsPort p;
  p.bdf = "0000:15:01.0";
  p.label = "root port 0000:15:01.0";
  p.position_known = true;
  p.below = {"GPU0"};
  p.status = AcsStatus::kNeedsRoot;
  f.acs_ports = std::vector<AcsPort>{p};
  f.iommu = IommuFacts{};
  f.iommu->units = {"dmar0"};
  auto r = run_checks(f, {});
  CHECK(status_of(r, "acs") == CheckStatus::kUnknown);
  CHECK(status_of(r, "iommu") == CheckStatus::kUnknown);
  AcsPort q = p;
  q.bdf = "0000:17:00.0";
  q.status = AcsStatus::kRead;
  f.acs_ports->push_back(q);
  CHECK(status_of(run_checks(f, {}), "acs") == CheckStatus::kPass);
  q.control = kAcsReqRedirect;
  f.acs_ports->push_back(q);
  CHECK(status_of(run_checks(f, {}), "acs") == CheckStatus::kProblems);
}

TEST_CASE("completion errors add the nccl_errors check, JSON of a check result") {
  HostFacts f;
  WcError w;
  w.status = 12;
  f.wc_errors.push_back(w);
  auto r = run_checks(f, {});
  CHECK(status_of(r, "nccl_errors") == CheckStatus::kProblems);
  nlohmann::json j = r.checks.back();
  CHECK(j["name"] == "nccl_errors");
  CHECK(j["status"] == "problems");
  CHECK(j["findings"] == 1);
}

TEST_CASE("a device without PCIe link attributes (virtio NIC) is not a link that passed") {
  HostFacts f;
  f.pcie_links.emplace();
  PcieLinkSubject virtio;
  virtio.bdf = "0000:00:03.0";
  virtio.label = "NIC0";
  f.pcie_links->push_back(virtio);
  auto r = run_checks(f, {});
  CHECK(status_of(r, "pcie_link") == CheckStatus::kNotApplicable);
  PcieLinkSubject real = virtio;
  real.link.current_width = 16;
  real.link.max_width = 16;
  f.pcie_links->push_back(real);
  CHECK(status_of(run_checks(f, {}), "pcie_link") == CheckStatus::kPass);
}

TEST_CASE("a GPU or NIC by PCI class without link attributes is 'not checked' alone, 'unknown' beside a read link") {
  HostFacts f;
  f.pcie_links.emplace();
  PcieLinkSubject gpu;
  gpu.bdf = "0000:9c:00.0";
  gpu.label = "GPU3";
  gpu.is_gpu = true;
  gpu.link_expected = true;
  gpu.source = "/sys/bus/pci/devices/0000:9c:00.0";
  gpu.link.max_width = 16;  // LnkCap read, the current link not: still unread
  gpu.link.max_speed_gts = 32;
  f.pcie_links->push_back(gpu);
  auto r = run_checks(f, {});
  CHECK(status_of(r, "pcie_link") == CheckStatus::kNotChecked);
  CHECK(r.checks.front().summary ==
        "could not be read: GPU3 /sys/bus/pci/devices/0000:9c:00.0/current_link_width and current_link_speed");
  PcieLinkSubject real;
  real.label = "NIC0";
  real.link.current_width = 16;
  real.link.max_width = 16;
  f.pcie_links->push_back(real);
  r = run_checks(f, {});
  CHECK(status_of(r, "pcie_link") == CheckStatus::kUnknown);
  CHECK(r.checks.front().summary.find("1 link of GPUs") == 0);
}

TEST_CASE("listed RDMA ports without a state or rate are not ports that passed") {
  HostFacts f = facts_from_ports({listed_rdma_port("mlx5_0", 1, "a.txt line 3: CA 'mlx5_0' port 1")}, "files: a.txt");
  auto r = run_checks(f, {});
  CHECK(status_of(r, "port_state") == CheckStatus::kNotChecked);
  CHECK(status_of(r, "port_rate") == CheckStatus::kNotChecked);
  for (const auto& c : r.checks)
    if (c.name == "port_state") CHECK(c.summary == "could not be read: a.txt line 3: CA 'mlx5_0' port 1, state");
  RdmaPortFacts up = listed_rdma_port("mlx5_1", 1, "a.txt line 9: CA 'mlx5_1' port 1");
  up.state = "4: ACTIVE";
  up.phys_state = "5: LinkUp";
  up.rate = "400";
  up.rate_gbps = 400;
  f.rdma_ports->push_back(up);
  r = run_checks(f, {});
  CHECK(status_of(r, "port_state") == CheckStatus::kUnknown);
  CHECK(status_of(r, "port_rate") == CheckStatus::kUnknown);
}

TEST_CASE("RDMA ports whose link layer was not read: the RoCE checks are not checked, not n/a") {
  RdmaPortFacts cut = listed_rdma_port("mlx5_0", 1, "a.txt line 4: CA 'mlx5_0' port 1");
  cut.state = "4: ACTIVE";  // an ibstat block cut after its State line
  HostFacts f = facts_from_ports({cut}, "files: a.txt");
  auto r = run_checks(f, {});
  CHECK(status_of(r, "roce_mtu") == CheckStatus::kNotChecked);
  CHECK(status_of(r, "roce_gid") == CheckStatus::kNotChecked);
  CHECK(status_of(r, "port_rate") == CheckStatus::kNotChecked);
  for (const auto& c : r.checks)
    if (c.name == "roce_mtu")
      CHECK(c.summary == "no port known to be RoCE; the link layer could not be read: a.txt line 4: CA 'mlx5_0' port 1, link_layer");
  // State read, physical state not: up only when the block was not cut (ibv_devinfo without
  // -v never prints it); a gap naming the block says it was.
  CHECK(status_of(r, "port_state") == CheckStatus::kPass);
  f.gaps.push_back(make_error(ErrorCode::kParse, "the port's block has no \"Physical state\" line", cut.source));
  r = run_checks(f, {});
  CHECK(status_of(r, "port_state") == CheckStatus::kNotChecked);
  for (const auto& c : r.checks)
    if (c.name == "port_state") CHECK(c.summary == "could not be read: a.txt line 4: CA 'mlx5_0' port 1, phys_state");
  (*f.rdma_ports)[0].link_layer = "InfiniBand";
  r = run_checks(f, {});
  CHECK(status_of(r, "roce_mtu") == CheckStatus::kNotApplicable);
}
