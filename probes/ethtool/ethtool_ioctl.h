// Driver statistics (`ethtool -S`) of a netdev: the legacy SIOCETHTOOL ioctl path of
// docs/domain.md#ethtool-ioctl, behind a small interface so the counters code can be tested with a
// fake and so a fixture run never reads the live host. A later issue adds an ethtool-netlink
// source.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/fs_root.h"
#include "core/result.h"
#include "probes/counters/counter_sources.h"

namespace fabdiag {

/// One SIOCETHTOOL call, the seam between the algorithm and the kernel.
class EthtoolIoctl {
 public:
  virtual ~EthtoolIoctl() = default;
  /// ioctl(fd, SIOCETHTOOL, ifreq{netdev, data}); `data` points to a struct ethtool_* whose
  /// first u32 is the command. Returns 0 on success or a positive errno value.
  virtual int call(const std::string& netdev, void* data) const = 0;
};

/// The real transport: an AF_INET (else AF_INET6, AF_UNIX) datagram socket opened once.
/// Unprivileged (GSSET_INFO, GDRVINFO, GSTRINGS, GSTATS need no capability). Reads the network
/// namespace the process runs in.
class SocketEthtoolIoctl final : public EthtoolIoctl {
 public:
  SocketEthtoolIoctl();
  ~SocketEthtoolIoctl() override;
  SocketEthtoolIoctl(const SocketEthtoolIoctl&) = delete;
  SocketEthtoolIoctl& operator=(const SocketEthtoolIoctl&) = delete;
  int call(const std::string& netdev, void* data) const override;

 private:
  int fd_ = -1;
  int open_errno_ = 0;
};

/// Reads all driver statistics of `netdev` through `io`, as docs/domain.md#ethtool-ioctl describes:
/// ETHTOOL_GSSET_INFO (sset_mask = 1 << ETH_SS_STATS) for the count, falling back to
/// ETHTOOL_GDRVINFO n_stats when GSSET_INFO is refused; ETHTOOL_GSTRINGS (names of 32 bytes,
/// NUL-padded but not always NUL-terminated); ETHTOOL_GSTATS. When the kernel returns another
/// count than asked (firmware groups or channels changed), starts again (3 attempts).
/// Buffers get headroom because the kernel writes as many entries as the driver has *now*.
/// Errors: kUnsupported (EOPNOTSUPP, or 0 statistics), kNotFound (ENODEV: the netdev vanished),
/// kPermission, kInvalidArgument (name longer than IFNAMSIZ-1), kIo (count kept changing, other
/// errno). Every message names the netdev and the command.
Result<std::vector<EthtoolStat>> read_ethtool_stats(const EthtoolIoctl& io, const std::string& netdev);

/// Driver statistics through SIOCETHTOOL (the live host).
class IoctlEthtoolStatsSource final : public EthtoolStatsSource {
 public:
  /// Uses `io` (not owned; must outlive this object).
  explicit IoctlEthtoolStatsSource(const EthtoolIoctl& io) : io_(io) {}
  Result<EthtoolStats> read_stats(const std::string& netdev) const override;
  std::string describe() const override { return "SIOCETHTOOL ioctl (live host)"; }

 private:
  const EthtoolIoctl& io_;
};

/// Driver statistics captured next to a fixture: the text of `ethtool -S <netdev>` in the
/// logical sysfs path "ethtool/<netdev>" of the fixture root (a path no real /sys has), parsed
/// strictly (probes/counters/ethtool_s_text.h).
/// Errors: kNotFound when the file is absent (the normal case), kParse when a line is malformed.
class FixtureEthtoolStatsSource final : public EthtoolStatsSource {
 public:
  /// `fs` is copied.
  explicit FixtureEthtoolStatsSource(FsRoot fs) : fs_(std::move(fs)) {}
  Result<EthtoolStats> read_stats(const std::string& netdev) const override;
  std::string describe() const override;

 private:
  FsRoot fs_;
};

/// The source a command should use for `fs`: the ioctl when `fs` reads the live /sys (the ioctl
/// would read the live host, so never on a fixture), else the fixture files.
/// `io` is used only for the live host and must outlive the returned object.
std::unique_ptr<EthtoolStatsSource> make_ethtool_stats_source(const FsRoot& fs, const EthtoolIoctl& io);

}  // namespace fabdiag
