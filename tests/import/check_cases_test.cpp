// The expected conclusions and the "must not" lines of ../shared/cases 008, 013, 015, 019 and
// 021 (inputs copied into tests/fixtures/cases/ and tests/fixtures/case019/), through the same
// path as `fabdiag check --from` / `--sysfs-root`: import, merge, run_checks.
#include <doctest/doctest.h>

#include <regex>

#include "core/atomic_file.h"
#include "rules/check_run.h"
#include "collect/check_sysfs.h"
#include "import/host_formats.h"

using namespace fabdiag;

namespace {

const std::string kFixtures = std::string(FABDIAG_SOURCE_DIR) + "/tests/fixtures/";

CheckReport check_file(const std::string& name, HostFacts* facts_out = nullptr) {
  auto text = read_file(kFixtures + "cases/" + name);
  REQUIRE(text.ok());
  auto facts = import_host_facts(*text, name, InputFormat::kAuto);
  REQUIRE(facts.ok());
  CHECK(facts->gaps.empty());
  if (facts_out) *facts_out = *facts;
  return run_checks(*facts, {});
}

std::vector<const Finding*> at_least(const CheckReport& r, Severity s) {
  std::vector<const Finding*> out;
  for (const auto& f : r.findings)
    if (f.severity >= s) out.push_back(&f);
  return out;
}

std::string all_text(const Finding& f) {
  std::string t = f.subject + " " + f.message + " " + f.action;
  for (const auto& e : f.evidence) t += " " + e.metric + " " + e.value_text + " " + e.threshold_text;
  return t;
}

const CheckResult& check_named(const CheckReport& r, const std::string& name) {
  for (const auto& c : r.checks)
    if (c.name == name) return c;
  FAIL("no check named " << name);
  return r.checks.front();
}

}  // namespace

TEST_CASE("case 008: ACS redirect on 5 of 11 ports (error L4), matching NCCL error 4, no address named") {
  auto r = check_file("008-lspci-acsctl-redirect-enabled.input.txt");
  auto bad = at_least(r, Severity::kWarn);
  REQUIRE(bad.size() == 2);
  const Finding& acs = *bad[0];
  CHECK(acs.code == "acs_redirect_enabled");
  CHECK(acs.severity == Severity::kError);
  CHECK(acs.layer == Layer::kPhysical);
  CHECK(acs.message.find("5 of 11") != std::string::npos);
  // must not: count the 2 SrcValid+-only ports as redirect-enabled
  CHECK(acs.message.find("2 more have other ACS bits only, such as SrcValid, which do not redirect") != std::string::npos);
  // the tool must say it cannot tell which of the 5 ports sit between a GPU and a NIC
  CHECK(acs.message.find("cannot tell which of these ports sit between a GPU and a NIC") != std::string::npos);
  // must not: conclude "ACS disabled" / stop at the first line: all five redirecting lines are evidence
  int redirect_lines = 0;
  for (const auto& e : acs.evidence) redirect_lines += e.value_text.find("ReqRedir+") != std::string::npos;
  CHECK(redirect_lines == 5);
  CHECK(check_named(r, "acs").status == CheckStatus::kProblems);
  CHECK(check_named(r, "acs").summary == "11 ports: 6 redirect off, 5 redirect on");
  // must not: name bus/device/function numbers (none are present)
  std::regex bdf("[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\\.[0-7]");
  for (const auto& f : r.findings) CHECK_FALSE(std::regex_search(all_text(f), bdf));
  // the completion error: 4 = local protection, not packet loss or a retry timeout (status 12)
  const Finding& wc = *bad[1];
  CHECK(wc.code == "rdma_completion_error");
  CHECK(wc.message.find("status 4 (IBV_WC_LOC_PROT_ERR)") != std::string::npos);
  CHECK(wc.message.find("not packet loss or a retry timeout") != std::string::npos);
  CHECK(wc.message.find("vendor err 81") != std::string::npos);
  CHECK(wc.message.find("RETRY_EXC") == std::string::npos);
  CHECK(acs.message.find("completion error 4 (local protection)") != std::string::npos);
}

TEST_CASE("case 013: 2 of 8 ConnectX-7 rails down (mlx5_11 Polling, mlx5_5 Disabled) and nothing else") {
  auto r = check_file("013-ibstat-cx7-two-ports-down.input.txt");
  auto bad = at_least(r, Severity::kWarn);
  REQUIRE(bad.size() == 2);
  CHECK(bad[0]->code == "port_down");
  CHECK(bad[0]->subject == "mlx5_11/1");
  CHECK(bad[0]->severity == Severity::kError);
  CHECK(bad[0]->layer == Layer::kPhysical);
  CHECK(bad[0]->message.find("Polling: no link partner seen") != std::string::npos);
  CHECK(bad[1]->code == "port_down");
  CHECK(bad[1]->subject == "mlx5_5/1");
  CHECK(bad[1]->message.find("Disabled") != std::string::npos);
  CHECK(r.findings.size() == 2);
  CHECK(check_named(r, "port_state").summary ==
        "12 ports, 10 up; MT4129 Ethernet 6 of 8 up, MT4125 Ethernet 4 of 4 up");
  for (const auto& f : r.findings) {
    std::string t = all_text(f);
    // must not: report "Rate: 40" as a 40 Gb/s degraded link
    CHECK(f.code.find("rate") == std::string::npos);
    CHECK(t.find("40 Gb") == std::string::npos);
    // must not: flag lid 0 / SM lid 0 (Ethernet link layer)
    CHECK(t.find("lid") == std::string::npos);
    CHECK(t.find("subnet manager") == std::string::npos);
    // must not: compare the 100G ConnectX-6 Dx ports with the 400G rails
    for (const char* cx6 : {"mlx5_1/", "mlx5_2/", "mlx5_7/", "mlx5_8/"}) CHECK(t.find(cx6) == std::string::npos);
  }
  for (const auto* f : bad) {
    bool rate_is_not_speed = false;
    for (const auto& e : f->evidence)
      if (e.metric == "rate") rate_is_not_speed = e.threshold_text == "not a link speed while the port is not up";
    CHECK(rate_is_not_speed);
  }
  CHECK(check_named(r, "port_rate").status == CheckStatus::kPass);
}

TEST_CASE("case 015: rate mismatch warn naming both readings and asking for the model, no lid finding") {
  auto r = check_file("015-ibstatus-roce-rate-mismatch.input.txt");
  REQUIRE(r.findings.size() == 1);
  const Finding& f = r.findings[0];
  CHECK(f.code == "port_rate_below_peers");
  CHECK(f.severity == Severity::kWarn);
  CHECK(f.layer == Layer::kPhysical);
  CHECK(f.subject == "mlx5_0/1");
  CHECK(f.message.find("200 Gb/sec (4X HDR)") != std::string::npos);
  CHECK(f.message.find("400 Gb/sec (4X NDR)") != std::string::npos);
  CHECK(f.message.find("look up the model (ibv_devinfo board_id, or lspci)") != std::string::npos);
  CHECK(f.action.find("ibv_devinfo -d mlx5_0") != std::string::npos);
  // must not: read "4X HDR" / "4X NDR" on Ethernet ports as IB lane widths
  CHECK(f.message.find("not a lane width") != std::string::npos);
  CHECK(f.message.find("lanes") == std::string::npos);
  // must not: assume the listing covers every port on the host
  CHECK(f.message.find("ports of unknown model listed") != std::string::npos);
  // must not: flag lid 0x0
  CHECK(all_text(f).find("lid") == std::string::npos);
  CHECK(check_named(r, "port_state").status == CheckStatus::kPass);
}

TEST_CASE("case 021: healthy control - no finding at all, the '(downgraded)' switch ports included") {
  auto r = check_file("021-lspci-h100-pex-switch-healthy.input.txt");
  CHECK(r.findings.empty());
  CHECK(check_named(r, "pcie_link").status == CheckStatus::kPass);
  CHECK(check_named(r, "pcie_link").summary.rfind("5 links", 0) == 0);
  CHECK(check_named(r, "acs").status == CheckStatus::kPass);
  CHECK(check_named(r, "acs").summary == "6 ports: 6 redirect off");
  CHECK(check_named(r, "port_state").status == CheckStatus::kNotChecked);
}

TEST_CASE("case 019 (sysfs tree): '25 Gb/sec (1X EDR)' on MT4118 is no width fault, '4: ACTIVE' phys_state no fault") {
  FsRoot fs(kFixtures + "case019", kFixtures + "case019/no-procfs");
  HostFacts facts = read_host_facts(fs);
  REQUIRE(facts.rdma_ports);
  CHECK(facts.rdma_ports->size() == 4);
  const RdmaPortFacts* mlx5 = nullptr;
  for (const auto& p : *facts.rdma_ports)
    if (p.device == "mlx5_0/1") mlx5 = &p;
  REQUIRE(mlx5);
  CHECK(mlx5->model == "MT4118");
  CHECK(mlx5->rate == "25 Gb/sec (1X EDR)");
  CHECK(mlx5->phys_state == "4: ACTIVE");
  auto r = run_checks(facts, {});
  for (const auto& f : r.findings) {
    CHECK(f.code.find("port_") != 0);  // no port_down / port_rate_* / phys_state finding
    CHECK(f.subject != "mlx5_0/1");
  }
  CHECK(at_least(r, Severity::kWarn).empty());
  CHECK(check_named(r, "port_rate").status == CheckStatus::kPass);
  CHECK(check_named(r, "port_state").status == CheckStatus::kPass);
  // Even told to expect 100 Gb/s InfiniBand, the message says rate, never a 4X-to-1X width fault.
  CheckRunOptions o;
  o.expect_rates.push_back(RateExpectation{"MT4118", 100});
  auto with = run_checks(facts, o);
  bool found = false;
  for (const auto& f : with.findings)
    if (f.subject == "mlx5_0/1") {
      found = true;
      CHECK(f.code == "port_rate_below_expected");
      CHECK(f.message.find("instead of") == std::string::npos);
    }
  CHECK(found);
}
