#include "probes/ethtool/ethtool_link.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "probes/counters/counter_classes.h"
#include "probes/ethtool/ethtool_ioctl_link.h"
#include "probes/counters/sysfs_counters.h"

namespace fabdiag {
namespace {

std::string errno_text(int err, const std::string& ext_ack) {
  std::string s = std::strerror(err);
  if (!ext_ack.empty()) s += ": " + ext_ack;
  return s;
}

std::string page_name(const EepromRead& r) {
  char b[64];
  if (r.i2c_address == kModuleI2cA2) std::snprintf(b, sizeof b, "A2h (I2C 0x51)");
  else std::snprintf(b, sizeof b, "page %02Xh bank %u", r.page, r.bank);
  return b;
}

// One netdev's conversation with the family: sends requests and sorts what comes back into
// replies, "not supported" names and gaps.
class Conversation {
 public:
  Conversation(const EthtoolNetlinkTransport& nl, const std::string& netdev, EthtoolLinkReading& out)
      : nl_(nl), netdev_(netdev), out_(out) {}

  bool netlink_missing() const { return netlink_missing_; }
  bool stopped() const { return stopped_; }
  std::vector<std::string>& unsupported() { return unsupported_; }

  /// Kernel errno of the last request (0 = ok), after the transport answered.
  struct Answer {
    bool sent = false;  // false: the transport failed (gap recorded, or netlink missing)
    int error = 0;
    std::string ext_ack;
    std::vector<std::vector<uint8_t>> messages;
  };

  Answer ask(uint8_t cmd, const std::vector<uint8_t>& attrs) {
    Answer a;
    if (netlink_missing_ || stopped_) return a;
    auto r = nl_.request(cmd, attrs);
    if (!r) {
      if (r.error().code == ErrorCode::kUnsupported) {
        netlink_missing_ = true;
      } else {
        out_.gaps.push_back(r.error().with_context("reading ethtool netlink of " + netdev_));
        stopped_ = true;  // socket trouble: do not hammer it with the remaining requests
      }
      return a;
    }
    a.sent = true;
    a.error = r->error;
    a.ext_ack = r->error_message;
    a.messages = std::move(r->messages);
    return a;
  }

  /// A GET request; with `stats`, ETHTOOL_FLAG_STATS, retried without it on EINVAL. Returns
  /// the replies, or nullopt after recording why there are none.
  std::optional<std::vector<std::vector<uint8_t>>> get(uint8_t cmd, const char* name,
                                                       uint16_t header_attr, bool stats) {
    Answer a = ask(cmd, encode_header_request(header_attr, netdev_, stats ? ethnl::kFlagStats : 0));
    if (a.sent && stats && a.error == EINVAL) a = ask(cmd, encode_header_request(header_attr, netdev_, 0));
    return settle(a, name);
  }

  std::optional<std::vector<std::vector<uint8_t>>> settle(Answer& a, const char* name) {
    if (!a.sent) return std::nullopt;
    if (a.error == 0) return std::move(a.messages);
    if (a.error == EOPNOTSUPP) {
      unsupported_.push_back(name);
    } else if (a.error == ENODEV) {
      stopped_ = true;
      out_.gaps.push_back(make_error(ErrorCode::kNotFound,
                                     std::string(name) + ": no such network interface (" +
                                         errno_text(a.error, a.ext_ack) + ")",
                                     "ethtool netlink " + netdev_));
    } else {
      ErrorCode code = (a.error == EPERM || a.error == EACCES) ? ErrorCode::kPermission : ErrorCode::kIo;
      out_.gaps.push_back(make_error(code, std::string(name) + " failed: " + errno_text(a.error, a.ext_ack),
                                     "ethtool netlink " + netdev_));
    }
    return std::nullopt;
  }

  void parse_gap(const Status& st, const char* name) {
    if (!st) out_.gaps.push_back(st.error().with_context(std::string("decoding ") + name + " of " + netdev_));
  }

 private:
  const EthtoolNetlinkTransport& nl_;
  const std::string& netdev_;
  EthtoolLinkReading& out_;
  bool netlink_missing_ = false;
  bool stopped_ = false;
  std::vector<std::string> unsupported_;
};

// Module EEPROM over netlink: base pages, then the pages the decoder asks for.
void read_module_netlink(Conversation& c, const std::string& netdev, EthtoolLinkReading& out) {
  ModuleMemory mem;
  std::vector<std::string> notes;
  bool first = true;
  auto read_one = [&](const EepromRead& r) -> bool {
    auto a = c.ask(ethnl::kMsgModuleEepromGet, encode_module_eeprom_request(netdev, r));
    if (!a.sent) return false;
    if (a.error != 0) {
      if (first) {
        if (a.error == EOPNOTSUPP) {
          c.unsupported().push_back("MODULE_EEPROM_GET");
        } else {
          ErrorCode code = (a.error == EPERM || a.error == EACCES) ? ErrorCode::kPermission
                           : (a.error == EIO || a.error == ENODEV || a.error == ENXIO ||
                              a.error == ENOENT)
                               ? ErrorCode::kNotFound
                               : ErrorCode::kIo;
          std::string why = code == ErrorCode::kNotFound ? "no module readable (no module plugged?): "
                            : code == ErrorCode::kPermission ? "needs CAP_NET_ADMIN (run as root): "
                                                             : "";
          out.gaps.push_back(make_error(code, "MODULE_EEPROM_GET: " + why + errno_text(a.error, a.ext_ack),
                                        "ethtool netlink " + netdev));
        }
      } else {
        notes.push_back(page_name(r) + " not readable: " + errno_text(a.error, a.ext_ack));
      }
      return false;
    }
    for (const auto& m : a.messages) {
      auto data = decode_module_eeprom_reply(m);
      if (!data) {
        c.parse_gap(data.error(), "MODULE_EEPROM_GET");
        return false;
      }
      mem.store(r.i2c_address, r.bank, r.page, r.offset, *data);
    }
    return true;
  };
  for (const auto& r : module_base_reads()) {
    bool ok = read_one(r);
    bool was_first = first;
    first = false;
    if (!ok && was_first) return;
  }
  for (const auto& r : module_extra_reads(mem)) read_one(r);
  auto d = decode_module_eeprom(mem);
  if (!d) {
    out.gaps.push_back(d.error().with_context("decoding the module EEPROM of " + netdev));
    return;
  }
  d->netdev = netdev;
  d->source = "ethtool netlink MODULE_EEPROM_GET (" + netdev + ")";
  d->notes.insert(d->notes.end(), notes.begin(), notes.end());
  out.module = std::move(*d);
}

void unsupported_gap(const std::vector<std::string>& names, const std::string& source,
                     EthtoolLinkReading& out) {
  if (names.empty()) return;
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  out.gaps.push_back(make_error(ErrorCode::kUnsupported,
                                "not supported by the driver (EOPNOTSUPP): " + list, source));
}

// Why netlink is unusable is said once, in describe(); each netdev's facts name the ioctl.
void read_ioctl_fallback(const EthtoolIoctl& io, const std::string& netdev,
                         const EthtoolLinkReadOptions& opts, EthtoolLinkReading& out) {
  std::vector<std::string> unsupported;
  auto lf = read_link_facts_ioctl(io, netdev, unsupported);
  if (!lf) {
    out.gaps.push_back(lf.error());
    return;
  }
  out.link = std::move(*lf);
  if (opts.module_eeprom) {
    auto mem = read_module_eeprom_ioctl(io, netdev);
    if (mem) {
      auto d = decode_module_eeprom(*mem);
      if (d) {
        d->netdev = netdev;
        d->source = "SIOCETHTOOL ETHTOOL_GMODULEEEPROM (" + netdev + ")";
        out.module = std::move(*d);
      } else {
        out.gaps.push_back(d.error().with_context("decoding the module EEPROM of " + netdev));
      }
    } else if (mem.error().code == ErrorCode::kUnsupported) {
      unsupported.push_back("ETHTOOL_GMODULEINFO");
    } else {
      out.gaps.push_back(mem.error());
    }
  }
  unsupported_gap(unsupported, "SIOCETHTOOL " + netdev, out);
}

// True when a reply said anything at all (ifb answers LINKSTATE with no attribute).
bool has_facts(const LinkFacts& f) {
  return f.speed_mbps || f.lanes || !f.duplex.empty() || f.autoneg || f.link_up || f.ext_state ||
         f.link_down_events || f.pause_autoneg || f.pause_rx || f.pause_tx || !f.fec_active.empty();
}

}  // namespace

std::vector<Counter> netlink_stat_counters(const std::string& netdev, const std::string& driver,
                                           const std::vector<NetlinkStat>& stats) {
  std::vector<Counter> out;
  for (const auto& s : stats) {
    out.push_back(make_counter(netdev, CounterGroup::kEthtoolStats, s.name, s.value, driver,
                               "ethtool netlink " + s.message + " (" + netdev + ")"));
  }
  return out;
}

EthtoolLinkReading NetlinkEthtoolLinkSource::read(const std::string& netdev, const std::string& driver,
                                                  const EthtoolLinkReadOptions& opts) const {
  EthtoolLinkReading out;
  Conversation c(nl_, netdev, out);
  LinkFacts facts;
  facts.netdev = netdev;
  facts.source = "ethtool netlink";
  std::vector<NetlinkStat> stats;
  bool answered = false;

  if (auto r = c.get(ethnl::kMsgLinkmodesGet, "LINKMODES_GET", ethnl::kLinkmodesHeader, false)) {
    answered = true;
    for (const auto& m : *r) c.parse_gap(decode_linkmodes_reply(m, facts), "LINKMODES_GET");
  }
  if (c.netlink_missing()) {
    read_ioctl_fallback(io_, netdev, opts, out);
    return out;
  }
  if (auto r = c.get(ethnl::kMsgLinkstateGet, "LINKSTATE_GET", ethnl::kLinkstateHeader, opts.stats)) {
    answered = true;
    for (const auto& m : *r) c.parse_gap(decode_linkstate_reply(m, facts, stats), "LINKSTATE_GET");
  }
  if (auto r = c.get(ethnl::kMsgPauseGet, "PAUSE_GET", ethnl::kPauseHeader, opts.stats)) {
    answered = true;
    for (const auto& m : *r) c.parse_gap(decode_pause_reply(m, facts, stats), "PAUSE_GET");
  }
  if (auto r = c.get(ethnl::kMsgFecGet, "FEC_GET", ethnl::kFecHeader, opts.stats)) {
    answered = true;
    for (const auto& m : *r) c.parse_gap(decode_fec_reply(m, facts, stats), "FEC_GET");
  }
  if (opts.stats) {
    Conversation::Answer a = c.ask(ethnl::kMsgStatsGet, encode_stats_request(netdev));
    if (auto r = c.settle(a, "STATS_GET"))
      for (const auto& m : *r) c.parse_gap(decode_stats_reply(m, stats), "STATS_GET");
  }
  if (opts.module_eeprom && !c.stopped()) read_module_netlink(c, netdev, out);

  if (answered && has_facts(facts)) out.link = std::move(facts);
  out.counters = netlink_stat_counters(netdev, driver, stats);
  unsupported_gap(c.unsupported(), "ethtool netlink " + netdev, out);
  return out;
}

std::string NetlinkEthtoolLinkSource::describe() const {
  return nl_.describe() + ", SIOCETHTOOL ioctl as fallback";
}

EthtoolLinkReading FixtureEthtoolLinkSource::read(const std::string& netdev, const std::string&,
                                                  const EthtoolLinkReadOptions& opts) const {
  EthtoolLinkReading out;
  if (!opts.module_eeprom) return out;
  const std::string rel = "ethtool-module/" + netdev;
  auto text = fs_.read_sys(rel);
  if (!text) {
    if (text.error().code != ErrorCode::kNotFound) out.gaps.push_back(text.error());
    return out;  // not captured: nothing to say
  }
  auto mem = parse_module_pages_text(*text, fs_.sys_path(rel));
  if (!mem) {
    out.gaps.push_back(mem.error());
    return out;
  }
  auto d = decode_module_eeprom(*mem);
  if (!d) {
    out.gaps.push_back(d.error().with_context("decoding " + fs_.sys_path(rel)));
    return out;
  }
  d->netdev = netdev;
  d->source = fs_.sys_path(rel);
  out.module = std::move(*d);
  return out;
}

std::string FixtureEthtoolLinkSource::describe() const {
  return "fixture files ethtool-module/<netdev> under the sysfs root (module EEPROM pages)";
}

std::unique_ptr<EthtoolLinkSource> make_ethtool_link_source(const FsRoot& fs,
                                                            const EthtoolNetlinkTransport& nl,
                                                            const EthtoolIoctl& io) {
  if (is_live_sysfs(fs)) return std::make_unique<NetlinkEthtoolLinkSource>(nl, io);
  return std::make_unique<FixtureEthtoolLinkSource>(fs);
}

}  // namespace fabdiag
