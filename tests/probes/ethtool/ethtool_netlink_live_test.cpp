// The real libnl transport against this machine's kernel: lo and the virtual NICs a CI VM has
// (virtio, veth) answer EOPNOTSUPP for pause, FEC and module EEPROM, and that must come back
// as "not supported", never as a failure. Reported by ctest as skipped (tests/support/skip.h)
// without libnl, without the ethtool family, or without a virtio/veth NIC.
#include <doctest/doctest.h>

#include <cerrno>
#include <filesystem>
#include <fstream>

#include "core/build_config.h"
#include "probes/ethtool/ethtool_link.h"
#include "probes/ethtool/ethtool_netlink.h"
#include "probes/ethtool/ethtool_netlink_messages.h"
#include "probes/counters/sysfs_counters.h"
#include "tests/support/skip.h"

using namespace fabdiag;

namespace {

// Netdevs of this host driven by virtio_net or veth (no pause/FEC/module support).
std::vector<std::string> virtual_nics() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/sys/class/net", ec)) {
    std::string name = e.path().filename();
    auto drv = std::filesystem::read_symlink(e.path() / "device" / "driver", ec);
    std::string d = ec ? "" : drv.filename().string();
    std::ifstream uevent(e.path() / "uevent");
    std::string line, kind;
    while (std::getline(uevent, line))
      if (line == "DEVTYPE=veth") kind = "veth";
    if (d == "virtio_net" || kind == "veth") out.push_back(name);
  }
  return out;
}

// Empty when the kernel answers the ethtool family on lo, else why it does not.
std::string family_unavailable_reason(const EthtoolNetlinkTransport& t) {
  auto r = t.request(ethnl::kMsgLinkstateGet, encode_header_request(ethnl::kLinkstateHeader, "lo", 0));
  return r.ok() ? "" : "ethtool netlink not usable here: " + r.error().to_string();
}

}  // namespace

TEST_CASE("live ethtool netlink: lo answers LINKSTATE, refuses LINKMODES/PAUSE with EOPNOTSUPP") {
  auto t = make_libnl_ethtool_transport();
  if (!FABDIAG_HAVE_LIBNL) {
    auto r = t->request(ethnl::kMsgLinkstateGet, encode_header_request(1, "lo", 0));
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::kUnsupported);
    FABDIAG_SKIP_TEST("built without libnl (the stub answered kUnsupported as it should)");
  }
  if (auto why = family_unavailable_reason(*t); !why.empty()) FABDIAG_SKIP_TEST(why);
  LinkFacts f;
  std::vector<NetlinkStat> stats;
  auto ls = t->request(ethnl::kMsgLinkstateGet, encode_header_request(ethnl::kLinkstateHeader, "lo", 0));
  REQUIRE(ls.ok());
  CHECK(ls->error == 0);
  REQUIRE(ls->messages.size() == 1);
  REQUIRE(decode_linkstate_reply(ls->messages[0], f, stats).ok());
  CHECK(f.link_up.value_or(false));  // lo is always up

  auto lm = t->request(ethnl::kMsgLinkmodesGet, encode_header_request(ethnl::kLinkmodesHeader, "lo", 0));
  REQUIRE(lm.ok());
  CHECK(lm->error == EOPNOTSUPP);
  auto pause = t->request(ethnl::kMsgPauseGet, encode_header_request(ethnl::kPauseHeader, "lo", ethnl::kFlagStats));
  REQUIRE(pause.ok());
  CHECK(pause->error == EOPNOTSUPP);
  // A netdev that does not exist: ENODEV, and the next request still works (ACK handling).
  auto none = t->request(ethnl::kMsgLinkstateGet, encode_header_request(1, "fabdiag-nosuch", 0));
  REQUIRE(none.ok());
  CHECK(none->error == ENODEV);
  auto again = t->request(ethnl::kMsgLinkstateGet, encode_header_request(1, "lo", 0));
  REQUIRE(again.ok());
  CHECK(again->error == 0);
  CHECK(again->messages.size() == 1);
  CHECK(t->describe().find("family \"ethtool\" id") != std::string::npos);
}

TEST_CASE("live ethtool netlink: virtio/veth NICs give link facts and 'not supported', no failure") {
  auto t = make_libnl_ethtool_transport();
  if (!FABDIAG_HAVE_LIBNL) FABDIAG_SKIP_TEST("built without libnl");
  if (auto why = family_unavailable_reason(*t); !why.empty()) FABDIAG_SKIP_TEST(why);
  auto nics = virtual_nics();
  if (nics.empty()) FABDIAG_SKIP_TEST("no virtio_net or veth interface on this machine");
  SocketEthtoolIoctl io;
  NetlinkEthtoolLinkSource src(*t, io);
  for (const auto& nd : nics) {
    CAPTURE(nd);
    auto r = src.read(nd, "", EthtoolLinkReadOptions{});
    REQUIRE(r.link.has_value());
    CHECK(r.link->source == "ethtool netlink");
    CHECK(r.link->link_up.has_value());
    CHECK_FALSE(r.module.has_value());
    bool pause_unsupported = false;
    for (const auto& g : r.gaps) {
      CHECK_FALSE(is_failure(g));
      if (g.code == ErrorCode::kUnsupported && g.message.find("PAUSE_GET") != std::string::npos &&
          g.message.find("FEC_GET") != std::string::npos &&
          g.message.find("MODULE_EEPROM_GET") != std::string::npos)
        pause_unsupported = true;
    }
    CHECK(pause_unsupported);
  }
}
