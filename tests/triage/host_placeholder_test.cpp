// {host} in --sysfs-root/--procfs-root takes this rank's host name only when it is a host name.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "triage/mpi_cluster.h"

using namespace fabdiag;
using namespace fabdiag::triage;

TEST_CASE("{host} is replaced by a valid host name, and a name that would leave the path is refused") {
  CHECK(*expand_host_placeholder("/tmp/fabdiag-emucluster/{host}/sys", "node03") == "/tmp/fabdiag-emucluster/node03/sys");
  CHECK(*expand_host_placeholder("/sys", "../../etc") == "/sys");  // no {host}: the name is not used
  const std::vector<std::string> bads = {"..", "../../etc", "a/b", "", "node 01", std::string("no\0de", 5), "node\x1b[0m",
                                         std::string(254, 'a')};
  for (const std::string& bad : bads) {
    auto r = expand_host_placeholder("/tmp/emu/{host}/sys", bad);
    REQUIRE_FALSE_MESSAGE(r.ok(), bad);
    CHECK(r.error().code == ErrorCode::kInvalidArgument);
    CHECK(r.error().message.find("cannot replace {host} in /tmp/emu/{host}/sys") != std::string::npos);
    CHECK(r.error().message.find('\x1b') == std::string::npos);
  }
}
