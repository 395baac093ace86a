#include "import/lldpctl.h"

#include <algorithm>
#include <cctype>

#include "core/text.h"
#include "import/common.h"
#include "import/latest_records.h"
#include "import/whole_lines.h"

namespace fabdiag {
namespace {

constexpr size_t kMaxJsonBytes = size_t{64} << 20;

std::string lower_ascii(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

struct TextReader {
  LldpImport imp;
  LatestRecords latest;  // the neighbours heard again (a later capture) replace the earlier
  bool in_block = false;
  std::string section;  // "Chassis", "Port", "" (interface level)
  LineTally other;
};

// "Interface:    eth0, via: LLDP, RID: 1, Time: 0 day, 17:38:08"
bool read_interface_line(TextReader& r, const std::string& t, size_t line_no) {
  if (!starts_with(t, "Interface:")) return false;
  auto parts = split(t.substr(10), ',');
  LldpNeighbor n;
  n.local_port = trim(parts[0]);
  n.line = line_no;
  for (size_t i = 1; i < parts.size(); ++i) {
    std::string p = trim(parts[i]);
    if (starts_with(p, "via:")) n.via = trim(p.substr(4));
    if (starts_with(p, "Time:")) n.age = trim(t.substr(t.find("Time:") + 5));
  }
  if (!r.imp.neighbors.empty()) r.latest.settle_last(r.imp.neighbors, lldp_neighbor_key(r.imp.neighbors.back()));
  r.imp.neighbors.push_back(std::move(n));
  r.in_block = true;
  r.section.clear();
  return true;
}

// "mac 00:11:22:33:44:55" -> type and value.
void type_value(const std::string& v, std::string& type, std::string& value) {
  auto sp = v.find(' ');
  type = v.substr(0, sp);
  value = sp == std::string::npos ? "" : trim(v.substr(sp));
}

void read_field(LldpNeighbor& n, const std::string& key, const std::string& v) {
  if (key == "ChassisID") type_value(v, n.chassis_id_type, n.chassis_id);
  else if (key == "SysName") n.sysname = v;
  else if (key == "SysDescr") n.sysdescr = v;
  else if (key == "MgmtIP") n.mgmt_ips.push_back(v);
  else if (key == "Capability" && ends_with(v, ", on")) n.capabilities.push_back(v.substr(0, v.size() - 4));
  else if (key == "PortID") type_value(v, n.port_id_type, n.port_id);
  else if (key == "PortDescr") n.port_descr = v;
  else if (key == "TTL") n.ttl_s = parse_i64(v) ? std::optional<int>(static_cast<int>(*parse_i64(v))) : std::nullopt;
  else if (key == "MFS") n.mfs = parse_i64(v) ? std::optional<int>(static_cast<int>(*parse_i64(v))) : std::nullopt;
  else if (key == "MAU oper type") n.mau_oper_type = v;
  else if (key == "PMD autoneg") {
    n.autoneg_supported = v.find("supported: yes") != std::string::npos;
    n.autoneg_enabled = v.find("enabled: yes") != std::string::npos;
  } else if (key == "VLAN") {
    auto id = parse_i64(trim(v.substr(0, v.find(','))));
    if (id) {
      n.vlans.push_back(static_cast<int>(*id));
      if (v.find("pvid: yes") != std::string::npos) n.pvid = static_cast<int>(*id);
    }
  }
}

void read_text_line(TextReader& r, const std::string& raw, size_t line_no) {
  std::string t = trim(raw);
  if (t.empty() || starts_with(t, "###") || t.find_first_not_of('-') == std::string::npos) return;
  if (t == "LLDP neighbors:" || read_interface_line(r, t, line_no)) return;
  size_t colon = t.find(':');
  if (!r.in_block || colon == std::string::npos) {
    r.other.add(line_no, t);
    return;
  }
  std::string key = t.substr(0, colon), value = trim(t.substr(colon + 1));
  read_field(r.imp.neighbors.back(), key, value);  // unknown keys (LLDP-MED, Adv:, PPVID) are kept out
}

}  // namespace

std::string lldp_neighbor_key(const LldpNeighbor& n) {
  return n.host + "|" + n.local_port + "|" + n.chassis_id + "|" + n.port_id;
}

namespace {

Result<LldpImport> read_text(LineSource& lines, const std::string& source, std::string first, size_t first_no) {
  TextReader r;
  r.imp.source = source;
  r.imp.format = "text";
  read_text_line(r, first, first_no);
  auto st = read_whole_lines(
      lines, source, [&r](const std::string& l, size_t n) { read_text_line(r, l, n); },
      [&r] { return r.in_block; }, r.imp.gaps);
  if (!st) return st.error();
  if (!r.imp.neighbors.empty()) r.latest.settle_last(r.imp.neighbors, lldp_neighbor_key(r.imp.neighbors.back()));
  if (r.imp.neighbors.empty() && !r.in_block)
    return not_this_format("lldpctl output (\"Interface:    eth0, via: LLDP, ...\" blocks, or -f json)", source,
                           r.other);
  add_tally_gap(r.imp.gaps, source, r.other, "line(s) not understood");
  return std::move(r.imp);
}

Result<LldpImport> read_json(LineSource& lines, const std::string& source, std::string text) {
  while (auto raw = lines.next()) {
    text.append(raw->data(), raw->size());
    text += '\n';
    if (text.size() > kMaxJsonBytes)
      return make_error(ErrorCode::kParse, "lldpctl JSON larger than 64 MiB: not read", source);
  }
  if (lines.error()) return *lines.error();
  return parse_lldpctl_json(text, source);
}

void add_speeds(LldpImport& imp) {
  for (auto& n : imp.neighbors) {
    if ((n.speed_gbps = lldp_speed_of_mau(n.mau_oper_type))) n.speed_from = "mau";
    else if ((n.speed_gbps = lldp_speed_of_port_name(n.port_id_type == "ifname" || n.port_id_type == "local" ||
                                                             n.port_id_type.empty()
                                                         ? n.port_id
                                                         : n.port_descr)))
      n.speed_from = "port name";
  }
}

}  // namespace

std::optional<double> lldp_speed_of_mau(std::string_view mau) {
  // "25GbaseSR", "100GbaseCR4", "10GigBaseCX4", "1000BaseTFD", "100BaseTXFD"
  size_t i = 0;
  while (i < mau.size() && std::isdigit(static_cast<unsigned char>(mau[i]))) ++i;
  if (i == 0) return std::nullopt;
  double v = static_cast<double>(*parse_u64(mau.substr(0, i)));
  std::string rest = lower_ascii(std::string(mau.substr(i)));
  if (starts_with(rest, "gbase") || starts_with(rest, "gigbase")) return v;
  if (starts_with(rest, "base")) return v / 1000;
  return std::nullopt;
}

std::optional<double> lldp_speed_of_port_name(std::string_view port) {
  std::string p = lower_ascii(std::string(port));
  p.erase(std::remove(p.begin(), p.end(), '-'), p.end());
  static const std::pair<const char*, double> names[] = {
      {"eighthundredgig", 800}, {"fourhundredgig", 400}, {"twohundredgig", 200}, {"hundredgig", 100},
      {"fiftygig", 50}, {"fortygig", 40}, {"twentyfivegig", 25}, {"tengig", 10}, {"gigabitethernet", 1}};
  for (const auto& [name, gbps] : names)
    if (starts_with(p, name)) return gbps;
  return std::nullopt;
}

Result<LldpImport> import_lldpctl(std::string_view text, const std::string& source) {
  auto lines = text_line_source(std::string(text));
  return import_lldpctl(*lines, source, ReadLimits{});
}

Result<LldpImport> import_lldpctl(LineSource& lines, const std::string& source, const ReadLimits&) {
  while (auto raw = lines.next()) {
    std::string t = trim(*raw);
    if (t.empty()) continue;
    Result<LldpImport> r = t[0] == '{'                    ? read_json(lines, source, std::string(*raw) + "\n")
                           : is_lldpctl_keyvalue_line(t) ? read_lldpctl_keyvalue(lines, source, t, lines.line_no())
                                                         : read_text(lines, source, std::string(*raw), lines.line_no());
    if (r) add_speeds(*r);
    return r;
  }
  if (lines.error()) return *lines.error();
  return make_error(ErrorCode::kParse, "expected lldpctl output, but the input is empty", source);
}

}  // namespace fabdiag
