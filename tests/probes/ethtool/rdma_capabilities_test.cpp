#include <doctest/doctest.h>

#include "core/build_config.h"
#include "probes/ethtool/rdma_capabilities.h"

using namespace fabdiag;

TEST_CASE("ibverbs capability: loaded with a device list or 'no RDMA devices', else a reason") {
  Capability c = probe_ibverbs_capability();
  CHECK(c.name == "ibverbs");
  CHECK(c.compiled);
  if (c.loaded) {
    CHECK(c.why_not.empty());
    CHECK_FALSE(c.detail.empty());  // "no RDMA devices ..." or "N RDMA device(s): ..."
    CHECK((c.detail.find("no RDMA devices") == 0 || c.detail.find("RDMA device(s):") != std::string::npos));
  } else {
    CHECK_FALSE(c.why_not.empty());
  }
}

TEST_CASE("ethtool netlink capability follows the build and the kernel") {
  Capability c = probe_ethtool_netlink_capability();
  CHECK(c.name == "ethtool_netlink");
  CHECK(c.compiled == static_cast<bool>(FABDIAG_HAVE_LIBNL));
  if (!c.compiled) {
    CHECK_FALSE(c.loaded);
    CHECK(c.why_not.find("libnl") != std::string::npos);
  } else if (c.loaded) {
    CHECK(c.version == "1");  // the ethtool family has been version 1 since Linux 5.6
    CHECK(c.detail.find("family id") == 0);
  } else {
    CHECK_FALSE(c.why_not.empty());
  }
}
