#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "probes/topo/pci.h"
#include "tests/support/temp_tree.h"

using namespace fabdiag;
namespace fs = std::filesystem;

namespace {

// A throw-away sysfs tree: devices/pci0000:00/0000:00:01.0/<bdf>/ with bus/pci/devices links.
struct FakeSys : testing::TempTree {
  FakeSys() : TempTree("pci-test") {}
  // Creates the device directory (below root port 0000:00:01.0) and its bus/pci/devices link.
  std::string device(const std::string& bdf) const {
    std::string rel = "devices/pci0000:00/0000:00:01.0/" + bdf;
    dir(rel);
    link("bus/pci/devices/" + bdf, "../../../" + rel);
    return rel;
  }
  // A healthy H100-like GPU.
  std::string gpu(const std::string& bdf) const {
    std::string dir = device(bdf);
    write(dir + "/vendor", "0x10de\n");
    write(dir + "/device", "0x2330\n");
    write(dir + "/class", "0x030200\n");
    write(dir + "/numa_node", "1\n");
    write(dir + "/local_cpulist", "32-63,96-127\n");
    write(dir + "/current_link_speed", "32.0 GT/s PCIe\n");
    write(dir + "/max_link_speed", "32.0 GT/s PCIe\n");
    write(dir + "/current_link_width", "16\n");
    write(dir + "/max_link_width", "16\n");
    return dir;
  }
};

bool has_gap_for(const std::vector<Error>& gaps, const std::string& attr, ErrorCode code) {
  for (const auto& g : gaps)
    if (g.source.find(attr) != std::string::npos && g.code == code) return true;
  return false;
}

}  // namespace

TEST_CASE("parse_pci_address accepts kernel BDFs only") {
  auto a = parse_pci_address("0000:17:00.0");
  REQUIRE(a);
  CHECK(a->bus == 0x17);
  CHECK(a->to_string() == "0000:17:00.0");
  CHECK(parse_pci_address("0000:AB:1f.7")->to_string() == "0000:ab:1f.7");
  CHECK(parse_pci_address("10000:01:00.0")->domain == 0x10000);
  CHECK_FALSE(parse_pci_address("17:00.0"));
  CHECK_FALSE(parse_pci_address("pci0000:15"));
  CHECK_FALSE(parse_pci_address("0000:17:00.8"));   // function > 7
  CHECK_FALSE(parse_pci_address("0000:17:20.0"));   // device > 0x1f
  CHECK_FALSE(parse_pci_address("0000:1:00.0"));
  CHECK_FALSE(parse_pci_address("0000:17:00.0x"));
  CHECK_FALSE(parse_pci_address(""));
  CHECK(*parse_pci_address("0000:19:00.0") < *parse_pci_address("0000:1a:00.0"));
  CHECK(*parse_pci_address("0000:ff:00.0") < *parse_pci_address("0001:00:00.0"));
}

TEST_CASE("parse_link_speed_gts: kernel spellings, Unknown, garbage") {
  CHECK(parse_link_speed_gts("8 GT/s").value() == 8.0);
  CHECK(parse_link_speed_gts("16.0 GT/s PCIe").value() == 16.0);
  CHECK(parse_link_speed_gts("2.5 GT/s PCIe\n").value() == 2.5);
  CHECK(parse_link_speed_gts("64.0 GT/s PCIe").value() == 64.0);
  CHECK(parse_link_speed_gts("5GT/s").value() == 5.0);
  auto unknown = parse_link_speed_gts("Unknown");
  REQUIRE(unknown.ok());
  CHECK_FALSE(unknown->has_value());
  for (const char* bad : {"", "fast", "16.0 Gb/s", "-8 GT/s", "0 GT/s", "1.2.3 GT/s", "GT/s", "32"}) {
    auto r = parse_link_speed_gts(bad);
    CHECK_MESSAGE(!r.ok(), bad);
    if (!r.ok()) CHECK(r.error().code == ErrorCode::kParse);
  }
}

TEST_CASE("parse_link_width: 0..32 lanes only") {
  CHECK(parse_link_width("16").value() == 16);
  CHECK(parse_link_width("0\n").value() == 0);  // link down
  CHECK(parse_link_width("32").value() == 32);
  for (const char* bad : {"", "x16", "-1", "33", "0x10", "sixteen", "8.0"})
    CHECK_MESSAGE(!parse_link_width(bad).ok(), bad);
}

TEST_CASE("classify_pci: GPUs, NVSwitch, NICs, bridges") {
  CHECK(classify_pci(0x10de, 0x030200) == PciKind::kGpu);
  CHECK(classify_pci(0x10de, 0x030000) == PciKind::kGpu);
  CHECK(classify_pci(0x1002, 0x030200) == PciKind::kOther);  // not NVIDIA
  CHECK(classify_pci(0x10de, 0x068000) == PciKind::kNvSwitch);
  CHECK(classify_pci(0x15b3, 0x020700) == PciKind::kNic);
  CHECK(classify_pci(0x15b3, 0x020000) == PciKind::kNic);
  CHECK(classify_pci(0x14e4, 0x020000) == PciKind::kNic);
  CHECK(classify_pci(0x1000, 0x060400) == PciKind::kBridge);
  CHECK(classify_pci(0x144d, 0x010802) == PciKind::kOther);
  CHECK(std::string(to_string(PciKind::kNvSwitch)) == "nvswitch");
}

TEST_CASE("read_pci_device reads a healthy GPU with no gaps") {
  FakeSys t;
  t.gpu("0000:9a:00.0");
  t.dir("bus/pci/drivers/nvidia");
  t.link("devices/pci0000:00/0000:00:01.0/0000:9a:00.0/driver", "../../../../bus/pci/drivers/nvidia");
  std::vector<Error> gaps;
  auto d = read_pci_device(t.fsroot(), "0000:9a:00.0", gaps);
  REQUIRE(d.ok());
  CHECK(gaps.empty());
  CHECK(d->kind == PciKind::kGpu);
  CHECK(d->vendor_id == 0x10de);
  CHECK(d->device_id == 0x2330);
  CHECK(d->class_code == 0x030200);
  CHECK(d->numa_node == 1);
  CHECK(d->local_cpulist == "32-63,96-127");
  CHECK(d->link.current_speed_gts == 32.0);
  CHECK(d->link.max_width == 16);
  CHECK(d->driver == "nvidia");
  CHECK_FALSE(d->is_virtual_function);
  CHECK(d->sysfs_path == "devices/pci0000:00/0000:00:01.0/0000:9a:00.0");
  CHECK(parent_bridge_chain(*d) == std::vector<std::string>{"0000:00:01.0"});
}

TEST_CASE("read_pci_device: missing numa_node is no gap, garbage values are unknown + gap") {
  FakeSys t;
  std::string dir = t.gpu("0000:18:00.0");
  fs::remove(t.path() / dir / "numa_node");
  t.write(dir + "/current_link_speed", "Unknown\n");  // kernel's own unknown: no gap
  t.write(dir + "/max_link_speed", "very fast\n");
  t.write(dir + "/current_link_width", "0\n");         // link down: a value, not a gap
  t.write(dir + "/max_link_width", "x16\n");
  t.write(dir + "/vendor", "nvidia\n");
  std::vector<Error> gaps;
  auto d = read_pci_device(t.fsroot(), "0000:18:00.0", gaps);
  REQUIRE(d.ok());
  CHECK(d->numa_node == -1);
  CHECK_FALSE(d->link.current_speed_gts);
  CHECK_FALSE(d->link.max_speed_gts);
  CHECK(d->link.current_width == 0);
  CHECK_FALSE(d->link.max_width);
  CHECK_FALSE(d->vendor_id);
  CHECK(d->kind == PciKind::kOther);  // vendor unknown: not classified
  CHECK(gaps.size() == 3);
  CHECK(has_gap_for(gaps, "max_link_speed", ErrorCode::kParse));
  CHECK(has_gap_for(gaps, "max_link_width", ErrorCode::kParse));
  CHECK(has_gap_for(gaps, "vendor", ErrorCode::kParse));
  CHECK_FALSE(has_gap_for(gaps, "numa_node", ErrorCode::kNotFound));
}

TEST_CASE("read_pci_device: garbage numa_node, cpulist fallbacks, missing link file, VF") {
  FakeSys t;
  std::string dir = t.gpu("0000:18:00.0");
  t.write(dir + "/numa_node", "banana\n");
  fs::remove(t.path() / dir / "local_cpulist");
  t.write(dir + "/local_cpus", "00000000,ffffffff,00000000,ffffffff\n");
  fs::remove(t.path() / dir / "current_link_width");
  t.write(dir + "/physfn", "");
  std::vector<Error> gaps;
  auto d = read_pci_device(t.fsroot(), "0000:18:00.0", gaps);
  REQUIRE(d.ok());
  CHECK(d->numa_node == -1);
  CHECK(d->local_cpulist == "0-31,64-95");
  CHECK_FALSE(d->link.current_width);
  CHECK(d->is_virtual_function);
  // A missing link file means "not a PCIe function": unknown, but not a gap.
  CHECK(gaps.size() == 1);
  CHECK(has_gap_for(gaps, "numa_node", ErrorCode::kParse));

  fs::remove(t.path() / dir / "local_cpus");
  gaps.clear();
  d = read_pci_device(t.fsroot(), "0000:18:00.0", gaps);
  REQUIRE(d.ok());
  CHECK(d->local_cpulist.empty());
  CHECK(has_gap_for(gaps, "local_cpus", ErrorCode::kNotFound));
}

TEST_CASE("read_pci_device: missing device, bad address, list_pci_devices order") {
  FakeSys t;
  std::vector<Error> gaps;
  auto missing = read_pci_device(t.fsroot(), "0000:18:00.0", gaps);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == ErrorCode::kNotFound);
  CHECK(missing.error().source.find("0000:18:00.0") != std::string::npos);
  CHECK(read_pci_device(t.fsroot(), "garbage", gaps).error().code == ErrorCode::kInvalidArgument);
  CHECK(list_pci_devices(t.fsroot()).error().code == ErrorCode::kNotFound);

  for (auto bdf : {"0000:1a:00.0", "0000:19:00.0", "0001:00:00.0", "0000:9a:00.0"}) t.device(bdf);
  t.write("bus/pci/devices/not-a-bdf", "");
  auto list = list_pci_devices(t.fsroot());
  REQUIRE(list.ok());
  CHECK(*list == std::vector<std::string>{"0000:19:00.0", "0000:1a:00.0", "0000:9a:00.0", "0001:00:00.0"});
}
