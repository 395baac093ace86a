#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "probes/capture/sysfs_capture.h"
#include "probes/topo/topology.h"
#include "probes/topo/topology_json.h"
#include "tests/support/temp_tree.h"

using namespace fabdiag;
namespace fsys = std::filesystem;

namespace {

std::string slurp(const fsys::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// Every regular file under `root` that contains `needle`.
std::vector<std::string> files_containing(const fsys::path& root, const std::string& needle) {
  std::vector<std::string> out;
  for (const auto& e : fsys::recursive_directory_iterator(root))
    if (e.is_regular_file() && !e.is_symlink() && slurp(e.path()).find(needle) != std::string::npos)
      out.push_back(e.path().string());
  return out;
}

FsRoot root_of(const std::string& dir) { return FsRoot(dir, dir); }

}  // namespace

TEST_CASE("Anonymizer: GUIDs, GIDs and MACs get stable placeholders, zero values stay") {
  Anonymizer a;
  CHECK(a.guid("b8ce:f603:00a1:b2c4") == "0000:0000:0000:0001");
  CHECK(a.guid("1070:fd03:0012:3456") == "0000:0000:0000:0002");
  CHECK(a.guid("b8ce:f603:00a1:b2c4") == "0000:0000:0000:0001");  // same in, same out
  CHECK(a.guid("0000:0000:0000:0000") == "0000:0000:0000:0000");
  CHECK(a.guid("not a guid") == "not a guid");
  // The port GID's interface id is the port GUID: it maps like the GUID.
  CHECK(a.gid("fe80:0000:0000:0000:b8ce:f603:00a1:b2c4") == "fe80:0000:0000:0000:0000:0000:0000:0001");
  CHECK(a.gid("0000:0000:0000:0000:0000:0000:0000:0000") == "0000:0000:0000:0000:0000:0000:0000:0000");
  CHECK(a.gid("0000:0000:0000:0000:0000:ffff:0a0b:0c0d") == "0000:0000:0000:0000:0000:ffff:c000:0201");
  CHECK(a.gid("0000:0000:0000:0000:0000:ffff:0a0b:0c0e") == "0000:0000:0000:0000:0000:ffff:c000:0202");
  CHECK(a.gid("2001:0db8:1234:0001:1070:fd03:0012:3456") == "fec0:0000:0000:0001:0000:0000:0000:0002");
  CHECK(a.mac("b8:ce:f6:a1:b2:c4") == "02:00:00:00:00:01");
  CHECK(a.mac("b8:ce:f6:a1:b2:c5") == "02:00:00:00:00:02");
  CHECK(a.mac("00:00:00:00:00:00") == "00:00:00:00:00:00");
  // IPoIB: flags/QPN and the fe80 prefix kept, the GUID mapped.
  CHECK(a.mac("00:00:10:29:fe:80:00:00:00:00:00:00:b8:ce:f6:03:00:a1:b2:c4") ==
        "00:00:10:29:fe:80:00:00:00:00:00:00:00:00:00:00:00:00:00:01");
  CHECK(a.guids() == 2);
  CHECK(a.macs() == 3);  // two Ethernet, one IPoIB
  CHECK(a.ipv4s() == 2);
}

TEST_CASE("Anonymizer: the Device Serial Number capability is zeroed in config space") {
  std::vector<unsigned char> cfg(0x200, 0);
  // ext cap at 0x100: AER (id 1) -> next 0x140; at 0x140: DSN (id 3), serial bytes 0x144..0x14b.
  cfg[0x100] = 0x01; cfg[0x101] = 0x00; cfg[0x102] = 0x01 | 0x00; cfg[0x103] = 0x14;  // next = 0x140
  cfg[0x140] = 0x03; cfg[0x141] = 0x00; cfg[0x142] = 0x01; cfg[0x143] = 0x00;
  for (int i = 0; i < 8; ++i) cfg[0x144 + i] = static_cast<unsigned char>(0xa0 + i);
  cfg[0x14c] = 0x77;
  CHECK(Anonymizer::clear_serial_number(cfg));
  for (int i = 0; i < 8; ++i) CHECK(cfg[0x144 + i] == 0);
  CHECK(cfg[0x14c] == 0x77);
  std::vector<unsigned char> short_cfg(64, 0xff);  // unprivileged read: no extended space
  CHECK_FALSE(Anonymizer::clear_serial_number(short_cfg));
  std::vector<unsigned char> loop(0x200, 0);
  loop[0x100] = 0x01; loop[0x103] = 0x10;  // next = 0x100: itself
  CHECK_FALSE(Anonymizer::clear_serial_number(loop));
}

TEST_CASE("gather: a capture of dgx8 gives the same topology, with relative links and placeholder GUIDs") {
  testing::TempTree tmp("capture-test");
  std::string src = std::string(FABDIAG_SOURCE_DIR) + "/tests/fixtures/dgx8";
  auto cap = capture_sysfs(root_of(src), tmp.str("cap"));
  REQUIRE(cap.ok());
  CHECK(cap->gaps.empty());
  CHECK(cap->pci_functions == 46);
  CHECK(cap->ibdevs == 8);
  CHECK(cap->netdevs == 9);  // 8 IPoIB + lo
  CHECK(cap->guids_replaced == 8);
  CHECK(cap->macs_replaced == 8);

  auto before = discover_topology(root_of(src));
  auto after = discover_topology(root_of(tmp.str("cap")));
  CHECK(after.gaps.empty());
  CHECK(topology_to_json(after) == topology_to_json(before));

  for (const auto& e : fsys::recursive_directory_iterator(tmp.path()))
    if (e.is_symlink()) CHECK(fsys::read_symlink(e.path()).is_relative());
  auto guid = slurp(tmp.path() / "cap/class/infiniband/mlx5_3/node_guid");
  CHECK(guid == "0000:0000:0000:0004\n");
  CHECK_FALSE(fsys::exists(tmp.path() / "cap/class/infiniband/mlx5_3/node_desc"));  // not in the source either
  CHECK(fsys::exists(tmp.path() / "cap/class/infiniband/mlx5_3/ports/1/counters/symbol_error"));
  CHECK(fsys::exists(tmp.path() / "cap/class/net/ibp47s0/statistics/rx_bytes"));
  CHECK(fsys::is_symlink(tmp.path() / "cap/bus/pci/drivers/mlx5_core/0000:2f:00.0"));
}

TEST_CASE("gather: real-looking identifiers are replaced everywhere, serial numbers in config are cleared") {
  testing::TempTree tmp("capture-test");
  const fsys::path src = tmp.path() / "sys";
  auto write = [&](const std::string& rel, const std::string& content) { tmp.write("sys/" + rel, content); };
  auto link = [&](const std::string& rel, const std::string& target) { tmp.link("sys/" + rel, target); };
  const std::string dev = "devices/pci0000:00/0000:00:01.0/0000:01:00.0";
  write(dev + "/vendor", "0x15b3\n");
  write(dev + "/class", "0x020000\n");
  write(dev + "/numa_node", "0\n");
  std::string cfg(0x200, '\0');
  cfg[0x100] = 0x03; cfg[0x102] = 0x01;  // DSN at 0x100, last capability
  for (int i = 0; i < 8; ++i) cfg[0x104 + i] = static_cast<char>(0xb8 + i);
  write(dev + "/config", cfg);
  link("bus/pci/devices/0000:01:00.0", "../../../" + dev);
  write(dev + "/net/enp1s0f0np0/address", "b8:ce:f6:a1:b2:c4\n");
  write(dev + "/net/enp1s0f0np0/mtu", "9000\n");
  link(dev + "/net/enp1s0f0np0/device", "../../../0000:01:00.0");
  link("class/net/enp1s0f0np0", "../../" + dev + "/net/enp1s0f0np0");
  write(dev + "/infiniband/mlx5_0/node_guid", "b8ce:f603:00a1:b2c4\n");
  write(dev + "/infiniband/mlx5_0/sys_image_guid", "b8ce:f603:00a1:b2c4\n");
  write(dev + "/infiniband/mlx5_0/node_desc", "gpu-node-4711.example.com mlx5_0\n");
  write(dev + "/infiniband/mlx5_0/ports/1/gids/0", "fe80:0000:0000:0000:bace:f6ff:fea1:b2c4\n");
  write(dev + "/infiniband/mlx5_0/ports/1/gids/1", "0000:0000:0000:0000:0000:ffff:0a2a:0007\n");
  write(dev + "/infiniband/mlx5_0/ports/1/rate", "100 Gb/sec (4X EDR)\n");
  link(dev + "/infiniband/mlx5_0/device", "../../../0000:01:00.0");
  link("class/infiniband/mlx5_0", "../../" + dev + "/infiniband/mlx5_0");

  auto cap = capture_sysfs(root_of(src.string()), tmp.str("cap"));
  REQUIRE(cap.ok());
  CHECK(cap->serials_cleared == 1);
  CHECK(cap->macs_replaced == 1);
  CHECK(cap->guids_replaced == 2);  // node GUID, and the GID's MAC-derived interface id
  CHECK(slurp(tmp.path() / "cap" / dev / "infiniband/mlx5_0/node_desc") == "node01 mlx5_0\n");
  CHECK(cap->ipv4_replaced == 1);
  for (const char* secret : {"b8:ce:f6:a1:b2:c4", "b8ce:f603:00a1:b2c4", "bace:f6ff:fea1:b2c4", "0a2a:0007", "gpu-node-4711"}) {
    CAPTURE(secret);
    CHECK(files_containing(tmp.path() / "cap", secret).empty());
  }
  auto out_cfg = slurp(tmp.path() / "cap" / dev / "config");
  REQUIRE(out_cfg.size() == 0x200);
  for (int i = 0; i < 8; ++i) CHECK(out_cfg[0x104 + i] == '\0');
  CHECK(slurp(tmp.path() / "cap" / dev / "infiniband/mlx5_0/sys_image_guid") == "0000:0000:0000:0001\n");
  CHECK(slurp(tmp.path() / "cap" / dev / "infiniband/mlx5_0/ports/1/rate") == "100 Gb/sec (4X EDR)\n");
  auto r = discover_topology(root_of(tmp.str("cap")));
  REQUIRE(r.devices.size() == 1);
  CHECK(r.devices[0].ibdev == "mlx5_0");
  CHECK(r.devices[0].netdevs == std::vector<std::string>{"enp1s0f0np0"});
}

TEST_CASE("gather: refuses a non-empty target and a root that is not sysfs") {
  testing::TempTree tmp("capture-test");
  std::string src = std::string(FABDIAG_SOURCE_DIR) + "/tests/fixtures/dgx8";
  std::ofstream(tmp.path() / "keep.txt") << "x";
  auto busy = capture_sysfs(root_of(src), tmp.root());
  REQUIRE_FALSE(busy.ok());
  CHECK(busy.error().code == ErrorCode::kInvalidArgument);
  CHECK(busy.error().source == tmp.root());
  auto not_sys = capture_sysfs(root_of(std::string(FABDIAG_SOURCE_DIR) + "/tests/cli"), tmp.str("out"));
  REQUIRE_FALSE(not_sys.ok());
  CHECK(not_sys.error().code == ErrorCode::kNotFound);
  CHECK_FALSE(fsys::exists(tmp.str("out")));
}
