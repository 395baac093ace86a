// PCIe rules of fabdiag check, each alone: link (reused rules), ACS, AER.
#include <doctest/doctest.h>

#include <regex>

#include "rules/check_pcie_rules.h"

using namespace fabdiag;

namespace {

AcsPort placed(const std::string& bdf, uint16_t control, std::vector<std::string> below) {
  AcsPort p;
  p.bdf = bdf;
  p.label = "switch downstream port " + bdf;
  p.status = AcsStatus::kRead;
  p.control = control;
  p.position_known = true;
  p.below = std::move(below);
  p.source = "/sys/bus/pci/devices/" + bdf + "/config";
  return p;
}

AcsPort loose(int line, uint16_t control) {
  AcsPort p;
  p.label = "ACSCtl line " + std::to_string(line);
  p.status = AcsStatus::kRead;
  p.control = control;
  p.source = "case.txt line " + std::to_string(line);
  return p;
}

}  // namespace

TEST_CASE("pcie_link_findings reuses judge_pcie_link: width error, NIC speed warn, GPU idle info") {
  PcieLinkSubject nic;
  nic.bdf = "0000:1b:00.0";
  nic.label = "NIC2 (mlx5_1)";
  nic.link = PcieLink{32.0, 32.0, 8, 16};
  nic.parent_bdf = "0000:17:03.0";
  nic.parent_max_speed_gts = 32.0;
  nic.parent_max_width = 16;
  PcieLinkSubject gpu = nic;
  gpu.bdf = "0000:9c:00.0";
  gpu.is_gpu = true;
  gpu.link = PcieLink{2.5, 32.0, 16, 16};
  PcieLinkSubject slow_nic = gpu;
  slow_nic.is_gpu = false;
  auto f = pcie_link_findings({nic, gpu, slow_nic});
  REQUIRE(f.size() == 3);
  CHECK(f[0].code == "pcie_width_downgraded");
  CHECK(f[0].severity == Severity::kError);
  CHECK(f[1].code == "pcie_speed_low_at_idle");
  CHECK(f[1].severity == Severity::kInfo);
  CHECK(f[1].message.find("re-check under load") != std::string::npos);
  CHECK(f[2].code == "pcie_speed_downgraded");
  CHECK(f[2].severity == Severity::kWarn);
}

TEST_CASE("ACS redirect on a port above a NIC is an error naming the port and what is below") {
  auto f = acs_findings({placed("0000:17:01.0", kAcsSrcValid | kAcsReqRedirect | kAcsCmpltRedirect, {"NIC1 (mlx5_0)"})},
                        {});
  REQUIRE(f.size() == 1);
  CHECK(f[0].code == "acs_redirect_enabled");
  CHECK(f[0].severity == Severity::kError);
  CHECK(f[0].layer == Layer::kPhysical);
  CHECK(f[0].subject == "0000:17:01.0");
  CHECK(f[0].message.find("NIC1 (mlx5_0)") != std::string::npos);
  CHECK(f[0].message.find("ReqRedir+ CmpltRedir+") != std::string::npos);
  REQUIRE(f[0].evidence.size() == 1);
  CHECK(f[0].evidence[0].value_text == "0x000d (SrcValid+ ReqRedir+ CmpltRedir+)");
  CHECK(f[0].evidence[0].source == "/sys/bus/pci/devices/0000:17:01.0/config");
  CHECK(f[0].action.find("setpci") != std::string::npos);
}

TEST_CASE("EgressCtrl alone redirects, SrcValid, UpstreamFwd, TransBlk, DirectTrans alone do not") {
  CHECK(acs_findings({placed("0000:17:01.0", kAcsEgressCtrl, {"GPU0"})}, {}).size() == 1);
  CHECK(acs_findings({placed("0000:17:01.0", kAcsCmpltRedirect, {"GPU0"})}, {}).size() == 1);
  CHECK(acs_findings({placed("0000:17:01.0", kAcsSrcValid | kAcsUpstreamFwd | kAcsTransBlock | kAcsDirectTrans,
                             {"GPU0"})},
                     {})
            .empty());
}

TEST_CASE("a redirecting port with no GPU or NIC below, or without ACS, gives no finding") {
  CHECK(acs_findings({placed("0000:17:00.0", kAcsReqRedirect, {})}, {}).empty());
  AcsPort none = placed("0000:16:00.0", 0, {"GPU0"});
  none.status = AcsStatus::kNoCapability;
  CHECK(acs_findings({none}, {}).empty());
}

TEST_CASE("unreadable ACS (64-byte config) is one info 'unknown', never absence or a fault") {
  AcsPort a = placed("0000:00:01.1", 0, {"NIC0 (mlx5_4)"});
  a.status = AcsStatus::kNeedsRoot;
  a.detail = "only 64 bytes";
  AcsPort b = placed("0000:15:01.0", 0, {"GPU0"});
  b.status = AcsStatus::kNeedsRoot;
  auto f = acs_findings({a, b}, {});
  REQUIRE(f.size() == 1);
  CHECK(f[0].code == "acs_unknown");
  CHECK(f[0].severity == Severity::kInfo);
  CHECK(f[0].message.find("without root") != std::string::npos);
  CHECK(f[0].evidence.size() == 2);
}

TEST_CASE("case 008 shape: 5 of 11 unplaced lines redirect, SrcValid-only not counted, no address named") {
  std::vector<AcsPort> ports;
  uint16_t on = kAcsSrcValid | kAcsReqRedirect | kAcsCmpltRedirect | kAcsUpstreamFwd;
  for (int i = 0; i < 5; ++i) ports.push_back(loose(4 + i, on));
  for (int i = 0; i < 2; ++i) ports.push_back(loose(9 + i, kAcsSrcValid));
  for (int i = 0; i < 4; ++i) ports.push_back(loose(11 + i, 0));
  WcError wc;
  wc.status = 4;
  wc.line = "NCCL WARN NET/IB : Got completion with error 4, opcode 0, len 32694, vendor err 81";
  wc.source = "case.txt line 2";
  auto f = acs_findings(ports, {wc});
  REQUIRE(f.size() == 1);
  CHECK(f[0].code == "acs_redirect_enabled");
  CHECK(f[0].severity == Severity::kError);
  CHECK(f[0].message.find("5 of 11") != std::string::npos);
  CHECK(f[0].message.find("2 more have other ACS bits only") != std::string::npos);
  CHECK(f[0].message.find("4 have every ACS bit off") != std::string::npos);
  CHECK(f[0].message.find("cannot tell which") != std::string::npos);
  CHECK(f[0].message.find("local protection") != std::string::npos);
  CHECK(f[0].evidence.size() == 6);  // the 5 redirecting lines + the completion error
  std::regex bdf("[0-9a-f]{2}:[0-9a-f]{2}\\.[0-7]");
  CHECK_FALSE(std::regex_search(f[0].subject + f[0].message, bdf));
  CHECK(f[0].evidence.back().threshold_text.find("not packet loss") != std::string::npos);
}

TEST_CASE("parse_aer_text: current names, old names with spaces, TOTAL lines, garbage") {
  auto now = parse_aer_text("RxErr 0\nBadTLP 3\nBadDLLP 1\nRollover 0\nTOTAL_ERR_COR 4\n", "/x/aer_dev_correctable");
  REQUIRE(now.ok());
  CHECK(now->present);
  CHECK(now->total == 4u);
  REQUIRE(now->nonzero.size() == 2);
  CHECK(now->nonzero[0] == std::pair<std::string, uint64_t>{"BadTLP", 3});
  CHECK(now->source == "/x/aer_dev_correctable");

  auto old = parse_aer_text("Receiver Error 2\nBad TLP 0\nReplay Timer Timeout 5\n", "/x");  // 4.19, no TOTAL
  REQUIRE(old.ok());
  CHECK(old->total == 7u);
  REQUIRE(old->nonzero.size() == 2);
  CHECK(old->nonzero[0].first == "Receiver Error");
  CHECK(old->nonzero[1].first == "Replay Timer Timeout");

  auto bad = parse_aer_text("not a counter file\n", "/x/aer_dev_fatal");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().code == ErrorCode::kParse);
  CHECK(bad.error().source == "/x/aer_dev_fatal");
}

TEST_CASE("AER: fatal or non-fatal > 0 is critical, correctable only is info, zero is nothing") {
  AerSubject s;
  s.bdf = "0000:1a:00.0";
  s.label = "GPU1";
  s.correctable = *parse_aer_text("RxErr 0\nTOTAL_ERR_COR 0", "c");
  s.fatal = *parse_aer_text("DLP 0\nTOTAL_ERR_FATAL 0", "f");
  s.nonfatal = *parse_aer_text("CmpltTO 0\nTOTAL_ERR_NONFATAL 0", "n");
  CHECK(aer_findings(s).empty());

  AerSubject fatal = s;
  fatal.fatal = *parse_aer_text("DLP 0\nCmpltTO 1\nTOTAL_ERR_FATAL 1", "/sys/bus/pci/devices/0000:1a:00.0/aer_dev_fatal");
  auto f = aer_findings(fatal);
  REQUIRE(f.size() == 1);
  CHECK(f[0].code == "pcie_aer_uncorrectable");
  CHECK(f[0].severity == Severity::kCritical);
  CHECK(f[0].subject == "0000:1a:00.0");
  REQUIRE(f[0].evidence.size() == 1);
  CHECK(f[0].evidence[0].metric == "TOTAL_ERR_FATAL");
  CHECK(f[0].evidence[0].value == 1.0);
  CHECK(f[0].evidence[0].value_text == "CmpltTO 1");

  AerSubject nonfatal = s;
  nonfatal.nonfatal = *parse_aer_text("UnsupReq 2\nTOTAL_ERR_NONFATAL 2", "n");
  auto n = aer_findings(nonfatal);
  REQUIRE(n.size() == 1);
  CHECK(n[0].severity == Severity::kCritical);

  AerSubject cor = s;
  cor.correctable = *parse_aer_text("RxErr 2\nTOTAL_ERR_COR 2", "c");
  auto c = aer_findings(cor);
  REQUIRE(c.size() == 1);
  CHECK(c[0].code == "pcie_aer_correctable");
  CHECK(c[0].severity == Severity::kInfo);
}
