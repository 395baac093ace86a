#include "probes/capture/sysfs_capture.h"

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include "core/text.h"
#include "probes/topo/pci.h"

namespace fabdiag {

namespace fsys = std::filesystem;

namespace {

uint64_t placeholder(std::map<uint64_t, uint64_t>& m, uint64_t v) {
  auto it = m.find(v);
  if (it != m.end()) return it->second;
  uint64_t n = m.size() + 1;
  m.emplace(v, n);
  return n;
}

// "b8ce:f603:00a1:b2c4" style: `count` colon-separated groups of 1..4 hex digits.
std::optional<std::vector<uint16_t>> hex_groups(const std::string& text, size_t count, size_t max_digits) {
  auto parts = split(trim(text), ':');
  if (parts.size() != count) return std::nullopt;
  std::vector<uint16_t> out;
  for (const auto& p : parts) {
    if (p.empty() || p.size() > max_digits) return std::nullopt;
    unsigned v = 0;
    for (char c : p) {
      int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
              : (c >= 'a' && c <= 'f')                    ? c - 'a' + 10
              : (c >= 'A' && c <= 'F')                    ? c - 'A' + 10
                                                          : -1;
      if (d < 0) return std::nullopt;
      v = v * 16 + static_cast<unsigned>(d);
    }
    out.push_back(static_cast<uint16_t>(v));
  }
  return out;
}

uint64_t join16(const std::vector<uint16_t>& g, size_t from) {
  uint64_t v = 0;
  for (size_t i = from; i < from + 4; ++i) v = (v << 16) | g[i];
  return v;
}

std::string groups16(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04x:%04x:%04x:%04x", static_cast<unsigned>((v >> 48) & 0xffff),
                static_cast<unsigned>((v >> 32) & 0xffff), static_cast<unsigned>((v >> 16) & 0xffff),
                static_cast<unsigned>(v & 0xffff));
  return buf;
}

std::string bytes_text(const std::vector<uint16_t>& b) {
  std::string s;
  char buf[4];
  for (size_t i = 0; i < b.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%02x", b[i] & 0xff);
    s += (i ? ":" : "") + std::string(buf);
  }
  return s;
}

bool all_zero(const std::vector<uint16_t>& g) {
  for (auto v : g)
    if (v) return false;
  return true;
}

}  // namespace

std::string Anonymizer::guid(const std::string& text) {
  auto g = hex_groups(text, 4, 4);
  if (!g || all_zero(*g)) return text;
  return groups16(placeholder(guid_map_, join16(*g, 0)));
}

std::string Anonymizer::gid(const std::string& text) {
  auto g = hex_groups(text, 8, 4);
  if (!g || all_zero(*g)) return text;
  bool v4_mapped = (*g)[0] == 0 && (*g)[1] == 0 && (*g)[2] == 0 && (*g)[3] == 0 && (*g)[4] == 0 && (*g)[5] == 0xffff;
  if (v4_mapped) {
    uint64_t n = placeholder(ipv4_map_, (static_cast<uint64_t>((*g)[6]) << 16) | (*g)[7]);
    // 192.0.2.0/24 then 198.51.100.0/24 (documentation ranges, RFC 5737).
    unsigned hi = n <= 254 ? 0xc000 : 0xc633, lo = n <= 254 ? 0x0200 + static_cast<unsigned>(n)
                                                           : 0x6400 + static_cast<unsigned>((n - 254) % 255);
    char buf[64];
    std::snprintf(buf, sizeof buf, "0000:0000:0000:0000:0000:ffff:%04x:%04x", hi, lo);
    return buf;
  }
  uint64_t prefix = join16(*g, 0);
  std::string p = prefix == 0xfe80000000000000ULL ? groups16(prefix)
                                                   : groups16(0xfec0000000000000ULL | placeholder(prefix_map_, prefix));
  uint64_t iid = join16(*g, 4);
  return p + ":" + (iid ? groups16(placeholder(guid_map_, iid)) : groups16(0));
}

std::string Anonymizer::mac(const std::string& text) {
  auto b = hex_groups(text, 6, 2);
  if (b) {
    if (all_zero(*b)) return text;
    macs_seen_.insert(trim(text));
    uint64_t v = 0;
    for (auto x : *b) v = (v << 8) | x;
    uint64_t n = placeholder(mac_map_, v);
    return bytes_text({0x02, 0, 0, 0, static_cast<uint16_t>((n >> 8) & 0xff), static_cast<uint16_t>(n & 0xff)});
  }
  b = hex_groups(text, 20, 2);
  if (!b || all_zero(*b)) return text;
  macs_seen_.insert(trim(text));
  std::vector<uint16_t> out(b->begin(), b->begin() + 4);  // flags and QPN
  bool fe80 = (*b)[4] == 0xfe && (*b)[5] == 0x80 && (*b)[6] == 0 && (*b)[7] == 0 && (*b)[8] == 0 && (*b)[9] == 0 &&
              (*b)[10] == 0 && (*b)[11] == 0;
  for (size_t i = 4; i < 12; ++i) out.push_back(fe80 ? (*b)[i] : 0);
  uint64_t guid = 0;
  for (size_t i = 12; i < 20; ++i) guid = (guid << 8) | (*b)[i];
  uint64_t n = guid ? placeholder(guid_map_, guid) : 0;
  for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<uint16_t>((n >> shift) & 0xff));
  return bytes_text(out);
}

bool Anonymizer::clear_serial_number(std::vector<unsigned char>& config) {
  constexpr size_t kExtStart = 0x100;
  constexpr uint32_t kDsnId = 0x0003;
  std::set<size_t> seen;
  size_t off = kExtStart;
  while (off >= kExtStart && off + 4 <= config.size() && seen.insert(off).second) {
    uint32_t h = static_cast<uint32_t>(config[off]) | static_cast<uint32_t>(config[off + 1]) << 8 |
                 static_cast<uint32_t>(config[off + 2]) << 16 | static_cast<uint32_t>(config[off + 3]) << 24;
    if (h == 0 || h == 0xffffffffu) return false;
    if ((h & 0xffff) == kDsnId) {
      if (off + 12 > config.size()) return false;
      for (size_t i = off + 4; i < off + 12; ++i) config[i] = 0;
      return true;
    }
    off = (h >> 20) & 0xffc;
  }
  return false;
}

namespace {

constexpr const char* kPciAttrs[] = {
    "vendor", "device", "class", "subsystem_vendor", "subsystem_device", "revision", "numa_node",
    "local_cpulist", "local_cpus", "current_link_speed", "current_link_width", "max_link_speed",
    "max_link_width", "aer_dev_correctable", "aer_dev_fatal", "aer_dev_nonfatal",
    "aer_rootport_total_err_cor", "aer_rootport_total_err_fatal", "aer_rootport_total_err_nonfatal",
    "sriov_numvfs", "sriov_totalvfs", "enable"};
constexpr const char* kNetAttrs[] = {"addr_len", "broadcast", "type", "mtu", "operstate", "carrier", "speed", "duplex",
                                     "ifindex", "iflink", "dev_id", "dev_port", "tx_queue_len", "flags"};
constexpr const char* kIbAttrs[] = {"node_type", "fw_ver", "hca_type", "board_id", "hw_rev"};
constexpr const char* kPortAttrs[] = {"state", "phys_state", "rate", "link_layer", "lid", "sm_lid",
                                      "lid_mask_count", "sm_sl", "cap_mask"};
constexpr const char* kModules[] = {"nvidia", "nvidia_peermem", "nv_peer_mem", "mlx5_core", "mlx5_ib", "ib_core"};

class Capturer {
 public:
  Capturer(const FsRoot& fs, fsys::path out, const Progress& progress) : fs_(fs), out_(std::move(out)), progress_(progress) {}

  CaptureSummary run() {
    sum_.out_dir = out_.string();
    pci();
    net();
    infiniband();
    system();
    sum_.guids_replaced = anon_.guids();
    sum_.macs_replaced = anon_.macs();
    sum_.ipv4_replaced = anon_.ipv4s();
    write("README.md",
          "# Captured by `fabdiag gather`\n\nA /sys subset for `fabdiag --sysfs-root`. GUIDs, GIDs, MAC addresses, "
          "node descriptions and PCIe serial numbers are replaced by placeholders (probes/capture/sysfs_capture.h).\n");
    return std::move(sum_);
  }

 private:
  void gap(const Error& e) { sum_.gaps.push_back(e); }

  // Not-there answers are normal (attributes differ by device and kernel); others are gaps.
  void note(const Error& e) {
    if (e.code != ErrorCode::kNotFound && e.code != ErrorCode::kUnsupported) gap(e);
  }

  void write(const std::string& rel, const std::string& content) {
    fsys::path p = out_ / rel;
    std::error_code ec;
    fsys::create_directories(p.parent_path(), ec);
    std::ofstream f(p, std::ios::binary);
    f << content;
    if (!f) {
      gap(make_error(ErrorCode::kIo, "cannot write", p.string()));
      return;
    }
    ++sum_.files;
  }

  void mkdir(const std::string& rel) {
    std::error_code ec;
    fsys::create_directories(out_ / rel, ec);
    if (ec) gap(make_error(ErrorCode::kIo, "cannot create directory: " + ec.message(), (out_ / rel).string()));
  }

  // A relative link at `rel` to the logical path `target`.
  void link(const std::string& rel, const std::string& target) {
    fsys::path p = out_ / rel;
    std::error_code ec;
    if (fsys::is_symlink(p, ec)) return;
    fsys::create_directories(p.parent_path(), ec);
    fsys::path t = fsys::path(target).lexically_relative(fsys::path(rel).parent_path());
    fsys::create_symlink(t, p, ec);
    if (ec) {
      gap(make_error(ErrorCode::kIo, "cannot create link: " + ec.message(), p.string()));
      return;
    }
    ++sum_.links;
  }

  // Copies `src` (logical, may pass through links) to `dst` (logical, a real path), optionally
  // transformed.
  template <typename F>
  void copy(const std::string& src, const std::string& dst, F transform) {
    auto v = fs_.read_sys(src);
    if (!v) return note(v.error());
    write(dst, transform(*v) + "\n");
  }
  void copy(const std::string& src, const std::string& dst) {
    copy(src, dst, [](const std::string& s) { return s; });
  }

  // Every regular file of a directory (counters, statistics, gids...).
  template <typename F>
  void copy_files(const std::string& src_dir, const std::string& dst_dir, F transform) {
    auto names = fs_.list_sys(src_dir);
    if (!names) return note(names.error());
    for (const auto& n : *names) {
      std::error_code ec;
      if (!fsys::is_regular_file(fs_.sys_path(src_dir + "/" + n), ec)) continue;
      copy(src_dir + "/" + n, dst_dir + "/" + n, transform);
    }
  }
  void copy_files(const std::string& src_dir, const std::string& dst_dir) {
    copy_files(src_dir, dst_dir, [](const std::string& s) { return s; });
  }

  // Recreates the link `rel` (logical) at `dst` pointing where it resolves; makes sure the
  // target directory exists. Returns the canonical target, "" when absent.
  std::string relink(const std::string& rel, const std::string& dst) {
    if (!fs_.exists_sys(rel)) return "";
    auto c = fs_.canonical_sys(rel);
    if (!c) {
      gap(c.error());
      return "";
    }
    mkdir(*c);
    link(dst, *c);
    return *c;
  }

  void pci() {
    auto bdfs = list_pci_devices(fs_);
    if (!bdfs) return note(bdfs.error());
    progress_("copying " + std::to_string(bdfs->size()) + " PCI functions");
    for (const auto& bdf : *bdfs) {
      const std::string dev = "bus/pci/devices/" + bdf;
      std::string canon = relink(dev, dev);
      if (canon.empty()) continue;
      ++sum_.pci_functions;
      for (const char* a : kPciAttrs) copy(dev + "/" + a, canon + "/" + a);
      if (auto cfg = fs_.read_sys_bytes(dev + "/config", 4096)) {
        std::vector<unsigned char> bytes(cfg->begin(), cfg->end());
        sum_.serials_cleared += Anonymizer::clear_serial_number(bytes);
        write(canon + "/config", std::string(bytes.begin(), bytes.end()));
      } else {
        note(cfg.error());
      }
      if (fs_.exists_sys(dev + "/driver")) {
        if (auto name = fs_.link_name_sys(dev + "/driver")) {
          const std::string drv = "bus/pci/drivers/" + *name;
          mkdir(drv);
          link(canon + "/driver", drv);
          link(drv + "/" + bdf, canon);
        }
      }
      relink(dev + "/physfn", canon + "/physfn");
      relink(dev + "/iommu_group", canon + "/iommu_group");
    }
  }

  void net() {
    auto names = fs_.list_sys("class/net");
    if (!names) return note(names.error());
    for (const auto& n : *names) {
      const std::string rel = "class/net/" + n;
      std::string canon = relink(rel, rel);
      if (canon.empty()) continue;
      ++sum_.netdevs;
      copy(rel + "/address", canon + "/address", [&](const std::string& s) { return anon_.mac(s); });
      for (const char* a : kNetAttrs) copy(rel + "/" + a, canon + "/" + a);
      copy_files(rel + "/statistics", canon + "/statistics");
      relink(rel + "/device", canon + "/device");
    }
  }

  void infiniband() {
    auto names = fs_.list_sys("class/infiniband");
    if (!names) return note(names.error());
    for (const auto& ib : *names) {
      const std::string rel = "class/infiniband/" + ib;
      std::string canon = relink(rel, rel);
      if (canon.empty()) continue;
      ++sum_.ibdevs;
      auto guid = [&](const std::string& s) { return anon_.guid(s); };
      copy(rel + "/node_guid", canon + "/node_guid", guid);
      copy(rel + "/sys_image_guid", canon + "/sys_image_guid", guid);
      copy(rel + "/node_desc", canon + "/node_desc", [&](const std::string&) { return "node01 " + ib; });
      for (const char* a : kIbAttrs) copy(rel + "/" + a, canon + "/" + a);
      relink(rel + "/device", canon + "/device");
      copy_files(rel + "/hw_counters", canon + "/hw_counters");
      auto ports = fs_.list_sys(rel + "/ports");
      if (!ports) {
        note(ports.error());
        continue;
      }
      for (const auto& p : *ports) {
        const std::string src = rel + "/ports/" + p, dst = canon + "/ports/" + p;
        for (const char* a : kPortAttrs) copy(src + "/" + a, dst + "/" + a);
        copy_files(src + "/gids", dst + "/gids", [&](const std::string& s) { return anon_.gid(s); });
        copy_files(src + "/gid_attrs/types", dst + "/gid_attrs/types");
        copy_files(src + "/gid_attrs/ndevs", dst + "/gid_attrs/ndevs");
        copy_files(src + "/pkeys", dst + "/pkeys");
        copy_files(src + "/counters", dst + "/counters");
        copy_files(src + "/hw_counters", dst + "/hw_counters");
      }
    }
  }

  void system() {
    for (const char* f : {"devices/system/node/online", "devices/system/node/possible", "devices/system/cpu/online",
                          "devices/system/cpu/possible"})
      copy(f, f);
    if (auto nodes = fs_.list_sys("devices/system/node")) {
      for (const auto& n : *nodes)
        if (starts_with(n, "node") && parse_u64(n.substr(4))) copy("devices/system/node/" + n + "/cpulist", "devices/system/node/" + n + "/cpulist");
    }
    if (auto iommus = fs_.list_sys("class/iommu"))
      for (const auto& i : *iommus) relink("class/iommu/" + i, "class/iommu/" + i);
    for (const char* m : kModules) copy(std::string("module/") + m + "/version", std::string("module/") + m + "/version");
    if (auto peers = fs_.list_sys("kernel/mm/memory_peers"))
      for (const auto& p : *peers) copy("kernel/mm/memory_peers/" + p + "/version", "kernel/mm/memory_peers/" + p + "/version");
  }

  const FsRoot& fs_;
  fsys::path out_;
  const Progress& progress_;
  Anonymizer anon_;
  CaptureSummary sum_;
};

}  // namespace

Result<CaptureSummary> capture_sysfs(const FsRoot& fs, const std::string& out_dir, const Progress& progress) {
  if (!fs.exists_sys("bus/pci/devices") && !fs.exists_sys("class/net"))
    return make_error(ErrorCode::kNotFound, "no bus/pci/devices and no class/net: not a sysfs tree", fs.sysfs_root());
  std::error_code ec;
  fsys::path out(out_dir);
  if (fsys::exists(out, ec)) {
    if (!fsys::is_directory(out, ec) || !fsys::is_empty(out, ec))
      return make_error(ErrorCode::kInvalidArgument,
                        "exists and is not an empty directory; gather writes a new tree (choose a new path)", out_dir);
  } else {
    fsys::create_directories(out, ec);
    if (ec)
      return make_error(ec == std::errc::permission_denied ? ErrorCode::kPermission : ErrorCode::kIo,
                        "cannot create directory: " + ec.message(), out_dir);
  }
  Capturer c(fs, out, progress);
  return c.run();
}

}  // namespace fabdiag
