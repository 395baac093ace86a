#include "import/common.h"

#include <cctype>

#include "core/text.h"
#include "import/format_detect.h"
#include "probes/counters/sysfs_counters.h"

namespace fabdiag {
namespace {

// The part of a sysfs path from "class/" on, or "" when it is not under class/.
// Where the class-relative part of a sysfs path starts: "class/..." itself, or, for the same
// directory reached through the device tree ("/sys/devices/pci0000:05/.../infiniband/i40iw0/..."),
// the "/infiniband/" or "/net/" after it. npos when the path is neither.
size_t class_anchor(const std::string& path) {
  size_t at = path.find("class/");
  if (at != std::string::npos) return at > 0 && path[at - 1] != '/' ? std::string::npos : at;
  if (path.find("devices/") == std::string::npos) return std::string::npos;
  for (const char* kind : {"/infiniband/", "/net/"})
    if (size_t k = path.find(kind); k != std::string::npos) return k;
  return std::string::npos;
}

std::string class_path(const std::string& path) {
  size_t at = class_anchor(path);
  if (at == std::string::npos) return {};
  return path[at] == '/' ? "class" + path.substr(at) : path.substr(at);
}

// Splits "path:value" at the first ':' after "class/" (names under class/ hold no ':', while
// values may hold ':' and '/': "4: ACTIVE", "100 Gb/sec (4X EDR)").
bool split_line(const std::string& line, std::string& path, std::string& value) {
  size_t cls = class_anchor(line);
  if (cls == std::string::npos) return false;
  size_t colon = line.find(':', cls);
  if (colon == std::string::npos) return false;
  path = trim(line.substr(0, colon));
  value = trim(line.substr(colon + 1));
  return true;
}

}  // namespace

std::string strip_launcher_tags(std::string_view line) {
  std::string out;
  size_t i = 0;
  while (i < line.size()) {
    size_t open = line.find('[', i);
    if (open == std::string_view::npos) break;
    // "[" digits "," digits "]<stdout>:" or "]<stderr>:"
    size_t j = open + 1, digits = 0, comma = 0;
    while (j < line.size() && (std::isdigit(static_cast<unsigned char>(line[j])) || line[j] == ',')) {
      comma += line[j] == ',';
      digits += line[j] != ',';
      ++j;
    }
    std::string_view rest = line.substr(j);
    size_t tag = 0;
    if (comma == 1 && digits >= 2) {
      if (starts_with(rest, "]<stdout>:") || starts_with(rest, "]<stderr>:")) tag = 10;
    }
    out.append(line.substr(i, open - i));
    if (tag) {
      i = j + tag;
    } else {
      out += '[';
      i = open + 1;
    }
  }
  if (i < line.size()) out.append(line.substr(i));
  return out;
}

std::string line_source(const std::string& source, size_t line) {
  return source + ":" + std::to_string(line);
}

void LineTally::add(size_t line, std::string_view text) {
  if (count++ == 0) {
    first = line;
    first_text = quote_line(text);
  }
}

Error not_this_format(const std::string& expected, const std::string& source, const LineTally& other) {
  if (other.count == 0) return make_error(ErrorCode::kParse, "expected " + expected + ", but the input is empty", source);
  return make_error(ErrorCode::kParse,
                    "expected " + expected + ", found none; the first line that is not: " + other.first_text,
                    line_source(source, other.first));
}

bool is_sysfs_line(std::string_view line) {
  std::string path, value;
  if (!split_line(trim(line), path, value)) return false;
  std::string cp = class_path(path);
  return starts_with(cp, "class/infiniband/") || starts_with(cp, "class/net/");
}

bool looks_like_sysfs_lines(std::string_view text) {
  size_t lines = 0, sysfs = 0;
  for (const auto& raw : split(text, '\n')) {
    std::string t = trim(raw);
    if (t.empty()) continue;
    ++lines;
    sysfs += is_sysfs_line(t);
  }
  return lines > 0 && sysfs * 2 > lines;
}

void merge_port(std::vector<PortInfo>& ports, const PortInfo& p) {
  for (auto& q : ports) {
    if (q.device != p.device) continue;
    auto fill = [](std::string& a, const std::string& b) {
      if (a.empty()) a = b;
    };
    fill(q.ibdev, p.ibdev);
    fill(q.netdev, p.netdev);
    fill(q.driver, p.driver);
    fill(q.link_layer, p.link_layer);
    fill(q.state, p.state);
    fill(q.phys_state, p.phys_state);
    fill(q.rate, p.rate);
    fill(q.sysfs_dir, p.sysfs_dir);
    if (!q.port) q.port = p.port;
    q.is_rdma = q.is_rdma || p.is_rdma;
    return;
  }
  ports.push_back(p);
}

namespace {

// class/infiniband/<ibdev>/... split into parts: a counter or a port attribute.
void read_infiniband(const std::vector<std::string>& parts, const std::string& path, const std::string& value,
                     const std::string& src, Snapshot& snap, std::vector<PortInfo>& ports) {
  const std::string& ibdev = parts[2];
  std::string driver = ibdev;  // width rules match "mlx5_0" like "mlx5_core"
  if (parts.size() == 5 && parts[3] == "hw_counters") {
    if (parts[4] == "lifespan") return;
    auto v = parse_counter_text(value, src);
    if (!v) return snap.gaps.push_back(v.error());
    snap.samples.push_back(make_counter(ibdev, CounterGroup::kIbHwCounters, parts[4], *v, driver, src));
    return;
  }
  if (parts.size() < 6 || parts[3] != "ports" || !parse_u64(parts[4])) return;
  PortInfo p;
  p.device = ibdev + "/" + parts[4];
  p.ibdev = ibdev;
  p.port = static_cast<int>(*parse_u64(parts[4]));
  p.is_rdma = true;
  p.sysfs_dir = path.substr(0, path.rfind('/'));
  if (parts.size() == 7 && (parts[5] == "counters" || parts[5] == "hw_counters")) {
    merge_port(ports, p);
    if (parts[6] == "lifespan") return;
    auto v = parse_counter_text(value, src);
    if (!v) return snap.gaps.push_back(v.error());
    auto group = parts[5] == "counters" ? CounterGroup::kIbPortCounters : CounterGroup::kIbHwCounters;
    bool ext = group == CounterGroup::kIbHwCounters || *v > 0xFFFFFFFFull;
    snap.samples.push_back(make_counter(p.device, group, parts[6], *v, driver, src, ext));
  } else if (parts.size() == 6) {
    if (parts[5] == "state") p.state = value;
    else if (parts[5] == "phys_state") p.phys_state = value;
    else if (parts[5] == "rate") p.rate = value;
    else if (parts[5] == "link_layer") p.link_layer = value;
    else return;
    merge_port(ports, p);
  }
}

// class/net/<if>/statistics/<name> and class/net/<if>/carrier_*.
void read_net(const std::vector<std::string>& parts, const std::string& value, const std::string& src,
              Snapshot& snap, std::vector<PortInfo>& ports) {
  const std::string& nd = parts[2];
  std::string name;
  if (parts.size() == 5 && parts[3] == "statistics") name = parts[4];
  else if (parts.size() == 4 && starts_with(parts[3], "carrier_")) name = parts[3];
  else return;
  PortInfo p;
  p.device = p.netdev = nd;
  merge_port(ports, p);
  auto v = parse_counter_text(value, src);
  if (!v) return snap.gaps.push_back(v.error());
  snap.samples.push_back(make_counter(nd, CounterGroup::kNetdevStats, name, *v, "", src));
}

}  // namespace

bool read_sysfs_line(std::string_view line, const std::string& source, size_t line_no, Snapshot& snap,
                     std::vector<PortInfo>& ports) {
  std::string path, value;
  if (!split_line(trim(line), path, value)) return false;
  std::string cp = class_path(path);
  if (!starts_with(cp, "class/infiniband/") && !starts_with(cp, "class/net/")) return false;
  auto parts = split(cp, '/');
  std::string src = line_source(source, line_no);
  if (parts.size() >= 4 && parts[1] == "infiniband") read_infiniband(parts, path, value, src, snap, ports);
  else if (parts.size() >= 4 && parts[1] == "net") read_net(parts, value, src, snap, ports);
  return true;
}

void read_sysfs_lines(const TextSection& section, const std::string& source, Snapshot& snap,
                      std::vector<PortInfo>& ports) {
  size_t line_no = section.first_line - 1;
  for (const auto& raw : split(section.text, '\n')) read_sysfs_line(raw, source, ++line_no, snap, ports);
}

void add_cut_lines_gap(const LineSource& lines, const std::string& source, std::vector<Error>& gaps) {
  if (lines.cut_lines() == 0) return;
  gaps.push_back(make_error(ErrorCode::kParse,
                            std::to_string(lines.cut_lines()) + " line(s) longer than " +
                                std::to_string(kMaxLineBytes >> 20) + " MiB were cut: the rest of each was not read",
                            source));
}

}  // namespace fabdiag
