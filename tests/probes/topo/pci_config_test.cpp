// ACS extended-capability walk (probes/topo/pci_config.h) on synthetic config images and on the
// check fixtures' binary config files.
#include <doctest/doctest.h>

#include <cstring>

#include "probes/topo/pci_config.h"

using namespace fabdiag;

namespace {

// A 4096-byte image with extended capability headers at the given offsets.
struct Image {
  std::vector<uint8_t> bytes = std::vector<uint8_t>(4096, 0);
  void header(uint32_t off, uint16_t id, uint32_t next, uint8_t version = 1) {
    uint32_t h = id | (uint32_t{version} << 16) | (next << 20);
    std::memcpy(&bytes[off], &h, 4);
  }
  void u16(uint32_t off, uint16_t v) { std::memcpy(&bytes[off], &v, 2); }
};

const std::string kFixtures = std::string(FABDIAG_SOURCE_DIR) + "/tests/fixtures/check/";

}  // namespace

TEST_CASE("the walk follows next pointers to the ACS capability") {
  Image img;
  img.header(0x100, kExtCapAer, 0x148, 2);
  img.header(0x148, 0x0019, 0x220);  // secondary PCIe
  img.header(0x220, kExtCapAcs, 0);
  img.u16(0x226, 0x001d);
  auto off = find_extended_capability(img.bytes, kExtCapAcs);
  REQUIRE(off.ok());
  REQUIRE(off->has_value());
  CHECK(**off == 0x220);
  auto acs = acs_from_config(img.bytes);
  CHECK(acs.status == AcsStatus::kRead);
  CHECK(acs.offset == 0x220);
  CHECK(acs.control == 0x001d);
  CHECK(acs_control_text(acs.control) == "SrcValid+ ReqRedir+ CmpltRedir+ UpstreamFwd+");
}

TEST_CASE("a list that ends without ACS is 'no capability', not an error") {
  Image img;
  img.header(0x100, kExtCapAer, 0x150);
  img.header(0x150, 0x0003, 0);  // serial number, last
  auto off = find_extended_capability(img.bytes, kExtCapAcs);
  REQUIRE(off.ok());
  CHECK_FALSE(off->has_value());
  CHECK(acs_from_config(img.bytes).status == AcsStatus::kNoCapability);

  Image empty;  // header 0 at 0x100: no extended capabilities at all
  CHECK(acs_from_config(empty.bytes).status == AcsStatus::kNoCapability);
  Image ones;
  std::memset(&ones.bytes[0x100], 0xff, 4);  // 0xFFFFFFFF: device gone / not implemented
  CHECK(acs_from_config(ones.bytes).status == AcsStatus::kNoCapability);
}

TEST_CASE("loops, pointers below 0x100 and pointers past the end are parse errors") {
  Image loop;
  loop.header(0x100, kExtCapAer, 0x148);
  loop.header(0x148, 0x0019, 0x100);  // back to the start
  auto r = find_extended_capability(loop.bytes, kExtCapAcs);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::kParse);
  CHECK(r.error().message.find("loops") != std::string::npos);
  auto acs = acs_from_config(loop.bytes);
  CHECK(acs.status == AcsStatus::kUnreadable);
  CHECK(acs.detail.find("0x100") != std::string::npos);

  Image self;
  self.header(0x100, kExtCapAer, 0x100);
  CHECK_FALSE(find_extended_capability(self.bytes, kExtCapAcs).ok());

  Image low;
  low.header(0x100, kExtCapAer, 0x040);
  auto l = find_extended_capability(low.bytes, kExtCapAcs);
  REQUIRE_FALSE(l.ok());
  CHECK(l.error().message.find("below 0x100") != std::string::npos);

  Image cut;
  cut.header(0x100, kExtCapAer, 0x200);
  std::vector<uint8_t> short_image(cut.bytes.begin(), cut.bytes.begin() + 0x180);
  auto c = find_extended_capability(short_image, kExtCapAcs);
  REQUIRE_FALSE(c.ok());
  CHECK(c.error().message.find("beyond") != std::string::npos);
}

TEST_CASE("an ACS capability cut off by the end of the image is unreadable") {
  Image img;
  img.header(0x100, kExtCapAcs, 0);
  std::vector<uint8_t> cut(img.bytes.begin(), img.bytes.begin() + 0x104);
  CHECK(acs_from_config(cut).status == AcsStatus::kUnreadable);
}

TEST_CASE("64 bytes (unprivileged read) is 'needs root', 256 bytes has no extended space") {
  std::vector<uint8_t> unpriv(64, 0xab);
  auto a = acs_from_config(unpriv);
  CHECK(a.status == AcsStatus::kNeedsRoot);
  CHECK(a.detail.find("root") != std::string::npos);
  std::vector<uint8_t> conventional(256, 0);
  CHECK(acs_from_config(conventional).status == AcsStatus::kNoExtendedSpace);
}

TEST_CASE("read_acs on the check fixtures: switch port off, root port SV+UF, frontend root port 64 bytes") {
  FsRoot healthy(kFixtures + "healthy/sys", kFixtures + "healthy/proc");
  auto dsp = read_acs(healthy, "0000:17:01.0");
  CHECK(dsp.status == AcsStatus::kRead);
  CHECK(dsp.control == 0);
  CHECK(dsp.offset == 0x148);
  auto rp = read_acs(healthy, "0000:15:01.0");
  CHECK(rp.status == AcsStatus::kRead);
  CHECK(rp.control == (kAcsSrcValid | kAcsUpstreamFwd));
  CHECK((rp.control & kAcsP2pRedirectMask) == 0);
  CHECK(read_acs(healthy, "0000:00:01.1").status == AcsStatus::kNeedsRoot);
  auto missing = read_acs(healthy, "0000:18:00.0");  // an endpoint: no config file in the fixture
  CHECK(missing.status == AcsStatus::kUnreadable);
  CHECK(missing.detail.find("config") != std::string::npos);

  FsRoot faulty(kFixtures + "acs-redirect/sys", kFixtures + "acs-redirect/proc");
  auto bad = read_acs(faulty, "0000:17:01.0");
  CHECK(bad.status == AcsStatus::kRead);
  CHECK(bad.control == (kAcsSrcValid | kAcsReqRedirect | kAcsCmpltRedirect | kAcsUpstreamFwd));
}
