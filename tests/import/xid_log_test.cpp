// NVRM Xid reports in kernel logs: case 070 (Xid 119 GSP RPC timeout x5 on GPU4, 0000:9b:00)
// and made-up variants (journal lines with Xid 79 / 154 / 45, an older driver's "(0000:03:00)",
// an Xid the catalog does not list, SXid lines, a healthy dmesg, a cut last line, refusals);
// detection keeps `counters --from` reading such a log as syslog.
#include <doctest/doctest.h>

#include "import/counter_formats.h"
#include "import/format_detect.h"
#include "import/xid_catalog.h"
#include "import/xid_log.h"
#include "tests/support/import_test_util.h"

using namespace fabdiag;
using namespace fabdiag::testing;

namespace {

constexpr const char* kCase070 = "tests/fixtures/cases/070-dmesg-xid-119-gsp-rpc-timeout-gpu4-xe9680-needs-reset.input.txt";
constexpr const char* kJournal = "tests/fixtures/gpu/journal-xid-79-154-45-older-driver.txt";

XidLogImport read(const std::string& rel) {
  auto imp = import_xid_log(repo_text(rel), rel);
  REQUIRE(imp.ok());
  return *imp;
}

const XidGpu* gpu(const XidLogImport& imp, const std::string& bdf) {
  for (const auto& g : imp.gpus)
    if (g.pci_bdf == bdf) return &g;
  return nullptr;
}

}  // namespace

TEST_CASE("xid case 070: Xid 119 five times on GPU4 (0000:9b:00), 6 s GSP timeout, needs a GPU reset") {
  auto imp = read(kCase070);
  CHECK(imp.xid_lines == 5);
  const XidGpu* g = gpu(imp, "0000:9b:00.0");
  REQUIRE(g);
  CHECK(g->pci == "0000:9b:00");
  CHECK(g->gpu_index == 4);
  CHECK(g->uuid == "GPU-00000000-0000-0000-0000-000000000000");
  CHECK(g->driver_notes == std::vector<std::string>{"The GPU likely needs to be reset."});
  REQUIRE(g->xids.size() == 1);
  const XidTally& t = g->xids.at(119);
  CHECK(t.count == 5);
  CHECK(t.first_time == "Sun Feb 23 16:24:18 2025");
  CHECK(t.last_time == "Sun Feb 23 16:30:13 2025");
  CHECK(t.first_line == 3);
  CHECK(t.timeout_s == 6.0);
  CHECK(t.processes == std::set<std::string>{"nvidia-smi", "cache_mgr_main", "gpud"});

  auto fs = xid_findings(imp);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].code == "gpu_xid");
  CHECK(fs[0].severity == Severity::kError);
  CHECK(fs[0].subject == "0000:9b:00.0");
  CHECK(fs[0].message.find("GPU4 (PCI 0000:9b:00): Xid 119 (GSP_RPC_TIMEOUT") == 0);
  CHECK(fs[0].message.find("x5 between Sun Feb 23 16:24:18 2025 and Sun Feb 23 16:30:13 2025") != std::string::npos);
  CHECK(fs[0].action.find("reset the GPU") != std::string::npos);
  CHECK(fs[0].action.find("reboot") != std::string::npos);

  auto data = xid_log_data(imp);
  CHECK(data["gpus"][0]["xids"][0]["immediate_action"] == "RESET_GPU");
  CHECK(data["gpus"][0]["xids"][0]["count"] == 5);
}

TEST_CASE("xid line forms: newer with pid and name, older without PCI: prefix, 79 without pid") {
  auto x = parse_xid_line("[  1.0] NVRM: Xid (PCI:0000:9b:00): 119, pid=2024380, name=nvidia-smi, Timeout after 6s");
  REQUIRE(x);
  CHECK(x->pci == "PCI:0000:9b:00");
  CHECK(x->xid == 119);
  CHECK(x->pid == 2024380);
  CHECK(x->process == "nvidia-smi");
  CHECK(x->text == "Timeout after 6s");
  auto old = parse_xid_line("NVRM: Xid (0000:03:00): 13, 0005 00000000");
  REQUIRE(old);
  CHECK(old->xid == 13);
  CHECK_FALSE(old->pid);
  CHECK(old->text == "0005 00000000");
  auto bus = parse_xid_line("kernel: NVRM: Xid (PCI:0000:2b:00): 79, GPU has fallen off the bus.");
  REQUIRE(bus);
  CHECK(bus->text == "GPU has fallen off the bus.");
  CHECK_FALSE(parse_xid_line("NVRM: GPU at PCI:0000:2b:00: GPU-1"));
  CHECK_FALSE(parse_xid_line("nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 12028, Non-fatal"));
}

TEST_CASE("xid journal variant: 79 critical, 154 follows its recovery label, 45 info, unknown code warns") {
  auto imp = read(kJournal);
  CHECK(imp.xid_lines == 5);
  CHECK(imp.sxid_lines == 1);
  const XidGpu* bus = gpu(imp, "0000:2b:00.0");
  REQUIRE(bus);
  CHECK(bus->uuid == "GPU-00000000-0000-0000-0000-000000000001");
  CHECK(bus->xids.at(154).recovery == "Node Reboot Required");
  CHECK(bus->xids.at(79).first_time == "Jan 10 12:00:01");
  CHECK(imp.gpu_lost_lines == 1);              // "GPU 0000:2b:00.0: GPU has fallen off the bus."
  CHECK(bus->xids.at(79).count == 1);          // the same event as its Xid 79 line
  auto fs = xid_findings(imp);
  REQUIRE(fs.size() == 6);  // and the Xid 149 the 45 names as its cause
  auto of = [&](const std::string& bdf, const std::string& xid) -> const Finding* {
    for (const auto& f : fs)
      if (f.subject == bdf && f.message.find("Xid " + xid + " ") != std::string::npos) return &f;
    return nullptr;
  };
  REQUIRE(of("0000:2b:00.0", "79"));
  CHECK(of("0000:2b:00.0", "79")->severity == Severity::kCritical);
  CHECK(of("0000:2b:00.0", "154")->severity == Severity::kCritical);
  CHECK(of("0000:2b:00.0", "154")->action == "Drain and reboot the node.");
  CHECK(of("0000:dc:00.0", "45")->severity == Severity::kInfo);
  CHECK(of("0000:dc:00.0", "149")->severity == Severity::kError);
  CHECK(of("0000:03:00.0", "13")->severity == Severity::kWarn);
  CHECK(of("0000:03:00.0", "999")->severity == Severity::kWarn);
  CHECK(of("0000:03:00.0", "999")->message.find("not in fabdiag's copy of the Xid catalog") != std::string::npos);
}

TEST_CASE("xid catalog: the embedded JSON parses and holds the codes the cases rely on") {
  CHECK(xid_info(119).mnemonic == "GSP_RPC_TIMEOUT");
  CHECK(xid_info(119).immediate == "RESET_GPU");
  CHECK(xid_info(79).immediate == "RESTART_BM");
  CHECK(xid_info(79).severity == Severity::kCritical);
  CHECK(xid_info(63).severity == Severity::kInfo);
  CHECK(xid_info(48).severity == Severity::kError);
  CHECK(xid_info(31).severity == Severity::kWarn);
  CHECK(xid_info(12345).mnemonic.empty());
  CHECK(xid154_recovery("GPU Reset Required")->first == Severity::kError);
  CHECK_FALSE(xid154_recovery("Something Else"));
}

TEST_CASE("xid: a healthy dmesg is valid and has no finding, a cut last line is a gap") {
  auto healthy = read("tests/fixtures/gpu/dmesg-healthy-no-xid.txt");
  CHECK(healthy.xid_lines == 0);
  CHECK(healthy.lines == 4);
  CHECK(xid_findings(healthy).empty());
  auto cut = read("tests/fixtures/gpu/dmesg-xid-cut-last-line.txt");
  CHECK(cut.xid_lines == 1);
  REQUIRE(cut.gaps.size() == 1);
  CHECK(cut.gaps[0].source == "tests/fixtures/gpu/dmesg-xid-cut-last-line.txt:2");
}

TEST_CASE("xid detection: an NVRM Xid line marks the log, counters --from still reads it as syslog") {
  auto ev = detect_tool_in_text(repo_text(kCase070));
  CHECK(ev.tool == ToolText::kNvrmXid);
  CHECK(ev.line == 3);
  CHECK(detect_counter_import_format(repo_text(kCase070)) == CounterImportFormat::kSyslog);
  CHECK(detect_tool_in_text(repo_text("tests/fixtures/gpu/dmesg-healthy-no-xid.txt")).tool == ToolText::kSyslog);
  CHECK(detect_tool_in_text(repo_text("tests/fixtures/counters-faults/carrier-flaps.syslog.txt")).tool == ToolText::kSyslog);
}

TEST_CASE("xid: text that is no kernel log is refused naming its first line") {
  auto r = import_xid_log(repo_text("tests/fixtures/cases/013-ibstat-cx7-two-ports-down.input.txt"), "ib.txt");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::kParse);
  CHECK(r.error().source == "ib.txt:1");
  CHECK(r.error().message.find("expected a kernel log") == 0);
  CHECK_FALSE(import_xid_log(repo_text("tests/fixtures/import/binary-junk.bin"), "junk").ok());
}

TEST_CASE("xid: a log of 3000 GPUs keeps 1024 and counts the rest as a gap, each GPU's count exact") {
  std::string text;
  for (int i = 0; i < 3000; ++i)
    for (int rep = 0; rep < 2; ++rep)
      text += "[" + std::to_string(i) + ".5] NVRM: Xid (PCI:0000:" + std::to_string(10 + i / 256) + ":" +
              std::to_string(i % 256) + "): 31, pid=1, name=p, MMU Fault\n";
  auto imp = import_xid_log(text, "big.log");
  REQUIRE(imp.ok());
  CHECK(imp->xid_lines == 6000);
  CHECK(imp->gpus.size() == 1024);
  CHECK(imp->gpus[0].xids.at(31).count == 2);
  REQUIRE(imp->gaps.size() == 1);
  CHECK(imp->gaps[0].message.find("more than 1024 GPUs: 3952 Xid line(s)") == 0);
}

TEST_CASE("xid w126: Xid 45 'caused by previous Xid 149/145' makes the NVLink causes known, judged as errors") {
  auto imp = read("tests/fixtures/cases/w126-journal-xid-45-caused-by-previous-xid-149-145-four-gpus.input.txt");
  CHECK(imp.xid_lines == 7);
  REQUIRE(imp.gpus.size() == 4);
  const XidGpu* dc = gpu(imp, "0000:dc:00.0");
  REQUIRE(dc);
  CHECK(dc->xids.at(45).count == 2);
  CHECK(dc->xids.at(45).caused_by.at(149) == 2);
  REQUIRE(dc->cited.count(149));
  CHECK(dc->cited.at(149).count == 2);
  CHECK(dc->cited.at(149).by_xid == 45);
  CHECK(dc->cited.at(149).first_line == 1);
  const XidGpu* ed = gpu(imp, "0000:ed:00.0");
  REQUIRE(ed);
  CHECK(ed->cited.at(145).count == 2);
  auto fs = xid_findings(imp);
  size_t nvlink = 0, cleanup = 0;
  for (const auto& f : fs) {
    bool cause = f.message.find("named as the cause") != std::string::npos;
    if (cause) {
      ++nvlink;
      CHECK(f.severity == Severity::kError);
    } else {
      ++cleanup;
      CHECK(f.severity == Severity::kInfo);
      CHECK(f.message.find("caused by previous Xid 14") != std::string::npos);
    }
  }
  CHECK(nvlink == 4);   // 149 on dc, 145 on ed, ba and 97
  CHECK(cleanup == 4);  // the Xid 45 of each GPU
}

TEST_CASE("xid: a cause whose own line is in the log is not named twice") {
  auto imp = import_xid_log(
      "kernel: NVRM: Xid (PCI:0000:dc:00): 149, NETIR_LINK_EVT Fatal XC0 i0 Link 00 (0x025001c6 0x00000000)\n"
      "kernel: NVRM: Xid (PCI:0000:dc:00): 45, pid=1818990, name=python3, Ch 00000001 caused by previous Xid 149\n",
      "t.log");
  REQUIRE(imp.ok());
  const XidGpu* dc = gpu(*imp, "0000:dc:00.0");
  REQUIRE(dc);
  CHECK(dc->cited.empty());
  CHECK(xid_findings(*imp).size() == 2);
}

TEST_CASE("xid w127: the multi-line 'fallen off the bus' report without an Xid line is Xid 79, critical") {
  auto text = repo_text("tests/fixtures/cases/w127-dmesg-nvrm-gpu-fallen-off-bus-without-xid-line.input.txt");
  CHECK(detect_tool_in_text(text).tool == ToolText::kNvrmXid);
  auto imp = import_xid_log(text, "w127");
  REQUIRE(imp.ok());
  REQUIRE(imp->gpus.size() == 1);
  CHECK(imp->gpus[0].pci_bdf == "0000:b3:00.0");
  const XidTally& t = imp->gpus[0].xids.at(79);
  CHECK(t.count == 1);
  CHECK(t.from_message);
  CHECK(t.first_line == 3);
  CHECK(t.first_time == "1843.308145");
  auto fs = xid_findings(*imp);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].severity == Severity::kCritical);
  CHECK(fs[0].subject == "0000:b3:00.0");
}

TEST_CASE("xid: the one-line 'GPU has fallen off the bus' after its Xid 79 line is the same event") {
  auto imp = import_xid_log(
      "Sep 23 18:37:03 host kernel: [   34.193759] NVRM: Xid (PCI:0000:01:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n"
      "Sep 23 18:37:03 host kernel: [   34.193770] NVRM: GPU 0000:01:00.0: GPU has fallen off the bus.\n",
      "t.log");
  REQUIRE(imp.ok());
  REQUIRE(imp->gpus.size() == 1);
  CHECK(imp->gpus[0].xids.at(79).count == 1);
  CHECK_FALSE(imp->gpus[0].xids.at(79).from_message);
  // The message first, the Xid line after it: still one event, the Xid line's.
  auto rev = import_xid_log(
      "[ 34.1] NVRM: GPU 0000:01:00.0: GPU has fallen off the bus.\n"
      "[ 34.2] NVRM: Xid (PCI:0000:01:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n",
      "t.log");
  REQUIRE(rev.ok());
  CHECK(rev->gpus[0].xids.at(79).count == 1);
  CHECK(rev->gpus[0].xids.at(79).first_line == 2);
}
