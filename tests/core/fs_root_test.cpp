#include <doctest/doctest.h>

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/atomic_file.h"
#include "core/fs_root.h"
#include "tests/support/temp_tree.h"

using namespace fabdiag;
namespace fs = std::filesystem;

using fabdiag::testing::TempTree;

TEST_CASE("FsRoot reads logical paths under the root and trims newlines") {
  TempTree t;
  t.write("sys/class/net/eth0/mtu", "9000\n");
  t.write("proc/cmdline", "iommu=pt\n");
  FsRoot root((t.path() / "sys").string(), (t.path() / "proc").string());
  CHECK(root.validate().ok());
  auto mtu = root.read_sys("class/net/eth0/mtu");
  REQUIRE(mtu.ok());
  CHECK(*mtu == "9000");
  CHECK(root.read_sys("/class/net/eth0/mtu").value() == "9000");
  CHECK(root.read_proc("cmdline").value() == "iommu=pt");
}

TEST_CASE("FsRoot maps errno to error codes and names the path") {
  TempTree t;
  t.write("sys/x", "1");
  FsRoot root((t.path() / "sys").string(), (t.path() / "sys").string());
  auto missing = root.read_sys("class/infiniband/mlx5_0/ports/1/counters/symbol_error");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == ErrorCode::kNotFound);
  CHECK(missing.error().source.find("symbol_error") != std::string::npos);
  FsRoot bad("/nonexistent-root-for-test", "/proc");
  auto st = bad.validate();
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().source == "/nonexistent-root-for-test");
}

TEST_CASE("FsRoot lists in natural order and resolves relative links inside the root") {
  TempTree t;
  for (auto n : {"mlx5_10", "mlx5_2", "mlx5_1"}) t.write(std::string("sys/class/infiniband/") + n + "/x", "");
  auto names = FsRoot((t.path() / "sys").string(), "/proc").list_sys("class/infiniband");
  REQUIRE(names.ok());
  CHECK(*names == std::vector<std::string>{"mlx5_1", "mlx5_2", "mlx5_10"});

  t.write("sys/devices/pci0000:16/0000:16:02.0/0000:17:00.0/vendor", "0x15b3");
  fs::create_directories(t.path() / "sys/bus/pci/devices");
  fs::create_symlink("../../../devices/pci0000:16/0000:16:02.0/0000:17:00.0",
                     t.path() / "sys/bus/pci/devices/0000:17:00.0");
  FsRoot root((t.path() / "sys").string(), "/proc");
  auto canon = root.canonical_sys("bus/pci/devices/0000:17:00.0");
  REQUIRE(canon.ok());
  CHECK(*canon == "devices/pci0000:16/0000:16:02.0/0000:17:00.0");
  CHECK(root.read_sys("bus/pci/devices/0000:17:00.0/vendor").value() == "0x15b3");

  fs::create_symlink("/etc", t.path() / "sys/outside");
  auto out = root.canonical_sys("outside");
  REQUIRE_FALSE(out.ok());
  CHECK(out.error().code == ErrorCode::kInvalidArgument);
}

TEST_CASE("FsRoot reads a directory's files through one directory handle, in list order") {
  TempTree t;
  t.write("sys/class/infiniband/mlx5_0/ports/1/counters/rx_prio10_pause", "7\n");
  t.write("sys/class/infiniband/mlx5_0/ports/1/counters/rx_prio2_pause", "3\n");
  t.write("sys/class/infiniband/mlx5_0/ports/1/counters/link_downed", "0\n");
  fs::create_directories(t.path() / "sys/class/infiniband/mlx5_0/ports/1/counters/sub");
  fs::create_directories(t.path() / "sys/class/infiniband/mlx5_0/device");
  fs::create_symlink("../../../bus/pci/drivers/mlx5_core",
                     t.path() / "sys/class/infiniband/mlx5_0/device/driver");
  FsRoot root((t.path() / "sys").string(), "/proc");
  auto files = root.read_sys_dir("class/infiniband/mlx5_0/ports/1/counters");
  REQUIRE(files.ok());
  REQUIRE(files->size() == 4);
  CHECK((*files)[0].name == "link_downed");
  CHECK((*files)[0].text.value() == "0");
  CHECK((*files)[1].name == "rx_prio2_pause");  // natural order, as list_sys()
  CHECK((*files)[1].text.value() == "3");
  CHECK((*files)[2].name == "rx_prio10_pause");
  CHECK((*files)[2].text.value() == "7");
  CHECK((*files)[3].name == "sub");  // a directory: read() fails (EISDIR), named by its path
  REQUIRE_FALSE((*files)[3].text.ok());
  CHECK((*files)[3].text.error().source ==
        root.sys_path("class/infiniband/mlx5_0/ports/1/counters/sub"));
  auto missing = root.read_sys_dir("class/infiniband/mlx5_9/ports/1/counters");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == ErrorCode::kNotFound);
  // exists_sys follows links; link_name_sys gives the target's last component.
  CHECK(root.exists_sys("class/infiniband/mlx5_0/ports/1/counters/link_downed"));
  CHECK_FALSE(root.exists_sys("class/infiniband/mlx5_0/device/driver"));  // dangling here
  CHECK(root.link_name_sys("class/infiniband/mlx5_0/device/driver").value() == "mlx5_core");
  CHECK(root.link_name_sys("class/infiniband/mlx5_0/ports").error().code ==
        ErrorCode::kUnsupported);  // not a link (EINVAL)
}

TEST_CASE("natural_less") {
  CHECK(natural_less("mlx5_2", "mlx5_10"));
  CHECK_FALSE(natural_less("mlx5_10", "mlx5_2"));
  CHECK(natural_less("node02", "node10"));
  CHECK(natural_less("a", "b"));
}

TEST_CASE("write_file_atomic replaces the file and leaves no temporary behind") {
  TempTree t;
  std::string p = (t.path() / "result.json").string();
  REQUIRE(write_file_atomic(p, "one").ok());
  REQUIRE(write_file_atomic(p, "two").ok());
  CHECK(read_file(p).value() == "two");
  int files = 0;
  for (auto& e : fs::directory_iterator(t.path())) (void)e, ++files;
  CHECK(files == 1);
  auto bad = write_file_atomic((t.path() / "no/such/dir/x.json").string(), "x");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().source.find("no/such/dir/x.json") != std::string::npos);
  CHECK(read_file((t.path() / "missing").string()).error().code == ErrorCode::kNotFound);
}

TEST_CASE("is_live_sysfs: the same directory as /sys, also through a link, never a fixture") {
  CHECK(is_live_sysfs(FsRoot()));
  CHECK(is_live_sysfs(FsRoot("/sys/", "/proc")));
  TempTree t;
  t.link("sys", "/sys");
  t.dir("fixture/class/net");
  CHECK(is_live_sysfs(FsRoot(t.str("sys"), "/proc")));
  CHECK_FALSE(is_live_sysfs(FsRoot(t.str("fixture"), "/proc")));
  CHECK_FALSE(is_live_sysfs(FsRoot(t.str("missing"), "/proc")));
  CHECK_FALSE(is_live_sysfs(FsRoot(std::string(FABDIAG_SOURCE_DIR) + "/tests/fixtures/dgx8", "/proc")));
}

TEST_CASE("FsRoot stops at 16 MiB on a file that never ends, and reads a FIFO as empty instead of waiting") {
  TempTree t;
  t.write("sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_data", "1\n");
  const fs::path dir = t.path() / "sys/class/infiniband/mlx5_0/ports/1/counters";
  fs::create_symlink("/dev/zero", dir / "link_downed");       // planted in a fixture tree
  REQUIRE(::mkfifo((dir / "symbol_error").c_str(), 0644) == 0);  // no writer ever comes
  FsRoot root((t.path() / "sys").string(), "");
  auto zero = root.read_sys("class/infiniband/mlx5_0/ports/1/counters/link_downed");
  REQUIRE_FALSE(zero.ok());
  CHECK(zero.error().message == std::strerror(EFBIG));
  CHECK(zero.error().source.find("link_downed") != std::string::npos);
  auto fifo = root.read_sys("class/infiniband/mlx5_0/ports/1/counters/symbol_error");
  REQUIRE(fifo.ok());
  CHECK(fifo->empty());
  auto all = root.read_sys_dir("class/infiniband/mlx5_0/ports/1/counters");
  REQUIRE(all.ok());
  REQUIRE(all->size() == 3);  // natural order: link_downed, port_xmit_data, symbol_error
  CHECK_FALSE((*all)[0].text.ok());
  CHECK((*all)[1].text.value() == "1");
  CHECK((*all)[2].text.value().empty());
}
