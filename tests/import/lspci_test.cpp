// lspci -vvv importer: case 021 (full subtree, healthy control), case 008 (grep ACSCtl), and
// small hand-written listings for the faults.
#include <doctest/doctest.h>

#include "core/atomic_file.h"
#include "rules/check_run.h"
#include "import/host_formats.h"
#include "import/lspci.h"

using namespace fabdiag;

namespace {

const std::string kCases = std::string(FABDIAG_SOURCE_DIR) + "/tests/fixtures/cases/";

std::string case_text(const std::string& name) {
  auto t = read_file(kCases + name);
  REQUIRE(t.ok());
  return *t;
}

const LspciFunction* fn(const LspciListing& l, const std::string& bdf) {
  for (const auto& f : l.functions)
    if (f.bdf == bdf) return &f;
  return nullptr;
}

// Root port -> switch -> GPU and NIC, with knobs for the faults.
std::string small_listing(const std::string& dsp_acs, const std::string& gpu_sta, const std::string& nic_sta) {
  return "0000:15:01.0 PCI bridge [0604]: Intel Corporation Device 352a (rev 04)\n"
         "\tBus: primary=15, secondary=16, subordinate=19, sec-latency=0\n"
         "\tCapabilities: [40] Express (v2) Root Port (Slot-), MSI 00\n"
         "\t\tLnkCap:\tPort #1, Speed 32GT/s, Width x16, ASPM not supported\n"
         "\t\tLnkSta:\tSpeed 32GT/s (ok), Width x16 (ok)\n"
         "\t\tACSCtl:\tSrcValid+ TransBlk- ReqRedir- CmpltRedir- UpstreamFwd+ EgressCtrl- DirectTrans-\n"
         "\n"
         "0000:16:00.0 PCI bridge [0604]: Broadcom / LSI PEX890xx PCIe Gen 5 Switch (rev b0)\n"
         "\tBus: primary=16, secondary=17, subordinate=19, sec-latency=0\n"
         "\tCapabilities: [68] Express (v2) Upstream Port, MSI 00\n"
         "\t\tLnkCap:\tPort #200, Speed 32GT/s, Width x16\n"
         "\t\tLnkSta:\tSpeed 32GT/s (ok), Width x16 (ok)\n"
         "\n"
         "0000:17:00.0 PCI bridge [0604]: Broadcom / LSI PEX890xx PCIe Gen 5 Switch (rev b0)\n"
         "\tBus: primary=17, secondary=18, subordinate=18, sec-latency=0\n"
         "\tCapabilities: [68] Express (v2) Downstream Port (Slot+), MSI 00\n"
         "\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x16\n"
         "\t\tLnkSta:\tSpeed 32GT/s (ok), Width x16 (ok)\n"
         "\t\tACSCtl:\tSrcValid- TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl- DirectTrans-\n"
         "\n"
         "0000:17:01.0 PCI bridge [0604]: Broadcom / LSI PEX890xx PCIe Gen 5 Switch (rev b0)\n"
         "\tBus: primary=17, secondary=19, subordinate=19, sec-latency=0\n"
         "\tCapabilities: [68] Express (v2) Downstream Port (Slot+), MSI 00\n"
         "\t\tLnkCap:\tPort #1, Speed 32GT/s, Width x16\n"
         "\t\tLnkSta:\tSpeed 32GT/s (ok), Width x16 (ok)\n"
         "\t\tACSCtl:\t" + dsp_acs + "\n"
         "\n"
         "0000:18:00.0 3D controller [0302]: NVIDIA Corporation GH100 [H100 SXM5 80GB] [10de:2330] (rev a1)\n"
         "\tCapabilities: [60] Express (v2) Endpoint, MSI 00\n"
         "\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x16, ASPM L1, Exit Latency L1 <4us\n"
         "\t\tLnkSta:\t" + gpu_sta + "\n"
         "\n"
         "0000:19:00.0 Infiniband controller [0207]: Mellanox Technologies MT2910 Family [ConnectX-7] [15b3:1021]\n"
         "\tCapabilities: [60] Express (v2) Endpoint, MSI 00\n"
         "\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x16, ASPM not supported\n"
         "\t\tLnkSta:\t" + nic_sta + "\n";
}

const char* kOff = "SrcValid- TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl- DirectTrans-";
const char* kFull = "Speed 32GT/s (ok), Width x16 (ok)";

}  // namespace

TEST_CASE("parse_acs_flags reads +/- flags, junk is nullopt") {
  CHECK(parse_acs_flags("SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-") ==
        uint16_t{0x001d});
  CHECK(parse_acs_flags("SrcValid- TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl+ DirectTrans-") ==
        uint16_t{0x0020});
  CHECK_FALSE(parse_acs_flags("nothing here").has_value());
}

TEST_CASE("case 021: headers, tree by bus numbers, LnkCap/LnkSta notes, ACS, VPD skipped") {
  auto l = parse_lspci(case_text("021-lspci-h100-pex-switch-healthy.input.txt"), "021.txt");
  REQUIRE(l.ok());
  CHECK(l->gaps.empty());
  CHECK(l->functions.size() == 13);
  CHECK(l->loose_acs.empty());
  const auto* rp = fn(*l, "0000:15:01.0");
  REQUIRE(rp);
  CHECK(rp->kind == PciKind::kBridge);
  CHECK(rp->port_type == "Root Port");
  CHECK(rp->secondary_bus == 0x16u);
  CHECK(rp->subordinate_bus == 0x1cu);
  const auto* usp = fn(*l, "0000:16:00.0");
  REQUIRE(usp);
  CHECK(usp->port_type == "Upstream Port");
  const auto* dsp0 = fn(*l, "0000:17:00.0");
  REQUIRE(dsp0);
  CHECK(dsp0->port_type == "Downstream Port");
  CHECK(dsp0->link.max_speed_gts == 32.0);
  CHECK(dsp0->link.max_width == 4);
  CHECK(dsp0->link.current_speed_gts == 16.0);
  CHECK(dsp0->speed_note == "downgraded");
  CHECK(dsp0->width_note == "ok");
  const auto* gpu = fn(*l, "0000:19:00.0");
  REQUIRE(gpu);
  CHECK(gpu->kind == PciKind::kGpu);
  CHECK(gpu->class_name == "3D controller");
  CHECK(gpu->driver == "nvidia");
  CHECK(gpu->link.current_speed_gts == 32.0);
  CHECK(gpu->link.current_width == 16);
  const auto* cx7 = fn(*l, "0000:1a:00.0");
  REQUIRE(cx7);
  CHECK(cx7->kind == PciKind::kNic);
  CHECK(cx7->product_name.back() != ' ');  // long trailing-space product name trimmed
  CHECK(cx7->product_name.find("ConnectX-7") != std::string::npos);
  CHECK(fn(*l, "0000:1b:00.1") != nullptr);
  CHECK(fn(*l, "0000:1c:00.0")->kind == PciKind::kOther);
  int with_acs = 0;
  for (const auto& f : l->functions)
    if (f.acs_control) {
      ++with_acs;
      CHECK(*f.acs_control == 0);
    }
  CHECK(with_acs == 8);
  CHECK(rp->numa_node == 0);
}

TEST_CASE("case 021 facts: 5 links judged against the lower LnkCap, ACS ports know what is below") {
  auto l = parse_lspci(case_text("021-lspci-h100-pex-switch-healthy.input.txt"), "021.txt");
  REQUIRE(l.ok());
  HostFacts f = lspci_to_facts(*l, "021.txt");
  REQUIRE(f.pcie_links);
  CHECK(f.pcie_links->size() == 5);  // GPU, CX-7, CX-6 Dx x2, switch uplink
  for (const auto& s : *f.pcie_links) {
    if (s.bdf == "0000:19:00.0") {
      CHECK(s.is_gpu);
      CHECK(s.parent_bdf == "0000:17:01.0");
      CHECK(s.parent_max_speed_gts == 32.0);
    }
    if (s.bdf == "0000:16:00.0") CHECK(s.parent_bdf == "0000:15:01.0");
  }
  REQUIRE(f.acs_ports);
  CHECK(f.acs_ports->size() == 6);  // bridges only; the CX-6 Dx endpoints' ACSCtl does not count
  for (const auto& p : *f.acs_ports) {
    CHECK(p.position_known);
    if (p.bdf == "0000:17:02.0") CHECK(p.below == std::vector<std::string>{"NIC 0000:1a:00.0"});
    if (p.bdf == "0000:15:01.0") CHECK(p.below.size() == 4);
    if (p.bdf == "0000:17:00.0") CHECK(p.below.empty());
  }
  CHECK_FALSE(f.rdma_ports);
  CHECK_FALSE(f.aer);
}

TEST_CASE("hand-written listing: ACS redirect above the NIC and an x8 NIC are named by address") {
  auto l = parse_lspci(small_listing("SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-",
                                     kFull, "Speed 32GT/s (ok), Width x8 (downgraded)"),
                       "node.txt");
  REQUIRE(l.ok());
  auto report = run_checks(lspci_to_facts(*l, "node.txt"), {});
  std::vector<std::pair<std::string, std::string>> got;
  for (const auto& f : report.findings) got.emplace_back(f.code, f.subject);
  CHECK(got == std::vector<std::pair<std::string, std::string>>{{"pcie_width_downgraded", "0000:19:00.0"},
                                                                 {"acs_redirect_enabled", "0000:17:01.0"}});
  CHECK(report.findings[1].message.find("NIC 0000:19:00.0") != std::string::npos);
  CHECK(report.findings[1].evidence[0].source == "node.txt line 26");
}

TEST_CASE("hand-written listing: a GPU at 2.5GT/s is the idle trap (info), SrcValid+UpstreamFwd is no redirect") {
  auto l = parse_lspci(small_listing(kOff, "Speed 2.5GT/s (downgraded), Width x16 (ok)", kFull), "node.txt");
  REQUIRE(l.ok());
  auto report = run_checks(lspci_to_facts(*l, "node.txt"), {});
  REQUIRE(report.findings.size() == 1);
  CHECK(report.findings[0].code == "pcie_speed_low_at_idle");
  CHECK(report.findings[0].severity == Severity::kInfo);
}

TEST_CASE("case 008: 11 ACSCtl lines without headers, and the NCCL WARN section") {
  auto sections = split_sections(case_text("008-lspci-acsctl-redirect-enabled.input.txt"));
  REQUIRE(sections.size() == 2);
  CHECK(sections[0].title == "NCCL WARN");
  CHECK(sections[0].first_line == 2);
  CHECK(sections[1].title == "lspci -vvv | grep ACSCtl");
  CHECK(sections[1].first_line == 4);
  CHECK(detect_format(sections[0].text) == InputFormat::kNcclLog);
  CHECK(detect_format(sections[1].text) == InputFormat::kLspci);
  auto l = parse_lspci(sections[1].text, "008.txt", sections[1].first_line);
  REQUIRE(l.ok());
  CHECK(l->functions.empty());
  REQUIRE(l->loose_acs.size() == 11);  // every line, not only the first match
  int redirect = 0, sv_only = 0, off = 0;
  for (const auto& a : l->loose_acs) {
    if (a.control & kAcsP2pRedirectMask) ++redirect;
    else if (a.control == kAcsSrcValid) ++sv_only;
    else if (a.control == 0) ++off;
    CHECK((a.control & (kAcsTransBlock | kAcsEgressCtrl | kAcsDirectTrans)) == 0);
  }
  CHECK(redirect == 5);
  CHECK(sv_only == 2);
  CHECK(off == 4);
  CHECK(l->loose_acs.front().line == 4);
  CHECK(l->loose_acs.back().line == 14);
  auto wc = parse_nccl_wc_errors(sections[0].text, "008.txt", sections[0].first_line);
  REQUIRE(wc.size() == 1);
  CHECK(wc[0].status == 4);
  CHECK(wc[0].opcode == 0);
  CHECK(wc[0].len_bytes == 32694u);
  CHECK(wc[0].vendor_err == 81);
  CHECK(wc[0].source == "008.txt line 2");
}

TEST_CASE("newer NCCL completion lines with status=NAME(n) and the HCA") {
  auto wc = parse_nccl_wc_errors(
      "node01:1:2 [0] transport/net_ib/p2p.cc:1 NCCL WARN NET/IB: Got completion from peer 192.0.2.7<43422> with "
      "status=RETRY_EXC_ERR(12) opcode=SEND(0) reqSize=0 vendor_err=129 req_type=Send localGid ::ffff:192.0.2.6 "
      "remoteGids ::ffff:192.0.2.7 hca mlx5_3\n"
      "node01:1:2 [0] NCCL INFO unrelated\n",
      "log.txt");
  REQUIRE(wc.size() == 1);
  CHECK(wc[0].status == 12);
  CHECK(wc[0].opcode == 0);
  CHECK(wc[0].vendor_err == 129);
  CHECK(wc[0].hca == "mlx5_3");
}

TEST_CASE("text without a header or an ACSCtl line is not lspci") {
  auto r = parse_lspci("hello\nworld\n", "x.txt");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::kParse);
  CHECK(r.error().source == "x.txt");
}

TEST_CASE("lspci run without root: '<access denied>' bridges are ACS 'unknown', not 'no ACS'") {
  std::string text =
      "17:01.0 PCI bridge: Broadcom / LSI PEX890xx PCIe Gen 5 Switch (rev b0) (prog-if 00 [Normal decode])\n"
      "\tBus: primary=17, secondary=19, subordinate=19, sec-latency=0\n"
      "\tCapabilities: <access denied>\n"
      "\n"
      "19:00.0 3D controller: NVIDIA Corporation Device 2330 (rev a1)\n"
      "\tCapabilities: <access denied>\n";
  auto l = parse_lspci(text, "user.txt");
  REQUIRE(l.ok());
  HostFacts f = lspci_to_facts(*l, "user.txt");
  REQUIRE(f.acs_ports);
  REQUIRE(f.acs_ports->size() == 1);
  CHECK((*f.acs_ports)[0].status == AcsStatus::kNeedsRoot);
  CHECK((*f.acs_ports)[0].below == std::vector<std::string>{"GPU 0000:19:00.0"});
  auto r = run_checks(f, {});
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].code == "acs_unknown");
  CHECK(r.findings[0].severity == Severity::kInfo);
}

TEST_CASE("case w215: LnkCap/LnkSta lines without a device header are one unnamed device, judged") {
  auto l = parse_lspci(case_text("w215-lspci-lnkcap-lnksta-fragment-gen1-of-gen4-width-ok.input.txt"), "w215.txt");
  REQUIRE(l.ok());
  REQUIRE(l->functions.size() == 1);
  const LspciFunction& f = l->functions[0];
  CHECK(f.fragment);
  CHECK(f.bdf.empty());
  CHECK(f.link.max_speed_gts == 16.0);
  CHECK(f.link.max_width == 16);
  CHECK(f.link.current_speed_gts == 2.5);
  CHECK(f.link.current_width == 16);
  auto report = run_checks(lspci_to_facts(*l, "w215.txt"), {});
  REQUIRE(report.findings.size() == 1);
  CHECK(report.findings[0].code == "pcie_speed_downgraded");
  CHECK(report.findings[0].severity == Severity::kWarn);
  CHECK(report.findings[0].subject.find("unnamed device") != std::string::npos);
  CHECK(report.findings[0].evidence[0].source == "w215.txt line 1");  // where the device's lines start
  // Two pairs are two devices; a LnkSta after a header belongs to that header's device.
  auto two = parse_lspci("\tLnkCap:\tPort #0, Speed 8GT/s, Width x8\n\tLnkSta:\tSpeed 8GT/s (ok), Width x8 (ok)\n"
                         "\tLnkCap:\tPort #0, Speed 16GT/s, Width x16\n\tLnkSta:\tSpeed 16GT/s (ok), Width x4 (downgraded)\n",
                         "two.txt");
  REQUIRE(two.ok());
  REQUIRE(two->functions.size() == 2);
  CHECK(two->functions[1].link.current_width == 4);
  auto r2 = run_checks(lspci_to_facts(*two, "two.txt"), {});
  REQUIRE(r2.findings.size() == 1);
  CHECK(r2.findings[0].code == "pcie_width_downgraded");
}
