// `fabdiag check` on tests/fixtures/check/: the sysfs/procfs reader on the healthy node, and
// each injected host fault named alone (variant findings = healthy findings + exactly one).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <tuple>

#include "rules/check_run.h"
#include "collect/check_sysfs.h"
#include "tests/support/temp_tree.h"

using namespace fabdiag;

namespace {

const std::string kCheck = std::string(FABDIAG_SOURCE_DIR) + "/tests/fixtures/check/";

HostFacts facts_of(const std::string& variant) {
  return read_host_facts(FsRoot(kCheck + variant + "/sys", kCheck + variant + "/proc"));
}

using Key = std::tuple<Severity, std::string, std::string>;  // severity, code, subject

std::multiset<Key> keys(const CheckReport& r) {
  std::multiset<Key> out;
  for (const auto& f : r.findings) out.insert({f.severity, f.code, f.subject});
  return out;
}

}  // namespace

TEST_CASE("read_host_facts on the healthy node reads every kind of fact") {
  HostFacts f = facts_of("healthy");
  CHECK(f.gaps.empty());
  REQUIRE(f.pcie_links);
  CHECK(f.pcie_links->size() == 11);  // 4 GPUs, 5 NICs, 2 switch uplinks
  REQUIRE(f.acs_ports);
  CHECK(f.acs_ports->size() == 13);  // 3 root ports, 2 upstream ports, 8 downstream ports
  for (const auto& p : *f.acs_ports) {
    CHECK(p.position_known);
    CHECK_FALSE(p.below.empty());
    if (p.bdf == "0000:17:01.0") {
      CHECK(p.label == "switch downstream port 0000:17:01.0");
      CHECK(p.below == std::vector<std::string>{"NIC0 (mlx5_0)"});
      CHECK(p.status == AcsStatus::kRead);
    }
    if (p.bdf == "0000:00:01.1") CHECK(p.status == AcsStatus::kNeedsRoot);
    if (p.bdf == "0000:15:01.0") CHECK(p.below.size() == 4);
  }
  REQUIRE(f.aer);
  CHECK(f.aer->size() == 22);  // 9 GPUs/NICs + 13 bridges
  REQUIRE(f.gdr);
  CHECK(f.gdr->gpus == 4);
  CHECK(f.gdr->rdma_nics == 5);
  CHECK(f.gdr->peermem_found.size() == 2);  // module/nvidia_peermem and /proc/modules
  CHECK(f.gdr->nvidia_open_module == false);
  CHECK(f.gdr->kernel_release == "5.15.0-105-generic");
  REQUIRE(f.iommu);
  CHECK(f.iommu->units == std::vector<std::string>{"dmar0", "dmar1"});
  CHECK(f.iommu->device_domains.size() == 9);
  REQUIRE(f.rdma_ports);
  REQUIRE(f.rdma_ports->size() == 5);
  const auto& p0 = (*f.rdma_ports)[0];
  CHECK(p0.device == "mlx5_0/1");
  CHECK(p0.model == "MT4129");
  CHECK(p0.netdev == "ens19np0");
  CHECK(p0.netdev_mtu_bytes == 9000);
  CHECK(p0.rate_gbps == 400.0);
  REQUIRE(p0.rocev2_gids);
  CHECK(*p0.rocev2_gids == std::vector<std::string>{"0000:0000:0000:0000:0000:ffff:c000:020a"});
  CHECK((*f.rdma_ports)[4].model == "MT4125");
  REQUIRE(f.counters);
  CHECK(f.counters->size() == 5);  // rp_cnp_ignored of each port, nothing else
  for (const auto& c : *f.counters) CHECK(c.counter.name == "rp_cnp_ignored");
}

TEST_CASE("healthy node: nothing at warn or above, only the three info traps, every check decided") {
  auto r = run_checks(facts_of("healthy"), {});
  std::multiset<Key> expected = {{Severity::kInfo, "pcie_speed_low_at_idle", "0000:9c:00.0"},
                                 {Severity::kInfo, "acs_unknown", "0000:00:01.1"},
                                 {Severity::kInfo, "pcie_aer_correctable", "0000:01:00.0"}};
  CHECK(keys(r) == expected);
  for (const auto& c : r.checks) {
    INFO(c.name);
    CHECK((c.status == CheckStatus::kPass));
  }
  CHECK(r.checks.size() == 10);
}

TEST_CASE("each injected fault is named, and nothing else") {
  std::multiset<Key> healthy = keys(run_checks(facts_of("healthy"), {}));
  const std::vector<std::pair<std::string, Key>> cases = {
      {"acs-redirect", {Severity::kError, "acs_redirect_enabled", "0000:17:01.0"}},
      {"aer-fatal", {Severity::kCritical, "pcie_aer_uncorrectable", "0000:1a:00.0"}},
      {"no-peermem", {Severity::kError, "gdr_unavailable", "host"}},
      {"port-200", {Severity::kWarn, "port_rate_below_peers", "mlx5_2/1"}},
      {"port-down", {Severity::kError, "port_down", "mlx5_3/1"}},
      {"mtu-1500", {Severity::kWarn, "roce_mtu_low", "mlx5_1/1"}},
      {"no-rocev2-gid", {Severity::kError, "rocev2_gid_missing", "mlx5_0/1"}},
      {"cnp-ignored", {Severity::kWarn, "ecn_not_enabled", "mlx5_0/1"}},
      {"pcie-x8", {Severity::kError, "pcie_width_downgraded", "0000:1b:00.0"}},
      {"iommu-translated", {Severity::kWarn, "iommu_translated", "host"}},
  };
  for (const auto& variant_case : cases) {
    const auto& [variant, fault] = variant_case;
    INFO("variant " << variant_case.first);  // clang 14 cannot capture a structured binding
    HostFacts facts = facts_of(variant);
    CHECK(facts.gaps.empty());
    auto got = keys(run_checks(facts, {}));
    std::multiset<Key> want = healthy;
    want.insert(fault);
    CHECK(got == want);
  }
}

TEST_CASE("the faults' messages say what a person needs") {
  auto acs = run_checks(facts_of("acs-redirect"), {});
  for (const auto& f : acs.findings)
    if (f.code == "acs_redirect_enabled") CHECK(f.message.find("above NIC0 (mlx5_0)") != std::string::npos);
  auto down = run_checks(facts_of("port-down"), {});
  for (const auto& f : down.findings)
    if (f.code == "port_down") {
      CHECK(f.message.find("netdev ens157np0") != std::string::npos);
      CHECK(f.evidence.back().value_text == "40 Gb/sec (4X QDR)");
      CHECK(f.evidence.back().threshold_text == "not a link speed while the port is not up");
    }
  auto rate = run_checks(facts_of("port-200"), {});
  for (const auto& f : rate.findings)
    if (f.code == "port_rate_below_peers") {
      CHECK(f.message.find("200 Gb/sec (2X NDR)") != std::string::npos);
      CHECK(f.message.find("3 of the 4 active MT4129 Ethernet ports (mlx5_0/1, mlx5_1/1, mlx5_3/1)") != std::string::npos);
    }
  // With the inventory given, the slow rail is an error against it instead of a peer warning.
  CheckRunOptions o;
  o.expect_rates = {RateExpectation{"MT4129", 400}, RateExpectation{"MT4125", 100}};
  auto inv = run_checks(facts_of("port-200"), o);
  int below_expected = 0;
  for (const auto& f : inv.findings) {
    CHECK(f.code != "port_rate_below_peers");
    below_expected += f.code == "port_rate_below_expected";
  }
  CHECK(below_expected == 1);
}

TEST_CASE("GID entries whose read fails count as empty, a tree without gid_attrs is 'unknown'") {
  testing::TempTree t;
  std::string p = "class/infiniband/mlx5_0/ports/1";
  t.file(p + "/state", "4: ACTIVE");
  t.file(p + "/phys_state", "5: LinkUp");
  t.file(p + "/rate", "400 Gb/sec (4X NDR)");
  t.file(p + "/link_layer", "Ethernet");
  t.file(p + "/gids/0", "fe80:0000:0000:0000:0000:0000:0000:0001");
  t.file(p + "/gid_attrs/types/0", "IB/RoCE v1");
  t.dir(p + "/gid_attrs/types/1");  // reading it fails (EISDIR), like an empty table entry (EINVAL)
  t.file(p + "/gids/1", "0000:0000:0000:0000:0000:ffff:c000:0201");
  t.file("class/infiniband/mlx5_1/ports/1/link_layer", "Ethernet");
  t.file("class/infiniband/mlx5_1/ports/1/state", "4: ACTIVE");
  HostFacts f = read_host_facts(FsRoot(t.root(), t.root() + "/proc"));
  REQUIRE(f.rdma_ports);
  REQUIRE(f.rdma_ports->size() == 2);
  REQUIRE((*f.rdma_ports)[0].rocev2_gids);
  CHECK((*f.rdma_ports)[0].rocev2_gids->empty());
  CHECK_FALSE((*f.rdma_ports)[1].rocev2_gids.has_value());
  auto r = run_checks(f, {});
  int missing = 0;
  for (const auto& x : r.findings) missing += x.code == "rocev2_gid_missing";
  CHECK(missing == 1);
}

TEST_CASE("an empty tree is 'not checked' everywhere, each check naming the path it looked for") {
  testing::TempTree t;
  HostFacts f = read_host_facts(FsRoot(t.root(), ""));
  CHECK(f.gaps.empty());  // nothing failed to read: there was nothing
  CHECK_FALSE(f.pcie_links.has_value());
  CHECK_FALSE(f.iommu.has_value());
  CHECK_FALSE(f.rdma_ports.has_value());
  auto r = run_checks(f, {});
  CHECK(r.findings.empty());
  REQUIRE(r.checks.size() == 10);
  for (const auto& c : r.checks) {
    CHECK_MESSAGE(c.status == CheckStatus::kNotChecked, c.name << ": " << to_string(c.status) << " " << c.summary);
    const std::string looked_for = c.name == "iommu" ? "/class/iommu does not exist"
                                   : c.name.rfind("port_", 0) == 0 || c.name.rfind("roce_", 0) == 0 || c.name == "ecn"
                                       ? "/class/infiniband does not exist"
                                       : "/bus/pci/devices does not exist";
    CHECK_MESSAGE(c.summary.find(t.root() + looked_for) != std::string::npos, c.name << ": " << c.summary);
  }
  CHECK(status_summary(r.checks) == "10 checks: 0 pass, 0 problems, 0 unknown, 0 n/a, 10 not checked");
}

TEST_CASE("class/iommu present but empty is evidence (no IOMMU): judged, not 'not checked'") {
  testing::TempTree t;
  t.dir("class/iommu");
  HostFacts f = read_host_facts(FsRoot(t.root(), ""));
  REQUIRE(f.iommu.has_value());
  CHECK(f.not_read.count("iommu") == 0);
}

namespace {

// A copy of the healthy check fixture in `t` with the files named in `names` removed from every
// directory `where` accepts (given the directory); returns the number of files removed.
template <typename Where>
int healthy_without(const testing::TempTree& t, std::set<std::string> names, Where where) {
  namespace fs = std::filesystem;
  fs::copy(kCheck + "healthy/sys", t.path(), fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  std::vector<fs::path> doomed;
  for (auto it = fs::recursive_directory_iterator(t.path()); it != fs::recursive_directory_iterator(); ++it)
    if (it->is_regular_file() && !it->is_symlink() && names.count(it->path().filename().string()) &&
        where(it->path().parent_path()))
      doomed.push_back(it->path());
  for (const auto& p : doomed) fs::remove(p);
  return static_cast<int>(doomed.size());
}

const CheckResult& check_named(const CheckReport& r, const std::string& name) {
  auto it = std::find_if(r.checks.begin(), r.checks.end(), [&](const CheckResult& c) { return c.name == name; });
  REQUIRE(it != r.checks.end());
  return *it;
}

size_t gaps_naming(const HostFacts& f, const std::string& file) {
  return static_cast<size_t>(std::count_if(f.gaps.begin(), f.gaps.end(), [&](const Error& e) {
    return e.source.size() > file.size() && e.source.compare(e.source.size() - file.size(), file.size(), file) == 0;
  }));
}

}  // namespace

TEST_CASE("RDMA ports whose state and rate could not be read are 'not checked', never 'pass'") {
  testing::TempTree t("unread-ports");
  auto in_ports = [](const std::filesystem::path& dir) { return dir.string().find("/ports/") != std::string::npos; };
  REQUIRE(healthy_without(t, {"state", "rate", "phys_state"}, in_ports) == 15);  // 5 ports
  HostFacts f = read_host_facts(FsRoot(t.root(), ""));
  REQUIRE(f.rdma_ports);
  REQUIRE(f.rdma_ports->size() == 5);
  CHECK(gaps_naming(f, "/state") == 5);
  CHECK(gaps_naming(f, "/phys_state") == 5);
  CHECK(gaps_naming(f, "/rate") == 5);
  auto r = run_checks(f, {});
  for (const char* name : {"port_state", "port_rate"}) {
    const CheckResult& c = check_named(r, name);
    CHECK_MESSAGE(c.status == CheckStatus::kNotChecked, name << ": " << to_string(c.status) << " " << c.summary);
    CHECK_MESSAGE(c.summary.find(t.root() + "/class/infiniband/mlx5_") != std::string::npos, c.summary);
    CHECK_MESSAGE(c.summary.find("and 1 more") != std::string::npos, c.summary);
  }
  CHECK(check_named(r, "port_state").summary.find("/ports/1/state") != std::string::npos);
  CHECK(check_named(r, "port_rate").summary.find("/ports/1/rate") != std::string::npos);
}

TEST_CASE("one RDMA port without state or rate makes the port checks 'unknown', naming its files") {
  testing::TempTree t("unread-port");
  auto mlx5_2 = [](const std::filesystem::path& dir) { return dir.string().find("mlx5_2/ports/1") != std::string::npos; };
  REQUIRE(healthy_without(t, {"state", "rate"}, mlx5_2) == 2);
  HostFacts f = read_host_facts(FsRoot(t.root(), ""));
  CHECK(f.gaps.size() == 2);
  auto r = run_checks(f, {});
  const CheckResult& state = check_named(r, "port_state");
  CHECK(state.status == CheckStatus::kUnknown);
  CHECK_MESSAGE(state.summary.find("could not be read: " + t.root() + "/class/infiniband/mlx5_2/ports/1/state") !=
                    std::string::npos,
                state.summary);
  CHECK(check_named(r, "port_rate").status == CheckStatus::kUnknown);
}

TEST_CASE("GPUs and NICs without PCIe link files are unread links, not virtual devices") {
  testing::TempTree t("unread-links");
  auto gpu_or_nic = [](const std::filesystem::path& dir) {
    std::ifstream in(dir / "class");
    std::string cls;
    in >> cls;
    return cls.rfind("0x0302", 0) == 0 || cls.rfind("0x0300", 0) == 0 || cls.rfind("0x0200", 0) == 0 ||
           cls.rfind("0x0207", 0) == 0;
  };
  REQUIRE(healthy_without(t, {"current_link_width", "current_link_speed", "max_link_width", "max_link_speed"},
                          gpu_or_nic) == 36);  // 4 GPUs and 5 NICs
  HostFacts f = read_host_facts(FsRoot(t.root(), ""));
  CHECK(gaps_naming(f, "/current_link_width") == 9);
  CHECK(gaps_naming(f, "/current_link_speed") == 9);
  auto r = run_checks(f, {});
  const CheckResult& c = check_named(r, "pcie_link");
  CHECK_MESSAGE(c.status == CheckStatus::kUnknown, to_string(c.status) << " " << c.summary);  // the 2 uplinks are judged
  CHECK_MESSAGE(c.summary.find("2 links of GPUs") == 0, c.summary);
  CHECK_MESSAGE(c.summary.find(t.root() + "/bus/pci/devices/0000:") != std::string::npos, c.summary);
  CHECK(c.summary.find("virtual") == std::string::npos);
}
