#include <doctest/doctest.h>

#include <linux/ethtool.h>

#include <cerrno>
#include <cstddef>
#include <cstring>

#include "tests/support/temp_tree.h"
#include "tests/support/fake_ethtool_netlink.h"
#include "tests/support/module_page_builder.h"
#include "probes/ethtool/ethtool_ioctl_link.h"
#include "probes/ethtool/ethtool_link.h"
#include "probes/counters/sysfs_counters.h"

using namespace fabdiag;
using namespace fabdiag::testing;

namespace {

// A fake SIOCETHTOOL kernel for the link fallback: GLINK, GLINKSETTINGS (with the nwords
// handshake), GFECPARAM, GMODULEINFO/GMODULEEEPROM.
class FakeLinkIoctl : public EthtoolIoctl {
 public:
  std::optional<ModuleMemory> module;  // SFF-8636, answered as a 640-byte flat image
  int module_errno = 0;
  bool fec_supported = true;
  mutable int settings_calls = 0;

  int call(const std::string&, void* data) const override {
    uint32_t cmd;
    std::memcpy(&cmd, data, 4);
    switch (cmd) {
      case ETHTOOL_GLINK: static_cast<ethtool_value*>(data)->data = 1; return 0;
      case ETHTOOL_GLINKSETTINGS: {
        ++settings_calls;
        auto* ls = static_cast<ethtool_link_settings*>(data);
        if (ls->link_mode_masks_nwords == 0) {
          ls->link_mode_masks_nwords = -3;  // "ask again with 3 words"
          return 0;
        }
        if (ls->link_mode_masks_nwords != 3) return EINVAL;
        ls->speed = 100000;
        ls->duplex = DUPLEX_FULL;
        ls->autoneg = AUTONEG_DISABLE;
        return 0;
      }
      case ETHTOOL_GFECPARAM:
        if (!fec_supported) return EOPNOTSUPP;
        static_cast<ethtool_fecparam*>(data)->active_fec = ETHTOOL_FEC_RS;
        return 0;
      case ETHTOOL_GMODULEINFO: {
        if (module_errno) return module_errno;
        if (!module) return EOPNOTSUPP;
        auto* mi = static_cast<ethtool_modinfo*>(data);
        mi->type = ETH_MODULE_SFF_8636;
        mi->eeprom_len = ETH_MODULE_SFF_8636_MAX_LEN;
        return 0;
      }
      case ETHTOOL_GMODULEEEPROM: {
        auto* ee = static_cast<ethtool_eeprom*>(data);
        auto* out = reinterpret_cast<uint8_t*>(ee) + offsetof(ethtool_eeprom, data);
        for (unsigned i = 0; i < ee->len; ++i) {
          unsigned page = i < 256 ? 0 : (i - 256) / 128 + 1;
          unsigned off = i < 256 ? i : 128 + (i - 256) % 128;
          out[i] = module->byte(kModuleI2cA0, 0, static_cast<uint8_t>(page), off).value_or(0);
        }
        return 0;
      }
      default: return EOPNOTSUPP;
    }
  }
};

// A ConnectX-like port: every request answers.
FakeEthtoolFamily healthy_nic() {
  FakeEthtoolFamily f;
  f.replies[ethnl::kMsgLinkmodesGet] = linkmodes_reply(400000, 4, 1, 0);
  f.replies[ethnl::kMsgLinkstateGet] = linkstate_reply(true, std::nullopt, std::nullopt, std::nullopt);
  f.replies_with_stats[ethnl::kMsgLinkstateGet] = linkstate_reply(true, std::nullopt, std::nullopt, 2);
  f.replies[ethnl::kMsgPauseGet] = pause_reply(true, true, std::nullopt);
  f.replies_with_stats[ethnl::kMsgPauseGet] = pause_reply(true, true, std::make_pair(uint64_t{5}, uint64_t{900}));
  f.replies[ethnl::kMsgFecGet] = fec_reply(ethnl::kLinkModeFecRs, {}, {}, {});
  f.replies_with_stats[ethnl::kMsgFecGet] = fec_reply(ethnl::kLinkModeFecRs, {1000, 250, 250, 250, 250}, {4, 0, 4, 0, 0}, {2000});
  NlAttrWriter w;
  stats_group(w, 1, {{4, 17}, {12, 123456}});
  stats_group(w, 0, {{0, 3}});
  f.replies[ethnl::kMsgStatsGet] = w.bytes();
  f.module = sff8636_pages(OpticsSpec{});
  return f;
}

const Counter* find(const std::vector<Counter>& cs, const std::string& name) {
  for (const auto& c : cs)
    if (c.name == name) return &c;
  return nullptr;
}

}  // namespace

TEST_CASE("netlink source: link facts, statistics as classified counters, module diagnostics") {
  FakeEthtoolFamily nl = healthy_nic();
  FakeLinkIoctl io;
  NetlinkEthtoolLinkSource src(nl, io);
  auto r = src.read("ens1f0np0", "mlx5_core", EthtoolLinkReadOptions{});
  CHECK(r.gaps.empty());
  REQUIRE(r.link.has_value());
  CHECK(r.link->netdev == "ens1f0np0");
  CHECK(*r.link->speed_mbps == 400000);
  CHECK(*r.link->lanes == 4);
  CHECK(*r.link->link_up);
  CHECK(*r.link->link_down_events == 2);
  CHECK(r.link->fec_active == "RS");
  CHECK(*r.link->pause_rx);
  CHECK(r.link->source == "ethtool netlink");

  const Counter* fcs = find(r.counters, "eth-mac-FrameCheckSequenceErrors");
  REQUIRE(fcs);
  CHECK(fcs->value == 17);
  CHECK(fcs->group == CounterGroup::kEthtoolStats);
  CHECK(fcs->category == CounterCategory::kPhyError);
  CHECK(fcs->canonical == "eth-mac-FrameCheckSequenceErrors");
  CHECK(fcs->rule == CounterRule::kPerHour);
  CHECK(fcs->device == "ens1f0np0");
  CHECK(fcs->source == "ethtool netlink STATS_GET eth-mac (ens1f0np0)");
  const Counter* octets = find(r.counters, "eth-mac-OctetsReceivedOK");
  REQUIRE(octets);
  CHECK(octets->unit == "bytes");
  CHECK(octets->category == CounterCategory::kTraffic);
  const Counter* uncorr = find(r.counters, "fec-uncorrectable_blocks");
  REQUIRE(uncorr);
  CHECK(uncorr->value == 4);
  CHECK(uncorr->canonical == "fec_uncorrectable_blocks");  // an alias in the knowledge base
  CHECK(uncorr->rule == CounterRule::kAnyGrowth);
  REQUIRE(find(r.counters, "fec-uncorrectable_blocks_lane1"));
  CHECK(find(r.counters, "fec-uncorrectable_blocks_lane1")->value == 4);
  CHECK(find(r.counters, "fec-uncorrectable_blocks_lane1")->rule == CounterRule::kInfo);  // the total is judged
  CHECK(find(r.counters, "fec-corrected_bits")->unit == "bits");
  CHECK(find(r.counters, "pause-rx_pause_frames")->value == 900);
  CHECK(find(r.counters, "pause-rx_pause_frames")->category == CounterCategory::kPause);
  CHECK(find(r.counters, "linkstate-link_down_events")->category == CounterCategory::kLink);
  CHECK(find(r.counters, "linkstate-link_down_events")->canonical == "link_down_events");
  // Every statistic the netlink source makes is in the knowledge base (one source of meaning).
  for (const auto& c : r.counters) {
    INFO(c.name);
    CHECK(c.category != CounterCategory::kUnknown);
    CHECK(c.rule != CounterRule::kUnknown);
  }
  CHECK(find(r.counters, "eth-phy-SymbolErrorDuringCarrier")->value == 3);

  REQUIRE(r.module.has_value());
  CHECK(r.module->netdev == "ens1f0np0");
  CHECK(r.module->standard == ModuleStandard::kSff8636);
  CHECK(r.module->rx_power_limits_mw.low_warning.has_value());  // page 03h was fetched
  CHECK(r.module->source == "ethtool netlink MODULE_EEPROM_GET (ens1f0np0)");

  // Requests: stats flag on LINKSTATE/PAUSE/FEC, none on LINKMODES; 3 module reads.
  for (const auto& s : nl.seen) {
    CHECK(s.netdev == "ens1f0np0");
    CHECK(s.header_nested_flag);
    bool stats_type = s.cmd == ethnl::kMsgLinkstateGet || s.cmd == ethnl::kMsgPauseGet || s.cmd == ethnl::kMsgFecGet;
    CHECK((s.flags == ethnl::kFlagStats) == stats_type);
  }
  CHECK(nl.count(ethnl::kMsgModuleEepromGet) == 3);
}

TEST_CASE("netlink source on a veth/virtio-like driver: EOPNOTSUPP is one 'not supported' gap, not an error") {
  FakeEthtoolFamily nl;
  nl.replies[ethnl::kMsgLinkmodesGet] = linkmodes_reply(10000, 0, 1, 0);
  nl.replies[ethnl::kMsgLinkstateGet] = linkstate_reply(true, std::nullopt, std::nullopt, std::nullopt);
  nl.replies[ethnl::kMsgStatsGet] = {};  // answers, with no group
  // PAUSE, FEC and MODULE_EEPROM have no reply: the fake answers EOPNOTSUPP.
  FakeLinkIoctl io;
  auto r = NetlinkEthtoolLinkSource(nl, io).read("veth0", "veth", EthtoolLinkReadOptions{});
  REQUIRE(r.link.has_value());
  CHECK(*r.link->speed_mbps == 10000);
  CHECK(r.counters.empty());
  CHECK_FALSE(r.module.has_value());
  REQUIRE(r.gaps.size() == 1);
  CHECK(r.gaps[0].code == ErrorCode::kUnsupported);
  CHECK_FALSE(is_failure(r.gaps[0]));
  CHECK(r.gaps[0].message == "not supported by the driver (EOPNOTSUPP): PAUSE_GET, FEC_GET, MODULE_EEPROM_GET");
  CHECK(r.gaps[0].source == "ethtool netlink veth0");
}

TEST_CASE("a kernel without the stats flag on a request type: EINVAL, then the same request without it") {
  FakeEthtoolFamily nl = healthy_nic();
  nl.einval_on_stats = {ethnl::kMsgLinkstateGet, ethnl::kMsgPauseGet};
  FakeLinkIoctl io;
  auto r = NetlinkEthtoolLinkSource(nl, io).read("ens1f0np0", "mlx5_core", EthtoolLinkReadOptions{});
  CHECK(r.gaps.empty());
  CHECK(nl.count(ethnl::kMsgLinkstateGet) == 2);
  CHECK(nl.count(ethnl::kMsgPauseGet) == 2);
  CHECK(nl.count(ethnl::kMsgFecGet) == 1);
  REQUIRE(r.link.has_value());
  CHECK(*r.link->link_up);
  CHECK_FALSE(r.link->link_down_events.has_value());  // no stats on that kernel
  CHECK(find(r.counters, "pause-rx_pause_frames") == nullptr);
  CHECK(find(r.counters, "fec-uncorrectable_blocks") != nullptr);
}

TEST_CASE("stats and module reads can be switched off (the --watch loop)") {
  FakeEthtoolFamily nl = healthy_nic();
  FakeLinkIoctl io;
  EthtoolLinkReadOptions o;
  o.stats = false;
  o.module_eeprom = false;
  auto r = NetlinkEthtoolLinkSource(nl, io).read("ens1f0np0", "mlx5_core", o);
  CHECK(r.counters.empty());
  CHECK_FALSE(r.module.has_value());
  CHECK(nl.count(ethnl::kMsgStatsGet) == 0);
  CHECK(nl.count(ethnl::kMsgModuleEepromGet) == 0);
  for (const auto& s : nl.seen) CHECK(s.flags == 0);
}

TEST_CASE("module EEPROM errors: EPERM needs CAP_NET_ADMIN, EIO is no module, a failing extra page is a note") {
  FakeLinkIoctl io;
  {
    FakeEthtoolFamily nl = healthy_nic();
    nl.module_errno = EPERM;
    auto r = NetlinkEthtoolLinkSource(nl, io).read("ens1f0np0", "", EthtoolLinkReadOptions{});
    REQUIRE(r.gaps.size() == 1);
    CHECK(r.gaps[0].code == ErrorCode::kPermission);
    CHECK(r.gaps[0].message.find("CAP_NET_ADMIN") != std::string::npos);
  }
  {
    FakeEthtoolFamily nl = healthy_nic();
    nl.module_errno = EIO;
    auto r = NetlinkEthtoolLinkSource(nl, io).read("ens1f0np0", "", EthtoolLinkReadOptions{});
    REQUIRE(r.gaps.size() == 1);
    CHECK(r.gaps[0].code == ErrorCode::kNotFound);
    CHECK(r.gaps[0].message.find("no module") != std::string::npos);
    CHECK(nl.count(ethnl::kMsgModuleEepromGet) == 1);  // stops after the first read
  }
  {
    FakeEthtoolFamily nl = healthy_nic();
    nl.unreadable_pages = {3};
    auto r = NetlinkEthtoolLinkSource(nl, io).read("ens1f0np0", "", EthtoolLinkReadOptions{});
    CHECK(r.gaps.empty());
    REQUIRE(r.module.has_value());
    CHECK_FALSE(r.module->rx_power_limits_mw.any());
    bool noted = false;
    for (const auto& n : r.module->notes) noted |= n.find("page 03h bank 0 not readable") != std::string::npos;
    CHECK(noted);
  }
}

TEST_CASE("ENODEV stops the netdev with a kNotFound gap, a socket failure stops it with that error") {
  FakeLinkIoctl io;
  FakeEthtoolFamily gone;
  gone.errors[ethnl::kMsgLinkmodesGet] = ENODEV;
  auto r = NetlinkEthtoolLinkSource(gone, io).read("eth9", "", EthtoolLinkReadOptions{});
  REQUIRE(r.gaps.size() == 1);
  CHECK(r.gaps[0].code == ErrorCode::kNotFound);
  CHECK(gone.seen.size() == 1);
  CHECK_FALSE(r.link.has_value());

  FakeEthtoolFamily broken;
  broken.broken = true;
  r = NetlinkEthtoolLinkSource(broken, io).read("eth0", "", EthtoolLinkReadOptions{});
  REQUIRE(r.gaps.size() == 1);
  CHECK(r.gaps[0].code == ErrorCode::kIo);
  CHECK(is_failure(r.gaps[0]));
}

TEST_CASE("a malformed reply is a kParse gap naming the request, the other requests still count") {
  FakeEthtoolFamily nl = healthy_nic();
  nl.replies[ethnl::kMsgLinkmodesGet] = {8, 0, 5, 0, 1};  // SPEED attribute cut short
  FakeLinkIoctl io;
  auto r = NetlinkEthtoolLinkSource(nl, io).read("ens1f0np0", "", EthtoolLinkReadOptions{});
  REQUIRE(r.gaps.size() == 1);
  CHECK(r.gaps[0].code == ErrorCode::kParse);
  CHECK(r.gaps[0].to_string().find("LINKMODES_GET") != std::string::npos);
  REQUIRE(r.link.has_value());
  CHECK(*r.link->link_up);
}

TEST_CASE("no ethtool netlink family: the ioctl gives link settings, FEC and the module EEPROM") {
  FakeEthtoolFamily nl;
  nl.missing = true;
  FakeLinkIoctl io;
  io.module = sff8636_pages(OpticsSpec{});
  io.fec_supported = false;
  NetlinkEthtoolLinkSource src(nl, io);
  auto r = src.read("ens1f0np0", "mlx5_core", EthtoolLinkReadOptions{});
  REQUIRE(r.link.has_value());
  CHECK(*r.link->speed_mbps == 100000);
  CHECK(r.link->duplex == "full");
  CHECK_FALSE(*r.link->autoneg);
  CHECK(*r.link->link_up);
  CHECK(r.link->fec_active.empty());
  CHECK(r.link->source == "SIOCETHTOOL ioctl");
  CHECK(src.describe() == "fake ethtool family, SIOCETHTOOL ioctl as fallback");
  CHECK(io.settings_calls == 2);  // the nwords handshake
  REQUIRE(r.module.has_value());
  CHECK(r.module->rx_power_limits_mw.low_warning.has_value());  // page 03h from the 640-byte image
  CHECK(r.module->source == "SIOCETHTOOL ETHTOOL_GMODULEEEPROM (ens1f0np0)");
  REQUIRE(r.gaps.size() == 1);
  CHECK(r.gaps[0].code == ErrorCode::kUnsupported);
  CHECK(r.gaps[0].message.find("ETHTOOL_GFECPARAM") != std::string::npos);
  CHECK(r.counters.empty());
}

TEST_CASE("ioctl fallback: module EEPROM needs CAP_NET_ADMIN") {
  FakeLinkIoctl io;
  io.module_errno = EPERM;
  auto m = read_module_eeprom_ioctl(io, "eth0");
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().code == ErrorCode::kPermission);
  CHECK(m.error().message.find("CAP_NET_ADMIN") != std::string::npos);
  io.module_errno = EIO;
  m = read_module_eeprom_ioctl(io, "eth0");
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().code == ErrorCode::kNotFound);
}

TEST_CASE("fixture source: module pages from ethtool-module/<netdev>, absent file says nothing") {
  TempTree t;
  OpticsSpec s;
  s.rx_mw = {0.05, 0.05, 0.05, 0.05};
  t.file("ethtool-module/ens1f0np0", format_module_pages_text(sff8636_pages(s)));
  t.file("ethtool-module/bad0", "i2c 0x50 bank 0 page 0 offset 0\nzz\n");
  FixtureEthtoolLinkSource src(FsRoot(t.root(), "/proc"));
  auto r = src.read("ens1f0np0", "", EthtoolLinkReadOptions{});
  CHECK(r.gaps.empty());
  REQUIRE(r.module.has_value());
  CHECK(*r.module->lanes[0].rx_power_mw == doctest::Approx(0.05));
  CHECK(r.module->source == t.root() + "/ethtool-module/ens1f0np0");
  CHECK_FALSE(r.link.has_value());

  auto none = src.read("eth1", "", EthtoolLinkReadOptions{});
  CHECK(none.gaps.empty());
  CHECK_FALSE(none.module.has_value());

  auto bad = src.read("bad0", "", EthtoolLinkReadOptions{});
  REQUIRE(bad.gaps.size() == 1);
  CHECK(bad.gaps[0].code == ErrorCode::kParse);
}

TEST_CASE("snapshot: a link source adds links, optics and netlink counters per netdev, skipping lo") {
  TempTree t;
  t.file("class/net/ens1f0np0/type", "1");
  t.file("class/net/ens1f0np0/operstate", "up");
  t.file("class/net/ens1f0np0/statistics/rx_bytes", "10");
  t.file("class/net/lo/type", "772");
  t.file("class/net/lo/operstate", "unknown");
  FakeEthtoolFamily nl = healthy_nic();
  FakeLinkIoctl io;
  NetlinkEthtoolLinkSource src(nl, io);
  CounterReadOptions ro;
  ro.link = &src;
  auto snap = read_counter_snapshot(FsRoot(t.root(), "/proc"), ro);
  REQUIRE(snap.links.size() == 1);
  CHECK(snap.links[0].netdev == "ens1f0np0");
  REQUIRE(snap.optics.size() == 1);
  CHECK(snap.optics[0].netdev == "ens1f0np0");
  CHECK(find(snap.samples, "eth-mac-FrameCheckSequenceErrors") != nullptr);
  for (const auto& s : nl.seen) CHECK(s.netdev == "ens1f0np0");  // lo never asked

  ro.module_eeprom = false;
  nl.seen.clear();
  snap = read_counter_snapshot(FsRoot(t.root(), "/proc"), ro);
  CHECK(snap.optics.empty());
  CHECK(nl.count(ethnl::kMsgModuleEepromGet) == 0);
}
