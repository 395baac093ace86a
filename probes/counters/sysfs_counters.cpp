#include "probes/counters/sysfs_counters.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "core/text.h"
#include "probes/counters/counter_classes.h"
#include "probes/counters/device_filter.h"

namespace fabdiag {
namespace {

constexpr uint64_t kU32Max = 0xFFFFFFFFull;

// Printable excerpt of a bad value for an error message.
std::string excerpt(std::string_view s) {
  std::string o;
  for (char c : s.substr(0, 40)) o.push_back((c >= 0x20 && c < 0x7f) ? c : '?');
  if (s.size() > 40) o += "...";
  return o;
}

struct RawReading {
  std::string name;
  uint64_t raw;
  std::string path;
};

// Reads every file of a counter directory. Unsupported ("N/A (no PMA)", EINVAL) values are
// gathered into one gap for the directory, so a port without a PMA gives one line, not twenty.
std::vector<RawReading> read_counter_dir(const FsRoot& fs, const std::string& dir,
                                         std::vector<Error>& gaps) {
  std::vector<RawReading> out;
  auto files = fs.read_sys_dir(dir);
  if (!files) {
    gaps.push_back(files.error().with_context("listing counters"));
    return out;
  }
  out.reserve(files->size());
  std::vector<std::string> unsupported;
  for (auto& [name, text] : *files) {
    if (name == "lifespan") continue;  // hw_counters cache time in ms, not a counter
    if (!text) {
      Error e = text.error();
      if (e.code == ErrorCode::kNotFound) {
        e.message = "counter vanished between listing and reading (" + e.message + ")";
        gaps.push_back(e);
      } else if (e.code == ErrorCode::kUnsupported) {
        unsupported.push_back(name);
      } else if (fs.list_sys(dir + "/" + name)) {
        continue;  // a subdirectory, not a counter
      } else {
        gaps.push_back(e.with_context("reading a counter"));
      }
      continue;
    }
    std::string path = fs.sys_path(dir + "/" + name);
    auto v = parse_counter_text(*text, path);
    if (!v) {
      if (v.error().code == ErrorCode::kUnsupported) unsupported.push_back(name);
      else gaps.push_back(v.error());
      continue;
    }
    out.push_back(RawReading{std::move(name), *v, std::move(path)});
  }
  if (!unsupported.empty()) {
    std::string list;
    for (const auto& n : unsupported) list += (list.empty() ? "" : ", ") + n;
    gaps.push_back(make_error(ErrorCode::kUnsupported,
                              std::to_string(unsupported.size()) +
                                  " counter(s) not supported by the device (\"N/A (no PMA)\" or "
                                  "EINVAL): " + list,
                              fs.sys_path(dir)));
  }
  return out;
}

// Reads an optional attribute; absent (kNotFound/kUnsupported) gives "", other errors a gap.
std::string read_attr(const FsRoot& fs, const std::string& rel, std::vector<Error>& gaps) {
  auto r = fs.read_sys(rel);
  if (r) return *r;
  if (r.error().code != ErrorCode::kNotFound && r.error().code != ErrorCode::kUnsupported)
    gaps.push_back(r.error().with_context("reading a port attribute"));
  return {};
}

// Paired netdev of an RDMA port: the only netdev of the PCI function, or the one whose
// dev_port (0-based) is port - 1 when the function has several.
std::string port_netdev(const FsRoot& fs, const std::vector<std::string>& netdevs, int port) {
  if (netdevs.size() == 1) return netdevs.front();
  for (const auto& nd : netdevs) {
    auto dp = fs.read_sys("class/net/" + nd + "/dev_port");
    if (dp) {
      auto v = parse_u64(*dp);
      if (v && static_cast<int>(*v) == port - 1) return nd;
    }
  }
  return {};
}

std::string netdev_link_layer(const std::string& type) {
  auto t = parse_u64(type);
  if (!t) return {};
  switch (*t) {
    case 1: return "Ethernet";
    case 32: return "InfiniBand";  // IPoIB
    case 772: return "Loopback";
    case 65534: return "None";     // tun and similar
    default: return "type " + std::to_string(*t);
  }
}

// Room for the counters of a large node from the start (16,384: 8 NICs with 64 ring channels
// each in their ethtool -S), about 3.3 MiB of address space. Regrowing moves every counter read
// so far into fresh pages (the 8-NIC fixture's 6,712 counters: 5 regrowths, 1.7M instructions
// and 100-120 page faults); the pages of capacity that a smaller node leaves unused are never
// touched, so never faulted in (address space, not memory).
constexpr size_t kCountersReserved = 16384;

// Room for `n` more samples, growing geometrically: an exact reserve per device would move
// every counter read so far once per device.
void reserve_more(std::vector<Counter>& samples, size_t n) {
  if (samples.capacity() < samples.size() + n)
    samples.reserve(std::max(2 * samples.capacity(), samples.size() + n));
}

// The readings become counters; their names and paths are moved, not copied.
void add_readings(Snapshot& snap, std::vector<RawReading>&& readings,
                  const std::string& device, CounterGroup group, const std::string& driver,
                  bool ext_width) {
  reserve_more(snap.samples, readings.size());
  for (auto& r : readings)
    snap.samples.push_back(
        make_counter(device, group, std::move(r.name), r.raw, driver, std::move(r.path), ext_width));
}

// IB data counters are 64-bit when the kernel uses PortCountersExtended: the full set exposes
// unicast_* packets; without them, a value above 2^32 - 1 still proves 64 bits.
bool port_has_ext_width(const std::vector<RawReading>& readings) {
  for (const auto& r : readings) {
    if (r.name == "unicast_xmit_packets" || r.name == "unicast_rcv_packets") return true;
    if ((r.name == "port_xmit_data" || r.name == "port_rcv_data" ||
         r.name == "port_xmit_packets" || r.name == "port_rcv_packets") &&
        r.raw > kU32Max)
      return true;
  }
  return false;
}

void read_rdma(const FsRoot& fs, const CounterReadOptions& opts, Snapshot& snap) {
  auto ibdevs = fs.list_sys("class/infiniband");
  if (!ibdevs) {
    if (ibdevs.error().code != ErrorCode::kNotFound)  // absent = no RDMA devices: normal
      snap.gaps.push_back(ibdevs.error().with_context("listing RDMA devices"));
    return;
  }
  for (const auto& ibdev : *ibdevs) {
    std::string base = "class/infiniband/" + ibdev;
    auto drv = fs.link_name_sys(base + "/device/driver");
    std::string driver = drv ? *drv : std::string();
    std::string width_driver = driver.empty() ? ibdev : driver;
    std::vector<std::string> netdevs = fs.list_sys(base + "/device/net").value_or({});

    if (device_selected(opts.devices, ibdev) && fs.exists_sys(base + "/hw_counters")) {
      auto r = read_counter_dir(fs, base + "/hw_counters", snap.gaps);
      add_readings(snap, std::move(r), ibdev, CounterGroup::kIbHwCounters, width_driver, true);
    }
    auto ports = fs.list_sys(base + "/ports");
    if (!ports) {
      if (device_selected(opts.devices, ibdev))
        snap.gaps.push_back(ports.error().with_context("listing the ports of " + ibdev));
      continue;
    }
    for (const auto& pname : *ports) {
      auto pnum = parse_u64(pname);
      if (!pnum) continue;
      std::string device = ibdev + "/" + pname;
      if (!device_selected(opts.devices, device, ibdev)) continue;
      std::string pbase = base + "/ports/" + pname;
      PortInfo p;
      p.device = device;
      p.ibdev = ibdev;
      p.port = static_cast<int>(*pnum);
      p.netdev = port_netdev(fs, netdevs, p.port);
      p.driver = driver;
      p.is_rdma = true;
      p.sysfs_dir = fs.sys_path(pbase);
      p.state = read_attr(fs, pbase + "/state", snap.gaps);
      p.phys_state = read_attr(fs, pbase + "/phys_state", snap.gaps);
      p.rate = read_attr(fs, pbase + "/rate", snap.gaps);
      p.link_layer = read_attr(fs, pbase + "/link_layer", snap.gaps);
      snap.ports.push_back(p);

      if (fs.exists_sys(pbase + "/counters")) {
        auto r = read_counter_dir(fs, pbase + "/counters", snap.gaps);
        const bool ext_width = port_has_ext_width(r);
        add_readings(snap, std::move(r), device, CounterGroup::kIbPortCounters, width_driver, ext_width);
      } else {
        snap.gaps.push_back(make_error(
            ErrorCode::kNotFound,
            "no counters/ directory: the device has no PMA port counters (normal for irdma)",
            fs.sys_path(pbase)));
      }
      if (fs.exists_sys(pbase + "/hw_counters")) {
        auto r = read_counter_dir(fs, pbase + "/hw_counters", snap.gaps);
        add_readings(snap, std::move(r), device, CounterGroup::kIbHwCounters, width_driver, true);
      }
    }
  }
}

// ethtool link facts, netlink statistics and module diagnostics of one netdev.
void add_link_reading(Snapshot& snap, const EthtoolLinkSource& src, const std::string& nd,
                      const std::string& driver, const CounterReadOptions& opts) {
  EthtoolLinkReadOptions lo;
  lo.stats = opts.link_stats;
  lo.module_eeprom = opts.module_eeprom;
  EthtoolLinkReading r = src.read(nd, driver, lo);
  if (r.link) snap.links.push_back(std::move(*r.link));
  if (r.module) snap.optics.push_back(std::move(*r.module));
  for (auto& c : r.counters) snap.samples.push_back(std::move(c));
  for (auto& e : r.gaps) snap.gaps.push_back(std::move(e));
}

void read_netdevs(const FsRoot& fs, const CounterReadOptions& opts, Snapshot& snap,
                  bool have_rdma_class) {
  auto netdevs = fs.list_sys("class/net");
  if (!netdevs) {
    Error e = netdevs.error();
    if (e.code == ErrorCode::kNotFound && !have_rdma_class) {
      // Nothing at all to read: say so instead of printing an empty table.
      e.code = ErrorCode::kInvalidArgument;
      e.message = "neither class/net nor class/infiniband exists: not a sysfs tree?";
      e.source = fs.sysfs_root();
    } else if (e.code == ErrorCode::kNotFound) {
      e.message = "no class/net directory: no network interfaces read";
    }
    snap.gaps.push_back(e.with_context("listing network interfaces"));
    return;
  }
  for (const auto& nd : *netdevs) {
    if (!device_selected(opts.devices, nd)) continue;
    std::string base = "class/net/" + nd;
    PortInfo p;
    p.device = nd;
    p.netdev = nd;
    p.sysfs_dir = fs.sys_path(base);
    auto drv = fs.link_name_sys(base + "/device/driver");
    if (drv) p.driver = *drv;
    p.state = read_attr(fs, base + "/operstate", snap.gaps);
    p.link_layer = netdev_link_layer(read_attr(fs, base + "/type", snap.gaps));
    if (auto sp = fs.read_sys(base + "/speed")) {  // EINVAL when the link is down
      auto v = parse_i64(*sp);
      if (v && *v > 0) p.rate = std::to_string(*v) + " Mb/s";
    }
    snap.ports.push_back(p);

    if (fs.exists_sys(base + "/statistics")) {
      auto r = read_counter_dir(fs, base + "/statistics", snap.gaps);
      add_readings(snap, std::move(r), nd, CounterGroup::kNetdevStats, p.driver, true);
    }
    // Carrier transitions (link flaps, but also admin changes; docs/domain.md#carrier-counters).
    // Absent on old kernels; EINVAL on some virtual devices: both mean "not here".
    for (const char* name : {"carrier_changes", "carrier_down_count", "carrier_up_count"}) {
      std::string rel = base + "/" + name;
      auto text = fs.read_sys(rel);
      if (!text) continue;
      auto v = parse_counter_text(*text, fs.sys_path(rel));
      if (!v) {
        if (v.error().code != ErrorCode::kUnsupported) snap.gaps.push_back(v.error());
        continue;
      }
      snap.samples.push_back(make_counter(nd, CounterGroup::kNetdevStats, name, *v, p.driver,
                                          fs.sys_path(rel)));
    }
    if (opts.ethtool) {
      auto st = opts.ethtool->read_stats(nd);
      if (!st) {
        snap.gaps.push_back(st.error());
      } else {
        reserve_more(snap.samples, st->stats.size());
        for (auto& s : st->stats)
          snap.samples.push_back(make_counter(nd, CounterGroup::kEthtoolStats, std::move(s.name),
                                              s.value, p.driver, st->source));
      }
    }
    if (opts.link && p.link_layer != "Loopback") add_link_reading(snap, *opts.link, nd, p.driver, opts);
  }
}

}  // namespace

Result<uint64_t> parse_counter_text(std::string_view text, const std::string& source) {
  std::string_view t = trim_view(text);
  if (starts_with(t, "N/A"))
    return make_error(ErrorCode::kUnsupported,
                      "counter not supported by the device (\"" + std::string(t) + "\")", source);
  // sysfs prints decimal; parse_u64 also accepts 0x-hex, which no counter file uses but is harmless.
  auto v = parse_u64(t);
  if (!v)
    return make_error(ErrorCode::kParse, "not a counter value: \"" + excerpt(t) + "\"", source);
  return *v;
}

Counter make_counter(std::string device, CounterGroup group, std::string name, uint64_t raw,
                     std::string_view driver, std::string source, bool ext_width) {
  Counter c;
  CounterFacts facts = counter_facts(group, driver, name);  // one knowledge-base lookup
  c.device = std::move(device);
  c.group = group;
  c.category = facts.category;
  c.rule = facts.rule;
  c.canonical = std::move(facts.canonical);
  c.unit = std::move(facts.unit);
  c.scale = facts.scale;
  CounterWidth w = facts.width;
  if (w.bits == 0) w = CounterWidth{ext_width ? 64u : 32u, false};  // IB data counters
  // A value above the declared width's maximum proves a wider counter (PortXmitWait read from
  // PortCountersExtended is 64-bit): never "pinned" at a maximum it has passed.
  if (w.bits < 64 && raw > (uint64_t{1} << w.bits) - 1) w = CounterWidth{64u, false};
  c.width_bits = w.bits;
  c.wraps = w.wraps;
  c.raw = raw;
  c.value = (c.scale > 1 && raw > std::numeric_limits<uint64_t>::max() / c.scale)
                ? std::numeric_limits<uint64_t>::max()
                : raw * c.scale;
  if (c.width_bits < 64 && !c.wraps) c.saturated = raw >= ((uint64_t{1} << c.width_bits) - 1);
  c.name = std::move(name);
  c.source = std::move(source);
  return c;
}

std::optional<NumberedState> parse_numbered_state(std::string_view text) {
  std::string t = trim(text);
  size_t colon = t.find(':');
  if (colon == std::string::npos) return std::nullopt;
  auto n = parse_i64(t.substr(0, colon));
  if (!n || *n < 0 || *n > 255) return std::nullopt;
  return NumberedState{static_cast<int>(*n), trim(t.substr(colon + 1))};
}

Snapshot read_counter_snapshot(const FsRoot& fs, const CounterReadOptions& opts) {
  Snapshot snap;
  snap.samples.reserve(kCountersReserved);
  const Clock& clock = opts.clock ? *opts.clock : real_clock();
  snap.taken_at = clock.utc_now_iso8601();
  snap.monotonic_s = clock.monotonic_s();
  bool have_rdma_class = fs.exists_sys("class/infiniband");
  if (opts.rdma) read_rdma(fs, opts, snap);
  if (opts.netdev) read_netdevs(fs, opts, snap, have_rdma_class);
  return snap;
}

}  // namespace fabdiag
