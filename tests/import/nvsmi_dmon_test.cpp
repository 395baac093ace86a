// nvidia-smi dmon import: the -s pucvmet capture of mozilla/DeepSpeech#178 and a constructed
// -o DT capture of 8 GPUs (tests/fixtures/gpu/SOURCES-dmon.md).
#include <doctest/doctest.h>

#include "import/format_detect.h"
#include "import/nvsmi_dmon.h"
#include "tests/support/import_test_util.h"

using namespace fabdiag;
using namespace fabdiag::testing;

TEST_CASE("dmon -s pucvmet, 4 GPUs (older driver: one temp column, '-' for ECC)") {
  auto r = import_nvsmi_dmon(repo_text("tests/fixtures/gpu/dmon-pucvmet-4gpu-deepspeech.txt"), "d.txt");
  REQUIRE_MESSAGE(r, (r ? "" : r.error().message));
  CHECK(r->gaps.empty());
  CHECK(r->headers == 1);
  REQUIRE(r->gpus.size() == 4);
  CHECK(r->units.at("rxpci") == "MB/s");
  CHECK(r->units.at("tviol") == "bool");
  const auto& g1 = r->gpus[1];
  CHECK(g1.index == 1);
  CHECK(g1.series.at("pclk").max == doctest::Approx(1733));
  CHECK(g1.series.at("rxpci").mean() == doctest::Approx(25));
  CHECK(g1.series.at("sbecc").samples == 0);
  CHECK(g1.series.at("sbecc").gaps == 1);  // "-": not reported, not zero
  auto data = nvsmi_dmon_data(*r);
  CHECK(data["gpus"][1]["series"]["sbecc"]["mean"].is_null());
  CHECK(nvsmi_dmon_findings(*r).empty());  // 4 healthy GPUs: nothing stands apart
}

TEST_CASE("dmon -o DT, 8 GPUs, repeated header, cut: GPU 3 throttled and slow, GPU 5's PCIe low") {
  auto r = import_nvsmi_dmon(repo_text("tests/fixtures/gpu/dmon-dt-8gpu-h100-gpu3-throttled-constructed.txt"), "dt.txt");
  REQUIRE(r);
  CHECK(r->headers == 2);
  REQUIRE(r->gpus.size() == 8);
  REQUIRE(r->gaps.size() == 1);  // the cut last line
  CHECK(r->gaps[0].source == "dt.txt:28");
  CHECK(r->gpus[7].rows == 2);
  CHECK(r->gpus[0].first_time == "20261203 14:00:00");
  CHECK(r->gpus[0].last_time == "20261203 14:02:00");
  CHECK(r->gpus[6].series.at("mtemp").gaps == 3);
  auto fs = nvsmi_dmon_findings(*r);
  REQUIRE(fs.size() == 6);
  CHECK(fs[0].code == "dmon_thermal_violation");
  CHECK(fs[0].subject == "GPU 3");
  CHECK(fs[1].code == "dmon_gpu_stands_apart");
  CHECK(fs[1].subject == "GPU 3");
  CHECK(fs[1].evidence[0].metric == "pclk mean");
  CHECK(fs[1].evidence[0].threshold == doctest::Approx(0.75 * 1980));
  CHECK(fs[2].subject == "GPU 5");
  CHECK(fs[2].evidence[0].metric == "rxpci mean");
  CHECK(fs[3].evidence[0].metric == "txpci mean");
  CHECK(fs[4].evidence[0].metric == "gtemp mean");
  CHECK(fs[5].evidence[0].metric == "mtemp mean");
  for (const auto& f : fs) CHECK(f.subject != "GPU 0");  // must not: blame a healthy GPU
}

TEST_CASE("dmon: a header alone, rows without a header, detection") {
  CHECK_FALSE(import_nvsmi_dmon("# gpu   pwr  gtemp\n# Idx     W      C\n", "h.txt"));
  CHECK_FALSE(import_nvsmi_dmon("    0   111    83\n", "rows.txt"));
  CHECK(detect_tool_in_text(repo_text("tests/fixtures/gpu/dmon-pucvmet-4gpu-deepspeech.txt")).tool == ToolText::kNvsmiDmon);
  CHECK(detect_tool_in_text("#Date       Time        gpu    pwr  gtemp\n").tool == ToolText::kNvsmiDmon);
  CHECK(detect_tool_in_text("# gpu is fine\n").tool == ToolText::kUnknown);
}
