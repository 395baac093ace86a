#include "probes/ethtool/ethtool_ioctl.h"

#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>

#include "probes/counters/ethtool_s_text.h"

namespace fabdiag {
namespace {

constexpr int kAttempts = 3;
constexpr uint32_t kMaxStats = 1u << 16;  // no driver has more; guards a garbage count

Error ioctl_error(int err, const std::string& netdev, const char* what) {
  std::string msg = std::string(what) + " failed: " + std::strerror(err);
  ErrorCode code = ErrorCode::kIo;
  switch (err) {
    case EOPNOTSUPP:
      code = ErrorCode::kUnsupported;
      msg = std::string("driver has no ethtool statistics (") + what + ": " + std::strerror(err) + ")";
      break;
    case ENODEV:
    case ENXIO: code = ErrorCode::kNotFound; break;
    case EPERM:
    case EACCES: code = ErrorCode::kPermission; break;
    default: break;
  }
  return make_error(code, msg, "ethtool -S " + netdev);
}

// Number of ETH_SS_STATS strings: GSSET_INFO, else GDRVINFO.n_stats (pre-2.6.34 drivers).
Result<uint32_t> query_count(const EthtoolIoctl& io, const std::string& netdev) {
  alignas(8) unsigned char buf[sizeof(ethtool_sset_info) + sizeof(uint32_t)] = {};
  auto* info = reinterpret_cast<ethtool_sset_info*>(buf);
  info->cmd = ETHTOOL_GSSET_INFO;
  info->sset_mask = 1ULL << ETH_SS_STATS;
  int rc = io.call(netdev, info);
  if (rc == 0) {
    if (!(info->sset_mask & (1ULL << ETH_SS_STATS))) return uint32_t{0};
    uint32_t n = 0;
    std::memcpy(&n, buf + offsetof(ethtool_sset_info, data), sizeof n);
    return n;
  }
  if (rc != EOPNOTSUPP && rc != EINVAL) return ioctl_error(rc, netdev, "ETHTOOL_GSSET_INFO");
  ethtool_drvinfo drv{};
  drv.cmd = ETHTOOL_GDRVINFO;
  rc = io.call(netdev, &drv);
  if (rc != 0) return ioctl_error(rc, netdev, "ETHTOOL_GDRVINFO");
  return drv.n_stats;
}

}  // namespace

SocketEthtoolIoctl::SocketEthtoolIoctl() {
  for (int family : {AF_INET, AF_INET6, AF_UNIX}) {
    fd_ = ::socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd_ >= 0) return;
    open_errno_ = errno;
  }
}

SocketEthtoolIoctl::~SocketEthtoolIoctl() {
  if (fd_ >= 0) ::close(fd_);
}

int SocketEthtoolIoctl::call(const std::string& netdev, void* data) const {
  if (fd_ < 0) return open_errno_ ? open_errno_ : EBADF;
  if (netdev.empty() || netdev.size() >= IFNAMSIZ) return EINVAL;
  ifreq ifr{};
  std::memcpy(ifr.ifr_name, netdev.data(), netdev.size());
  ifr.ifr_data = static_cast<char*>(data);
  if (::ioctl(fd_, SIOCETHTOOL, &ifr) != 0) return errno ? errno : EIO;
  return 0;
}

Result<std::vector<EthtoolStat>> read_ethtool_stats(const EthtoolIoctl& io,
                                                    const std::string& netdev) {
  if (netdev.empty() || netdev.size() >= IFNAMSIZ)
    return make_error(ErrorCode::kInvalidArgument,
                      "not a network interface name (1 to 15 characters)", "ethtool -S " + netdev);
  uint32_t last_n = 0, got_n = 0;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    auto count = query_count(io, netdev);
    if (!count) return count.error();
    uint32_t n = *count;
    if (n == 0)
      return make_error(ErrorCode::kUnsupported, "driver reports 0 ethtool statistics",
                        "ethtool -S " + netdev);
    if (n > kMaxStats)
      return make_error(ErrorCode::kIo, "driver reports an implausible statistics count " +
                                            std::to_string(n), "ethtool -S " + netdev);
    last_n = n;
    // The kernel fills as many entries as the driver reports at the time of each call, not
    // as many as we asked for, so leave room for growth and compare the counts it returns.
    const size_t cap = static_cast<size_t>(n) * 2 + 64;

    std::vector<uint64_t> sbuf_storage((sizeof(ethtool_gstrings) + cap * ETH_GSTRING_LEN + 7) / 8);
    auto* gs = reinterpret_cast<ethtool_gstrings*>(sbuf_storage.data());
    gs->cmd = ETHTOOL_GSTRINGS;
    gs->string_set = ETH_SS_STATS;
    gs->len = n;
    int rc = io.call(netdev, gs);
    if (rc != 0) return ioctl_error(rc, netdev, "ETHTOOL_GSTRINGS");
    got_n = gs->len;
    if (gs->len != n) continue;

    std::vector<uint64_t> vbuf_storage((sizeof(ethtool_stats) + cap * sizeof(uint64_t) + 7) / 8);
    auto* st = reinterpret_cast<ethtool_stats*>(vbuf_storage.data());
    st->cmd = ETHTOOL_GSTATS;
    st->n_stats = n;
    rc = io.call(netdev, st);
    if (rc != 0) return ioctl_error(rc, netdev, "ETHTOOL_GSTATS");
    got_n = st->n_stats;
    if (st->n_stats != n) continue;

    const auto* names = reinterpret_cast<const unsigned char*>(gs) + offsetof(ethtool_gstrings, data);
    const auto* values = reinterpret_cast<const unsigned char*>(st) + offsetof(ethtool_stats, data);
    std::vector<EthtoolStat> out;
    out.reserve(n);
    for (uint32_t i = 0; i < n; ++i) {
      const char* p = reinterpret_cast<const char*>(names + static_cast<size_t>(i) * ETH_GSTRING_LEN);
      size_t len = strnlen(p, ETH_GSTRING_LEN);  // not NUL-terminated when exactly 32 long
      EthtoolStat s;
      s.name.assign(p, len);
      if (s.name.empty()) s.name = "unnamed_" + std::to_string(i);
      std::memcpy(&s.value, values + static_cast<size_t>(i) * sizeof(uint64_t), sizeof(uint64_t));
      out.push_back(std::move(s));
    }
    return out;
  }
  return make_error(ErrorCode::kIo,
                    "statistics count kept changing between calls (asked " +
                        std::to_string(last_n) + ", got " + std::to_string(got_n) + ", " +
                        std::to_string(kAttempts) + " attempts)",
                    "ethtool -S " + netdev);
}

Result<EthtoolStats> IoctlEthtoolStatsSource::read_stats(const std::string& netdev) const {
  auto r = read_ethtool_stats(io_, netdev);
  if (!r) return r.error();
  return EthtoolStats{std::move(*r), "ethtool -S " + netdev + " (SIOCETHTOOL)"};
}

Result<EthtoolStats> FixtureEthtoolStatsSource::read_stats(const std::string& netdev) const {
  std::string rel = "ethtool/" + netdev;
  auto text = fs_.read_sys(rel);
  if (!text) return text.error();
  auto parsed = parse_ethtool_s_text(*text, fs_.sys_path(rel), EthtoolSStrictness::kStrict);
  if (!parsed) return parsed.error();
  return EthtoolStats{std::move(parsed->stats), fs_.sys_path(rel)};
}

std::string FixtureEthtoolStatsSource::describe() const {
  return "fixture files ethtool/<netdev> under the sysfs root (ethtool -S text)";
}

std::unique_ptr<EthtoolStatsSource> make_ethtool_stats_source(const FsRoot& fs,
                                                              const EthtoolIoctl& io) {
  if (is_live_sysfs(fs)) return std::make_unique<IoctlEthtoolStatsSource>(io);
  return std::make_unique<FixtureEthtoolStatsSource>(fs);
}

}  // namespace fabdiag
