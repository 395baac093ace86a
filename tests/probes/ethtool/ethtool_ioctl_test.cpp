#include <doctest/doctest.h>

#include <linux/ethtool.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "probes/ethtool/ethtool_ioctl.h"
#include "tests/support/temp_tree.h"

using namespace fabdiag;
using fabdiag::testing::TempTree;

namespace {

// A fake kernel behind SIOCETHTOOL: answers GSSET_INFO (or refuses it), GDRVINFO, GSTRINGS and
// GSTATS like net/ethtool/ioctl.c does, i.e. it writes as many entries as the driver has *now*.
class FakeKernel : public EthtoolIoctl {
 public:
  std::vector<std::string> names;  // the driver's strings (may be exactly 32 chars)
  std::vector<uint64_t> values;
  bool gsset_supported = true;
  int fail_errno = 0;              // every call fails with this when set
  int grow_on_strings = 0;         // GSTRINGS sees this many extra stats, that many times
  bool always_changing = false;
  mutable int calls_gstrings = 0;
  mutable int calls_gdrvinfo = 0;

  size_t count_now() const {
    size_t n = names.size();
    if (always_changing) n += static_cast<size_t>(calls_gstrings);
    else if (calls_gstrings <= grow_on_strings && grow_on_strings > 0) n += 1;
    return n;
  }

  int call(const std::string&, void* data) const override {
    if (fail_errno) return fail_errno;
    uint32_t cmd;
    std::memcpy(&cmd, data, sizeof cmd);
    switch (cmd) {
      case ETHTOOL_GSSET_INFO: {
        if (!gsset_supported) return EOPNOTSUPP;
        auto* info = static_cast<ethtool_sset_info*>(data);
        uint32_t n = static_cast<uint32_t>(names.size());
        std::memcpy(reinterpret_cast<unsigned char*>(info) + offsetof(ethtool_sset_info, data), &n, 4);
        return 0;
      }
      case ETHTOOL_GDRVINFO: {
        ++calls_gdrvinfo;
        static_cast<ethtool_drvinfo*>(data)->n_stats = static_cast<uint32_t>(names.size());
        return 0;
      }
      case ETHTOOL_GSTRINGS: {
        ++calls_gstrings;
        auto* gs = static_cast<ethtool_gstrings*>(data);
        size_t n = count_now();
        gs->len = static_cast<uint32_t>(n);
        auto* out = reinterpret_cast<unsigned char*>(gs) + offsetof(ethtool_gstrings, data);
        for (size_t i = 0; i < n; ++i) {
          std::string s = i < names.size() ? names[i] : "extra_" + std::to_string(i);
          std::memset(out + i * ETH_GSTRING_LEN, 0, ETH_GSTRING_LEN);
          std::memcpy(out + i * ETH_GSTRING_LEN, s.data(), std::min<size_t>(s.size(), ETH_GSTRING_LEN));
        }
        return 0;
      }
      case ETHTOOL_GSTATS: {
        auto* st = static_cast<ethtool_stats*>(data);
        size_t n = names.size();
        st->n_stats = static_cast<uint32_t>(n);
        auto* out = reinterpret_cast<unsigned char*>(st) + offsetof(ethtool_stats, data);
        for (size_t i = 0; i < n; ++i) std::memcpy(out + i * 8, &values[i], 8);
        return 0;
      }
      default: return EOPNOTSUPP;
    }
  }
};

FakeKernel mlx5_kernel() {
  FakeKernel k;
  k.names = {"rx_pause_ctrl_phy", "rx_prio3_pause_duration",
             "rx_vport_rdma_multicast_packets0",  // exactly 32 characters, no NUL
             "link_down_events_phy"};
  REQUIRE(k.names[2].size() == 32);
  k.values = {11, 250000, 123456789012ull, 3};
  return k;
}

}  // namespace

TEST_CASE("ethtool ioctl: GSSET_INFO, GSTRINGS, GSTATS, 32-byte names without NUL") {
  FakeKernel k = mlx5_kernel();
  auto r = read_ethtool_stats(k, "ens1f0np0");
  REQUIRE(r.ok());
  REQUIRE(r->size() == 4);
  CHECK((*r)[0].name == "rx_pause_ctrl_phy");
  CHECK((*r)[0].value == 11);
  CHECK((*r)[2].name == "rx_vport_rdma_multicast_packets0");
  CHECK((*r)[2].value == 123456789012ull);
  CHECK((*r)[3].value == 3);
  CHECK(k.calls_gdrvinfo == 0);
}

TEST_CASE("ethtool ioctl: GDRVINFO fallback when GSSET_INFO is refused") {
  FakeKernel k = mlx5_kernel();
  k.gsset_supported = false;
  auto r = read_ethtool_stats(k, "eth0");
  REQUIRE(r.ok());
  CHECK(r->size() == 4);
  CHECK(k.calls_gdrvinfo == 1);
}

TEST_CASE("ethtool ioctl: the count changes between calls -> retry") {
  FakeKernel k = mlx5_kernel();
  k.grow_on_strings = 1;  // the first GSTRINGS returns one stat more than GSSET_INFO said
  auto r = read_ethtool_stats(k, "eth0");
  REQUIRE(r.ok());
  CHECK(r->size() == 4);
  CHECK(k.calls_gstrings == 2);
  FakeKernel bad = mlx5_kernel();
  bad.always_changing = true;
  auto e = read_ethtool_stats(bad, "eth0");
  REQUIRE_FALSE(e.ok());
  CHECK(e.error().code == ErrorCode::kIo);
  CHECK(e.error().message.find("kept changing") != std::string::npos);
  CHECK(e.error().source == "ethtool -S eth0");
}

TEST_CASE("ethtool ioctl: errors") {
  FakeKernel k = mlx5_kernel();
  k.fail_errno = EOPNOTSUPP;
  auto u = read_ethtool_stats(k, "lo");
  REQUIRE_FALSE(u.ok());
  CHECK(u.error().code == ErrorCode::kUnsupported);
  k.fail_errno = ENODEV;
  CHECK(read_ethtool_stats(k, "gone0").error().code == ErrorCode::kNotFound);
  k.fail_errno = EPERM;
  CHECK(read_ethtool_stats(k, "eth0").error().code == ErrorCode::kPermission);
  FakeKernel empty;
  CHECK(read_ethtool_stats(empty, "veth0").error().code == ErrorCode::kUnsupported);
  CHECK(read_ethtool_stats(k, "a_name_longer_than_15").error().code == ErrorCode::kInvalidArgument);
  CHECK(read_ethtool_stats(k, "").error().code == ErrorCode::kInvalidArgument);
}

TEST_CASE("ethtool ioctl on this host: no crash, a missing netdev is not found") {
  SocketEthtoolIoctl io;
  auto missing = read_ethtool_stats(io, "fdgnosuch0");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == ErrorCode::kNotFound);
  auto lo = read_ethtool_stats(io, "lo");  // lo has no driver statistics on current kernels
  if (!lo.ok()) CHECK(lo.error().code == ErrorCode::kUnsupported);
}

TEST_CASE("fixture source: <root>/ethtool/<netdev>, never the ioctl on a fixture") {
  FsRoot fs(std::string(FABDIAG_SOURCE_DIR) + "/tests/fixtures/roce-rising/after", "/proc");
  FixtureEthtoolStatsSource src(fs);
  auto r = src.read_stats("ens1f0np0");
  REQUIRE(r.ok());
  bool seen = false;
  for (const auto& s : r->stats)
    if (s.name == "rx_crc_errors_phy") {
      seen = true;
      CHECK(s.value == 4);
    }
  CHECK(seen);
  CHECK(r->source.find("ethtool/ens1f0np0") != std::string::npos);
  CHECK(src.read_stats("lo").error().code == ErrorCode::kNotFound);

  FakeKernel k = mlx5_kernel();
  auto chosen = make_ethtool_stats_source(fs, k);
  CHECK(chosen->describe().find("fixture") != std::string::npos);
  CHECK(chosen->read_stats("ens1f0np0")->stats.size() == r->stats.size());
  CHECK_FALSE(is_live_sysfs(fs));
  CHECK(is_live_sysfs(FsRoot("/sys", "/proc")));
  CHECK(is_live_sysfs(FsRoot("/sys/", "/proc")));
  auto live = make_ethtool_stats_source(FsRoot("/sys", "/proc"), k);
  CHECK(live->describe().find("SIOCETHTOOL") != std::string::npos);
  CHECK(live->read_stats("anything")->stats.size() == 4);  // went to the (fake) ioctl
}

TEST_CASE("fixture source: malformed capture is a parse error naming the file") {
  TempTree t;
  t.file("ethtool/eth0", "NIC statistics:\n  rx_bytes: 12\n  garbage line\n");
  FixtureEthtoolStatsSource src(FsRoot(t.root(), "/proc"));
  auto r = src.read_stats("eth0");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::kParse);
  CHECK(r.error().source == t.root() + "/ethtool/eth0");
}
