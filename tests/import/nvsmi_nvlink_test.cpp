// nvidia-smi nvlink -s / -e: case 037 (GPU 6 all links inactive next to GPU 7 at 12 x 25 GB/s)
// and made-up variants (V100 with links down, GB200 healthy, H100 slow link, -e counters, GB300
// without UUID, a lone PCIe card, a cut last line, another tool's output refused).
#include <doctest/doctest.h>

#include "import/format_detect.h"
#include "import/nvsmi_nvlink.h"
#include "tests/support/import_test_util.h"

using namespace fabdiag;
using namespace fabdiag::testing;

namespace {

constexpr const char* kCase037 = "tests/fixtures/cases/037-nvidia-smi-nvlink-s-a100-gpu6-all-links-inactive.input.txt";

NvsmiNvlinkImport read(const std::string& rel) {
  auto imp = import_nvsmi_nvlink(repo_text(rel), rel);
  REQUIRE(imp.ok());
  return *imp;
}

std::vector<const Finding*> warn_or_worse(const std::vector<Finding>& fs, const std::string& subject = "") {
  std::vector<const Finding*> out;
  for (const auto& f : fs)
    if (f.severity >= Severity::kWarn && (subject.empty() || f.subject == subject)) out.push_back(&f);
  return out;
}

}  // namespace

TEST_CASE("nvidia-smi nvlink -s case 037: GPU 6 has every link inactive (error), GPU 7 passes") {
  auto imp = read(kCase037);
  REQUIRE(imp.gpus.size() == 2);
  const auto& g6 = imp.gpus[0];
  const auto& g7 = imp.gpus[1];
  CHECK(g6.index == 6);
  CHECK(g6.name == "NVIDIA A100-SXM4-80GB");
  CHECK(g6.all_inactive);
  CHECK(g6.active_links() == 0);
  CHECK(g7.index == 7);
  CHECK(g7.uuid == "GPU-00000000-0000-0000-0000-000000000007");
  CHECK(g7.links.size() == 12);
  CHECK(g7.active_links() == 12);
  CHECK(g7.links[11].speed_bytes_per_s == doctest::Approx(25e9));
  CHECK(g7.total_bytes_per_s() == doctest::Approx(300e9));
  CHECK(imp.gaps.empty());

  auto fs = nvsmi_nvlink_findings(imp);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].severity == Severity::kError);
  CHECK(fs[0].code == "nvlink_all_inactive");
  CHECK(fs[0].subject == "GPU 6");
  CHECK(fs[0].message.find("NVIDIA A100-SXM4-80GB") != std::string::npos);
  CHECK(fs[0].message.find("GPU 7 (12 links, 300 GB/s)") != std::string::npos);
  // must not: a warn-or-worse finding on GPU 7.
  CHECK(warn_or_worse(fs, "GPU 7").empty());

  auto data = nvsmi_nvlink_data(imp);
  CHECK(data["gpus"].size() == 2);
  CHECK(data["gpus"][0]["links_active"] == 0);
  CHECK(data["gpus"][0]["all_links_inactive"] == true);
  CHECK(data["gpus"][1]["links_listed"] == 12);
  CHECK(data["gpus"][1]["link_speed_bytes_per_s"].get<double>() == doctest::Approx(25e9));
  CHECK(data["gpus"][1]["total_bytes_per_s"].get<double>() == doctest::Approx(300e9));
}

TEST_CASE("nvidia-smi nvlink -s: V100 with links 3 and 5 inactive is an error on that GPU only") {
  auto imp = read("tests/fixtures/gpu/nvlink-s-v100-two-links-inactive.txt");
  REQUIRE(imp.gpus.size() == 2);
  CHECK(imp.gpus[1].index == 3);
  CHECK(imp.gpus[1].active_links() == 4);
  CHECK(imp.gpus[1].links[3].state == "<inactive>");
  CHECK(imp.gpus[0].links[0].speed_bytes_per_s == doctest::Approx(25.781e9));
  auto fs = nvsmi_nvlink_findings(imp);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].code == "nvlink_links_inactive");
  CHECK(fs[0].severity == Severity::kError);
  CHECK(fs[0].subject == "GPU 3");
  REQUIRE(fs[0].evidence.size() == 2);
  CHECK(fs[0].evidence[0].metric == "link 3");
  CHECK(fs[0].evidence[1].metric == "link 5");
  CHECK(warn_or_worse(fs, "GPU 0").empty());
}

TEST_CASE("nvidia-smi nvlink -s: healthy GB200 (newer driver, 53.125 GB/s x 18) has no finding") {
  auto imp = read("tests/fixtures/gpu/nvlink-s-gb200-healthy.txt");
  REQUIRE(imp.gpus.size() == 2);
  CHECK(imp.gpus[0].active_links() == 18);
  CHECK(imp.gpus[0].total_bytes_per_s() == doctest::Approx(18 * 53.125e9));
  CHECK(nvsmi_nvlink_findings(imp).empty());
}

TEST_CASE("nvidia-smi nvlink: one slow link warns, -e counters warn with link and count") {
  auto slow = nvsmi_nvlink_findings(read("tests/fixtures/gpu/nvlink-s-h100-one-slow-link.txt"));
  REQUIRE(slow.size() == 1);
  CHECK(slow[0].code == "nvlink_speed_low");
  CHECK(slow[0].severity == Severity::kWarn);
  CHECK(slow[0].evidence[0].metric == "link 1 speed");
  CHECK(*slow[0].evidence[0].value == doctest::Approx(13.281e9));

  auto imp = read("tests/fixtures/gpu/nvlink-s-and-e-h100-link1-errors.txt");
  REQUIRE(imp.gpus.size() == 1);  // -s and -e of the same GPU merged
  CHECK(imp.status_read);
  CHECK(imp.errors_read);
  CHECK(imp.gpus[0].links[1].errors.at("replay_errors") == 12);
  CHECK(imp.gpus[0].links[1].errors.at("crc_errors") == 3);
  auto fs = nvsmi_nvlink_findings(imp);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].code == "nvlink_error_counters");
  CHECK(fs[0].severity == Severity::kWarn);
  CHECK(fs[0].message.find("16 NVLink errors") != std::string::npos);
  CHECK(fs[0].message.find("link(s) 1 ") != std::string::npos);
}

TEST_CASE("nvidia-smi nvlink -e: GB300 without UUID, all zero: read, no finding, status unknown") {
  auto imp = read("tests/fixtures/gpu/nvlink-e-gb300-no-uuid-clean.txt");
  REQUIRE(imp.gpus.size() == 1);
  CHECK(imp.gpus[0].name == "NVIDIA GB300");
  CHECK(imp.gpus[0].uuid.empty());
  CHECK_FALSE(imp.gpus[0].status_known());
  CHECK(nvsmi_nvlink_findings(imp).empty());
  CHECK(nvsmi_nvlink_data(imp)["gpus"][0]["all_links_inactive"] == false);
}

TEST_CASE("nvidia-smi nvlink -s: a lone PCIe card without links is info, not a fault") {
  auto fs = nvsmi_nvlink_findings(read("tests/fixtures/gpu/nvlink-s-a100-pcie-lone.txt"));
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].code == "nvlink_all_inactive");
  CHECK(fs[0].severity == Severity::kInfo);
}

TEST_CASE("nvidia-smi nvlink -s: a cut last line is a gap, not a slow link") {
  auto imp = read("tests/fixtures/gpu/nvlink-s-cut-last-line.txt");
  REQUIRE(imp.gaps.size() == 1);
  CHECK(imp.gaps[0].source == "tests/fixtures/gpu/nvlink-s-cut-last-line.txt:4");
  CHECK(imp.gaps[0].message.find("NOT READ: \"Link 2: 13.28\"") != std::string::npos);
  CHECK(imp.gpus[0].links.size() == 2);
  CHECK(nvsmi_nvlink_findings(imp).empty());
}

TEST_CASE("nvidia-smi nvlink: detected by its link lines, other text refused naming the line") {
  CHECK(detect_tool_in_text(repo_text(kCase037)).tool == ToolText::kNvsmiNvlink);
  CHECK(detect_tool_in_text(repo_text("tests/fixtures/gpu/nvlink-s-and-e-h100-link1-errors.txt")).tool ==
        ToolText::kNvsmiNvlink);
  auto ibstat = import_nvsmi_nvlink(repo_text("tests/fixtures/cases/013-ibstat-cx7-two-ports-down.input.txt"), "ib.txt");
  REQUIRE_FALSE(ibstat.ok());
  CHECK(ibstat.error().code == ErrorCode::kParse);
  CHECK(ibstat.error().source == "ib.txt:1");
  CHECK(ibstat.error().message.find("expected `nvidia-smi nvlink -s` or `-e` output") == 0);
  auto gpus_only = import_nvsmi_nvlink("GPU 0: NVIDIA H100 (UUID: GPU-1)\n", "l.txt");
  CHECK_FALSE(gpus_only.ok());  // `nvidia-smi -L` is not nvlink output
  CHECK_FALSE(import_nvsmi_nvlink("", "e.txt").ok());
}

TEST_CASE("nvidia-smi nvlink: link lines before any GPU header are one gap, not a GPU") {
  auto imp = import_nvsmi_nvlink("\t Link 0: 25 GB/s\n\t Link 1: 25 GB/s\nGPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-0)\n"
                                 "\t Link 0: 25 GB/s\n",
                                 "p.txt");
  REQUIRE(imp.ok());
  REQUIRE(imp->gpus.size() == 1);
  CHECK(imp->gpus[0].links.size() == 1);
  REQUIRE(imp->gaps.size() == 1);
  CHECK(imp->gaps[0].source == "p.txt:1");
  CHECK(imp->gaps[0].message.find("2 link line(s) before any \"GPU N:\" line") == 0);
}
