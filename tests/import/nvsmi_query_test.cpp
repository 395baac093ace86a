// nvidia-smi -q: an HGX H100 (driver 550, "Clocks Event Reasons", Fabric) with one GPU at x8,
// one with uncorrectable ECC and a pending row remap, one in HW thermal slowdown and an idle
// one at Gen1 whose fabric registration is in progress; a V100 `-i 0` (driver 418: "Clocks
// Throttle Reasons", Single/Double Bit ECC, a pending page retirement); a pdsh + grep fragment
// without GPU headers; a block cut in the middle; `-l` repeats; another tool refused.
#include <doctest/doctest.h>

#include <algorithm>

#include "import/format_detect.h"
#include "import/nvsmi_query.h"
#include "tests/support/import_test_util.h"

using namespace fabdiag;
using namespace fabdiag::testing;

namespace {

constexpr const char* kH100 = "tests/fixtures/gpu/nvsmi-q-hgx-h100-8gpu.txt";
constexpr const char* kV100 = "tests/fixtures/gpu/nvsmi-q-v100-i0-retired-pending.txt";
constexpr const char* kGrep = "tests/fixtures/gpu/nvsmi-q-grep-clocks-two-hosts.txt";

NvsmiQueryImport read(const std::string& rel) {
  auto imp = import_nvsmi_query(repo_text(rel), rel);
  REQUIRE_MESSAGE(imp.ok(), (imp.ok() ? std::string() : imp.error().to_string()));
  return *imp;
}

std::vector<const Finding*> with_code(const std::vector<Finding>& fs, const std::string& code) {
  std::vector<const Finding*> out;
  for (const auto& f : fs)
    if (f.code == code) out.push_back(&f);
  return out;
}

bool has(const std::string& s, const std::string& w) { return s.find(w) != std::string::npos; }

}  // namespace

TEST_CASE("nvidia-smi -q HGX H100: eight GPUs in NVML order with their PCIe, ECC, remap, clocks and fabric") {
  auto imp = read(kH100);
  CHECK(imp.driver_version == "550.54.15");
  CHECK(imp.cuda_version == "12.4");
  CHECK(imp.logs == 1);
  REQUIRE(imp.gpus.size() == 8);
  CHECK(imp.gaps.empty());
  const auto& g0 = imp.gpus[0];
  CHECK(g0.pci_bdf == "0000:18:00.0");
  CHECK(g0.bus_id == "00000000:18:00.0");
  CHECK(g0.index == 0);
  CHECK(g0.product_name.text == "NVIDIA H100 80GB HBM3");
  CHECK(g0.gen_max.number() == 5);
  CHECK(g0.width_current.number() == 16);
  CHECK(g0.clock_reasons_title == "Clocks Event Reasons");
  CHECK(g0.clock_reasons.at("HW Thermal Slowdown").text == "Not Active");
  CHECK(g0.fabric_state.text == "Completed");
  CHECK(g0.uncorrectable("volatile") == 0);
  CHECK(g0.ecc.at("aggregate_sram_sources").count("sram_l2") == 1);
  CHECK(imp.gpus[3].pci_bdf == "0000:5d:00.0");
  CHECK(imp.gpus[3].index == 3);
  CHECK(imp.gpus[3].width_current.number() == 8);
  CHECK(imp.gpus[5].uncorrectable("volatile") == 2);
  CHECK(imp.gpus[5].remap_pending.yes());
  CHECK(imp.gpus[7].gen_current.number() == 1);
  CHECK(imp.gpus[7].index == 7);

  auto fs = nvsmi_query_findings(imp);
  auto width = with_code(fs, "pcie_width_downgraded");
  REQUIRE(width.size() == 1);
  CHECK(width[0]->severity == Severity::kError);
  CHECK(width[0]->subject == "0000:5d:00.0");
  CHECK(has(width[0]->message, "GPU 3 (0000:5d:00.0, NVIDIA H100 80GB HBM3)"));
  CHECK(has(width[0]->message, "x8 of its x16"));
  CHECK(width[0]->evidence[0].source == std::string(kH100) + ":" + "726");

  auto ecc = with_code(fs, "gpu_ecc_uncorrectable");
  REQUIRE(ecc.size() == 1);
  CHECK(ecc[0]->severity == Severity::kError);
  CHECK(ecc[0]->subject == "0000:ab:00.0");
  CHECK(ecc[0]->evidence.size() == 2);  // volatile and aggregate DRAM Uncorrectable
  auto remap = with_code(fs, "gpu_row_remap_pending");
  REQUIRE(remap.size() == 1);
  CHECK(remap[0]->subject == "0000:ab:00.0");
  CHECK(with_code(fs, "gpu_row_remap_failure").empty());

  auto slow = with_code(fs, "gpu_clocks_slowdown");
  REQUIRE(slow.size() == 1);
  CHECK(slow[0]->subject == "0000:ba:00.0");
  CHECK(has(slow[0]->message, "HW Slowdown, HW Thermal Slowdown"));
  CHECK(has(slow[0]->message, "(temperature)"));
  REQUIRE(slow[0]->evidence.size() == 3);
  CHECK(slow[0]->evidence[2].value == doctest::Approx(88));

  // GPU 7: idle at Gen1 (info, the width is full) and not registered with the fabric (error).
  auto gen = with_code(fs, "pcie_speed_low_at_idle");
  REQUIRE(gen.size() == 1);
  CHECK(gen[0]->severity == Severity::kInfo);
  CHECK(gen[0]->subject == "0000:db:00.0");
  CHECK(has(gen[0]->message, "idle"));
  // GPU 6: Gen1 while busy (P0, Idle Not Active, in HW thermal slowdown): not power saving, a warn.
  auto busy_gen = with_code(fs, "pcie_speed_downgraded");
  REQUIRE(busy_gen.size() == 1);
  CHECK(busy_gen[0]->severity == Severity::kWarn);
  CHECK(busy_gen[0]->subject == "0000:ba:00.0");
  CHECK(has(busy_gen[0]->message, "PCIe Gen1, below the Gen5"));
  auto fabric = with_code(fs, "gpu_fabric_not_registered");
  REQUIRE(fabric.size() == 1);
  CHECK(fabric[0]->subject == "0000:db:00.0");
  CHECK(has(fabric[0]->message, "State In Progress"));
  // must not: findings on the healthy GPUs 0, 1, 2, 4.
  for (const auto& f : fs)
    for (const char* ok : {"0000:18:00.0", "0000:2a:00.0", "0000:3a:00.0", "0000:9a:00.0"}) CHECK(f.subject != ok);
  CHECK(fs.size() == 7);

  auto data = nvsmi_query_data(imp);
  CHECK(data["gpus"].size() == 8);
  CHECK(data["gpus"][3]["pcie"]["width_current"] == 8);
  CHECK(data["gpus"][5]["ecc"]["volatile"]["dram_uncorrectable"] == 2);
  CHECK(data["gpus"][6]["clock_reasons"]["active"].size() == 2);
  CHECK(data["gpus"][7]["fabric"]["state"] == "In Progress");
}

TEST_CASE("nvidia-smi -q V100 -i 0: Clocks Throttle Reasons, Single and Double Bit ECC, retirement pending") {
  auto imp = read(kV100);
  REQUIRE(imp.gpus.size() == 1);
  const auto& g = imp.gpus[0];
  CHECK_FALSE(g.index.has_value());  // one block of 4 attached GPUs: `-i 0`, the index is not known
  CHECK(g.pci_bdf == "0000:1a:00.0");
  CHECK(g.clock_reasons_title == "Clocks Throttle Reasons");
  CHECK(g.ecc_mode_current.text == "Enabled");
  CHECK(g.ecc.at("aggregate").at("single_bit/device_memory").number() == 14);
  CHECK(g.uncorrectable("volatile") == 0);
  CHECK(g.uncorrectable("aggregate") == 1);
  CHECK(g.retired_dbe.number() == 1);
  CHECK(g.retired_pending.yes());
  CHECK(imp.gaps.empty());  // the shell prompt line is not a gap

  auto fs = nvsmi_query_findings(imp);
  auto ecc = with_code(fs, "gpu_ecc_uncorrectable");
  REQUIRE(ecc.size() == 1);
  CHECK(ecc[0]->severity == Severity::kWarn);  // aggregate only: not since the driver loaded
  CHECK(has(ecc[0]->message, "GPU (0000:1a:00.0, Tesla V100-SXM2-32GB)"));
  CHECK(with_code(fs, "gpu_page_retirement_pending").size() == 1);
  // Gen1 of Gen3 while P0 but Idle Active: power saving, info.
  auto gen = with_code(fs, "pcie_speed_low_at_idle");
  REQUIRE(gen.size() == 1);
  CHECK(gen[0]->severity == Severity::kInfo);
  CHECK(with_code(fs, "pcie_width_downgraded").empty());
  CHECK(fs.size() == 3);
}

TEST_CASE("nvidia-smi -q grep fragment with pdsh prefixes: one headerless GPU per repeat, per host") {
  auto imp = read(kGrep);
  REQUIRE(imp.gpus.size() == 3);
  CHECK(imp.gpus[0].host == "gpu-node07");
  CHECK(imp.gpus[1].host == "gpu-node07");
  CHECK(imp.gpus[2].host == "gpu-node08");
  CHECK(imp.gpus[0].pci_bdf.empty());
  CHECK(imp.gpus[1].clock_reasons.at("HW Power Brake Slowdown").text == "Active");
  CHECK(imp.gpus[1].clock_reasons.at("Sync Boost").text == "Not Active");
  CHECK(imp.gaps.empty());
  auto fs = nvsmi_query_findings(imp);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].code == "gpu_clocks_slowdown");
  CHECK(fs[0].subject == "gpu-node07 GPU at line 12");
  CHECK(has(fs[0].message, "power brake"));
  CHECK(has(fs[0].message, "on gpu-node07"));
}

TEST_CASE("nvidia-smi -q cut inside the second GPU block: a gap naming the GPU and the sections not read") {
  std::string text = repo_text(kH100);
  size_t second = text.find("GPU 00000000:2A:00.0");
  size_t cut = text.find("    ECC Mode", second);
  REQUIRE(cut != std::string::npos);
  auto imp = import_nvsmi_query(text.substr(0, cut), "cut.txt");
  REQUIRE(imp.ok());
  REQUIRE(imp->gpus.size() == 2);
  REQUIRE(imp->gaps.size() == 1);
  CHECK(imp->gaps[0].source == "cut.txt:226");
  CHECK(has(imp->gaps[0].message, "ends after \"FBC Stats\""));
  CHECK(has(imp->gaps[0].message, "ECC Mode, ECC Errors"));
  CHECK_FALSE(imp->gpus[1].index.has_value());  // 2 of 8 attached GPUs listed

  // Cut in the middle of a line: that line is a gap too.
  auto mid = import_nvsmi_query(text.substr(0, cut + 8), "cut.txt");
  REQUIRE(mid.ok());
  CHECK(mid->gaps.size() == 2);
}

TEST_CASE("nvidia-smi -q -l: the same GPUs again are samples of them, the last values win") {
  std::string one = "GPU 00000000:18:00.0\n    Performance State : P0\n    PCI\n        GPU Link Info\n"
                    "            Link Width\n                Max : 16x\n                Current : 16x\n";
  std::string two = one;
  two.replace(two.find("Current : 16x"), 13, "Current : 4x");
  std::string text = "==============NVSMI LOG==============\nAttached GPUs : 1\n" + one +
                     "\n==============NVSMI LOG==============\nAttached GPUs : 1\n" + two;
  auto imp = import_nvsmi_query(text, "loop.txt");
  REQUIRE(imp.ok());
  REQUIRE(imp->gpus.size() == 1);
  CHECK(imp->gpus[0].samples == 2);
  CHECK(imp->gpus[0].index == 0);
  CHECK(imp->gpus[0].width_current.number() == 4);
  CHECK(imp->logs == 2);
  auto fs = nvsmi_query_findings(*imp);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].code == "pcie_width_downgraded");
  CHECK(fs[0].evidence[0].source == "loop.txt:19");
}

TEST_CASE("nvidia-smi -q busy GPU below its generation, remap failure, reset required, degraded fabric") {
  std::string text =
      "GPU 00000001:03:00.0\n"
      "    Product Name                          : NVIDIA GB200\n"
      "    GPU Reset Status\n"
      "        Reset Required                    : Yes\n"
      "        Drain and Reset Recommended       : No\n"
      "    PCI\n"
      "        GPU Link Info\n"
      "            PCIe Generation\n"
      "                Max                       : 5\n"
      "                Current                   : 3\n"
      "                Device Current            : 3\n"
      "                Device Max                : 5\n"
      "                Host Max                  : 5\n"
      "    Performance State                     : P0\n"
      "    Clocks Event Reasons\n"
      "        Idle                              : Not Active\n"
      "    Remapped Rows\n"
      "        Correctable Error                 : 0\n"
      "        Uncorrectable Error               : 512\n"
      "        Pending                           : No\n"
      "        Remapping Failure Occurred        : Yes\n"
      "    Fabric\n"
      "        State                             : Completed\n"
      "        Status                            : Success\n"
      "        CliqueId                          : 32766\n"
      "        Health\n"
      "            Bandwidth                     : Degraded\n";
  auto imp = import_nvsmi_query(text, "gb200.txt");
  REQUIRE(imp.ok());
  REQUIRE(imp->gpus.size() == 1);
  CHECK(imp->gpus[0].pci_bdf == "0001:03:00.0");
  auto fs = nvsmi_query_findings(*imp);
  std::vector<std::string> codes;
  for (const auto& f : fs) codes.push_back(f.code);
  CHECK(codes == std::vector<std::string>{"pcie_speed_downgraded", "gpu_row_remap_failure", "gpu_fabric_degraded",
                                          "gpu_reset_required"});
  CHECK(fs[0].severity == Severity::kWarn);
  CHECK(fs[1].severity == Severity::kError);
  CHECK(fs[2].evidence[0].value_text == "Degraded");
}

TEST_CASE("nvidia-smi -q is detected by its markers, the text of other tools is refused naming the first line") {
  CHECK(detect_tool_in_text(repo_text(kH100)).tool == ToolText::kNvsmiQuery);
  CHECK(detect_tool_in_text(repo_text(kV100)).tool == ToolText::kNvsmiQuery);
  CHECK(detect_tool_in_text(repo_text(kGrep)).tool == ToolText::kNvsmiQuery);
  CHECK(is_nvsmi_query_marker("GPU 00000000:18:00.0"));
  CHECK_FALSE(is_nvsmi_query_marker("GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-1)"));
  CHECK_FALSE(is_nvsmi_query_marker("GPU 00000000:18:00.0 extra"));

  auto other = import_nvsmi_query(repo_text("tests/fixtures/cases/013-ibstat-cx7-two-ports-down.input.txt"), "ibstat.txt");
  REQUIRE_FALSE(other.ok());
  CHECK(other.error().code == ErrorCode::kParse);
  CHECK(has(other.error().to_string(), "ibstat.txt:1"));
  CHECK(has(other.error().to_string(), "nvidia-smi -q"));
  auto nvlink = import_nvsmi_query(
      repo_text("tests/fixtures/cases/037-nvidia-smi-nvlink-s-a100-gpu6-all-links-inactive.input.txt"), "nvlink.txt");
  CHECK_FALSE(nvlink.ok());
  CHECK_FALSE(import_nvsmi_query(std::string("x\0y", 3), "bin").ok());
  CHECK_FALSE(import_nvsmi_query("", "empty").ok());
}

TEST_CASE("nvidia-smi -q: a count or width that is not a whole number is a gap naming its line, never 0 or a prefix") {
  std::string text = repo_text(kH100);
  auto replace_first = [&](const std::string& from, const std::string& to) {
    auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
  };
  replace_first("Current                   : 16x", "Current                   : 4e1x");
  replace_first("DRAM Uncorrectable            : 0", "DRAM Uncorrectable            : 1e30");
  auto imp = import_nvsmi_query(text, "q.txt");
  REQUIRE(imp.ok());
  const NvsmiQueryGpu& g0 = imp->gpus.at(0);
  CHECK_FALSE(g0.width_current.number().has_value());
  CHECK_FALSE(g0.uncorrectable("volatile").has_value());
  std::vector<std::string> gaps;
  for (const auto& e : imp->gaps) gaps.push_back(e.message + " @" + e.source);
  REQUIRE(gaps.size() == 2);
  CHECK(has(gaps[0], "Link Width Current is \"4e1x\""));
  CHECK(has(gaps[0], "@q.txt:75"));
  CHECK(has(gaps[1], "is \"1e30\""));
  CHECK(has(gaps[1], "@q.txt:136"));
  const auto findings = nvsmi_query_findings(*imp);  // kept alive: with_code points into it
  for (const auto* f : with_code(findings, "pcie_width_downgraded")) CHECK_FALSE(has(f->message, "GPU 0 "));
  NvsmiField plain{"16x", 1}, unit{"88 C", 1}, neg{"-3", 1}, dec{"3.5", 1};
  CHECK(plain.number() == 16);
  CHECK(unit.number() == 88);
  CHECK_FALSE(neg.number().has_value());
  CHECK(neg.unreadable());
  CHECK_FALSE(dec.number().has_value());
}

TEST_CASE("one NUL byte in a big nvidia-smi -q is a gap naming its line, not an empty input, the GPUs are read") {
  std::string text = repo_text(kH100);
  size_t at = 0;
  for (int line = 1; line < 41; ++line) at = text.find('\n', at) + 1;  // the start of line 41
  text.insert(text.find('\n', at), 1, '\0');
  auto imp = import_nvsmi_query(text, "nul.txt");
  REQUIRE_MESSAGE(imp.ok(), (imp.ok() ? std::string() : imp.error().to_string()));
  CHECK(imp->gpus.size() == 8);
  bool named = false;
  for (const auto& g : imp->gaps)
    named = named || (g.source == "nul.txt:41" && has(g.message, "1 NUL byte(s) on 1 line(s)"));
  CHECK(named);
  // Nothing but NULs is still no nvidia-smi -q output.
  auto zeros = import_nvsmi_query(std::string(4096, '\0'), "zeros.bin");
  REQUIRE_FALSE(zeros.ok());
  CHECK(has(zeros.error().message, "binary data: 4096 NUL bytes"));
}
