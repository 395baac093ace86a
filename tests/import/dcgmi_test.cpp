// dcgmi nvlink --link-status and dcgmi diag: case 038 (18/18 links Down on both GPUs while the
// cut diag -r 2 passes) and made-up variants (healthy 8 GPUs + complete diag -r 3 of DCGM 3.0,
// a wrapped failure per GPU, NvSwitch links down and disabled, other text refused).
#include <doctest/doctest.h>

#include "import/dcgmi.h"
#include "import/format_detect.h"
#include "tests/support/import_test_util.h"

using namespace fabdiag;
using namespace fabdiag::testing;

namespace {

constexpr const char* kCase038 = "tests/fixtures/cases/038-dcgmi-nvlink-all-down-while-dcgmi-diag-r2-passes.input.txt";

DcgmiImport read(const std::string& rel) {
  auto imp = import_dcgmi(repo_text(rel), rel);
  REQUIRE(imp.ok());
  return *imp;
}

}  // namespace

TEST_CASE("dcgmi case 038: all 18 NVLinks down on both GPUs is an error the passing diag does not clear") {
  auto imp = read(kCase038);
  REQUIRE(imp.gpus.size() == 2);
  CHECK(imp.gpus[0].states.size() == 18);
  CHECK(imp.gpus[0].count('D') == 18);
  CHECK(imp.gpus[1].count('D') == 18);
  CHECK(imp.gpus[1].count('U') == 0);
  CHECK(imp.nvswitches.empty());
  CHECK(imp.no_nvswitches);
  CHECK(imp.metadata.at("DCGM Version") == "3.3.7");
  CHECK(imp.metadata.at("Driver Version Detected") == "560.35.03");
  CHECK(imp.metadata.at("GPU Device IDs Detected") == "2321,2321");
  REQUIRE(imp.tests.size() == 2);
  CHECK(imp.tests[0].name == "Denylist");
  CHECK(imp.tests[0].status() == "Pass");
  CHECK(imp.tests[1].name == "NVML Library");
  CHECK(imp.tests[1].cut);  // the table stops in this row: unknown, not passed
  CHECK_FALSE(imp.diag_complete);
  REQUIRE(imp.gaps.size() == 1);
  CHECK(imp.gaps[0].source == std::string(kCase038) + ":25");

  auto fs = dcgmi_findings(imp);
  REQUIRE(fs.size() == 2);
  for (int i = 0; i < 2; ++i) {
    CHECK(fs[i].code == "dcgm_nvlink_down");
    CHECK(fs[i].severity == Severity::kError);
    CHECK(fs[i].subject == "GPU " + std::to_string(i));
    CHECK(fs[i].message.find("18 of 18 NVLinks Down") != std::string::npos);
    CHECK(fs[i].message.find("does not clear") != std::string::npos);
  }
  // must not: a warn-or-worse finding on an NvSwitch.
  for (const auto& f : fs) CHECK(f.subject.find("NvSwitch") == std::string::npos);

  auto data = dcgmi_data(imp);
  CHECK(data["link_status"]["links_up"] == 0);
  CHECK(data["link_status"]["links_down"] == 36);
  CHECK(data["link_status"]["nvswitches"].empty());
  CHECK(data["diag"]["tests"][1]["status"] == "unknown");
  CHECK(data["diag"]["complete"] == false);
}

TEST_CASE("dcgmi healthy: 8 GPUs all Up, complete diag -r 3 without Metadata: only the skip is noted") {
  auto imp = read("tests/fixtures/gpu/dcgmi-healthy-8gpu-diag-r3.txt");
  CHECK(imp.gpus.size() == 8);
  CHECK(imp.gpus[7].count('U') == 18);
  CHECK(imp.diag_complete);
  CHECK(imp.gaps.empty());
  CHECK(imp.metadata.empty());
  REQUIRE(imp.tests.size() == 14);
  CHECK(imp.tests[9].category == "Integration");
  CHECK(imp.tests[9].results[0].all);
  auto fs = dcgmi_findings(imp);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].code == "dcgm_diag_skipped");
  CHECK(fs[0].severity == Severity::kInfo);
  CHECK(fs[0].message.find("Targeted Power") != std::string::npos);
}

TEST_CASE("dcgmi diag: per-GPU results and a hard-wrapped warning, Fail names GPU 0, not GPU 1") {
  auto imp = read("tests/fixtures/gpu/dcgmi-diag-r3-gpu0-fails-wrapped.txt");
  CHECK(imp.diag_complete);
  REQUIRE(imp.tests.size() == 4);
  const auto& mem = imp.tests[2];
  CHECK(mem.name == "GPU Memory");
  REQUIRE(mem.results.size() == 2);
  CHECK(mem.results[0].status == "Pass");
  CHECK(mem.results[0].gpus == std::vector<int>{1});
  CHECK(mem.results[1].gpus == std::vector<int>{0});
  CHECK(mem.status() == "Fail");
  REQUIRE(mem.warnings.size() == 1);
  CHECK(mem.warnings[0] ==
        "GPU 0 Error using CUDA API cuCtxCreate Check DCGM and system logs for errors. Reset GPU. Restart DCGM. "
        "Rerun diagnostics. Unable to create CUDA context: 'CUDA-capable device(s) is/are busy or unavailable'.");
  CHECK(mem.info == std::vector<std::string>{"GPU 1 Allocated 15568304202 bytes (98.3%)"});
  auto fs = dcgmi_findings(imp);
  REQUIRE(fs.size() == 2);
  CHECK(fs[0].code == "dcgm_diag_fail");
  CHECK(fs[0].severity == Severity::kError);
  CHECK(fs[0].subject == "GPU 0");
  CHECK(fs[1].code == "dcgm_diag_warn");
  CHECK(fs[1].subject == "GPU 1");
}

TEST_CASE("dcgmi nvlink: NvSwitch links down are an error on the switch, disabled links are info") {
  auto imp = read("tests/fixtures/gpu/dcgmi-nvlink-nvswitch-links-down.txt");
  REQUIRE(imp.nvswitches.size() == 1);
  CHECK(imp.nvswitches[0].id == 8);
  CHECK(imp.nvswitches[0].states == "UUUUDUUU__XX");
  auto fs = dcgmi_findings(imp);
  REQUIRE(fs.size() == 3);
  CHECK(fs[0].subject == "GPU 1");
  CHECK(fs[0].message.find("down: links 10, 11") != std::string::npos);
  CHECK(fs[1].code == "dcgm_nvswitch_links_down");
  CHECK(fs[1].severity == Severity::kError);
  CHECK(fs[2].code == "dcgm_nvlink_disabled");
  CHECK(fs[2].severity == Severity::kInfo);
  CHECK_FALSE(imp.diag_read);
}

TEST_CASE("dcgmi: detected by its titles, other text refused naming the line") {
  CHECK(detect_tool_in_text(repo_text(kCase038)).tool == ToolText::kDcgmi);
  CHECK(detect_tool_in_text(repo_text("tests/fixtures/gpu/dcgmi-diag-r3-gpu0-fails-wrapped.txt")).tool == ToolText::kDcgmi);
  auto other = import_dcgmi(repo_text("tests/fixtures/cases/037-nvidia-smi-nvlink-s-a100-gpu6-all-links-inactive.input.txt"),
                            "n.txt");
  REQUIRE_FALSE(other.ok());
  CHECK(other.error().code == ErrorCode::kParse);
  CHECK(other.error().source == "n.txt:2");
  CHECK(other.error().message.find("expected dcgmi output") == 0);
  // A box that is not a diag table (no header, no category) is not read as one.
  auto box = import_dcgmi("+----+\n| hi |\n+----+\n", "b.txt");
  CHECK_FALSE(box.ok());
}
