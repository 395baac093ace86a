// Link facts, standard statistics and module diagnostics of a netdev through ethtool:
// netlink (LINKMODES, LINKSTATE, PAUSE, FEC, STATS, MODULE_EEPROM) with the SIOCETHTOOL ioctl as
// fallback when the "ethtool" netlink family is not usable, or module pages from a fixture.
// What a driver does not support (EOPNOTSUPP, e.g. pause/FEC/module on veth and virtio) is
// "not supported", never an error.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/fs_root.h"
#include "core/result.h"
#include "probes/counters/counter_model.h"
#include "probes/counters/counter_sources.h"
#include "probes/ethtool/ethtool_ioctl.h"
#include "probes/ethtool/ethtool_netlink.h"
#include "probes/ethtool/ethtool_netlink_messages.h"
#include "probes/module/module_eeprom.h"

namespace fabdiag {

/// The live host: netlink through `nl`, with `io` (SIOCETHTOOL) when `nl` answers kUnsupported
/// (no libnl in the build, no "ethtool" family in the kernel). Per request:
///   LINKMODES_GET                       speed, lanes, duplex, autoneg
///   LINKSTATE_GET (+ETHTOOL_FLAG_STATS) link, ext state/substate, link-down count
///   PAUSE_GET (+STATS)                  pause config, tx/rx pause frames
///   FEC_GET (+STATS)                    active FEC, corrected/uncorrectable blocks, corrected bits, per lane
///   STATS_GET groups eth-phy, eth-mac, eth-ctrl, rmon
///   MODULE_EEPROM_GET                   module_base_reads(), then module_extra_reads()
/// A request refused with EINVAL while carrying ETHTOOL_FLAG_STATS is sent again without it
/// (kernels before the stats of that request type). ENODEV stops the netdev (kNotFound).
/// Both `nl` and `io` are borrowed and must outlive this object.
class NetlinkEthtoolLinkSource final : public EthtoolLinkSource {
 public:
  NetlinkEthtoolLinkSource(const EthtoolNetlinkTransport& nl, const EthtoolIoctl& io) : nl_(nl), io_(io) {}
  EthtoolLinkReading read(const std::string& netdev, const std::string& driver,
                          const EthtoolLinkReadOptions& opts) const override;
  std::string describe() const override;

 private:
  const EthtoolNetlinkTransport& nl_;
  const EthtoolIoctl& io_;
};

/// A fixture root: module pages from the logical sysfs path "ethtool-module/<netdev>" (the text
/// of parse_module_pages_text; a path no real /sys has). No link facts or statistics. A missing
/// file means "not captured" and gives nothing, not a gap; a malformed one is a kParse gap.
class FixtureEthtoolLinkSource final : public EthtoolLinkSource {
 public:
  explicit FixtureEthtoolLinkSource(FsRoot fs) : fs_(std::move(fs)) {}
  EthtoolLinkReading read(const std::string& netdev, const std::string& driver,
                          const EthtoolLinkReadOptions& opts) const override;
  std::string describe() const override;

 private:
  FsRoot fs_;
};

/// The source a command should use for `fs`: netlink/ioctl on the live /sys (is_live_sysfs),
/// else the fixture files. `nl` and `io` must outlive the returned object.
std::unique_ptr<EthtoolLinkSource> make_ethtool_link_source(const FsRoot& fs,
                                                            const EthtoolNetlinkTransport& nl,
                                                            const EthtoolIoctl& io);

/// Counters from netlink statistics of `netdev` (group ethtool_stats, source "ethtool netlink
/// <message> (<netdev>)"). Category, canonical name, unit and rule come from the knowledge base
/// (probes/counters/data/counters.json, family ethtool_std), like every other counter.
std::vector<Counter> netlink_stat_counters(const std::string& netdev, const std::string& driver,
                                           const std::vector<NetlinkStat>& stats);

}  // namespace fabdiag
