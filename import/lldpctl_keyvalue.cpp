// `lldpctl -f keyvalue` (import/lldpctl.h): lldpd's kv writer (src/client/kv_writer.c) prints
// one "KEY=VALUE" line per leaf, KEY the path of tags joined by '.', where a "name" or "type"
// attribute replaces its tag (display.c: the interface tag becomes the interface name, the
// chassis and port "id" tags become the id subtype):
//   lldp.eth0.via=LLDP                      lldp.eth0.chassis.mac=00:00:00:00:00:02
//   lldp.eth0.chassis.name=leaf01           lldp.eth0.chassis.Bridge.enabled=on
//   lldp.eth0.port.ifname=Ethernet4         lldp.eth0.port.descr=...   lldp.eth0.port.mfs=9236
//   lldp.eth0.port.auto-negotiation.current=25GbaseSR - ...  lldp.eth0.vlan.vlan-id=100
// An interface name may hold dots (bond0.100): it ends where a known tag starts.
#include "core/text.h"
#include "import/common.h"
#include "import/host_prefix.h"
#include "import/latest_records.h"
#include "import/lldpctl.h"
#include "import/whole_lines.h"

namespace fabdiag {
namespace {

bool is_interface_tag(const std::string& c) {
  for (const char* t : {"via", "rid", "age", "alias", "status", "chassis", "port", "vlan", "ttl", "ppvid", "pi",
                        "lldp-med", "unknown-tlvs"})
    if (c == t) return true;
  return false;
}

bool is_id_subtype(const std::string& c) {
  for (const char* t : {"mac", "ip", "ifname", "ifalias", "local", "unhandled"})
    if (c == t) return true;
  return false;
}

struct KvLine {
  std::string host, ifname;
  std::vector<std::string> path;  // the tags after the interface name
  std::string value;
};

std::optional<KvLine> split_kv(std::string_view raw) {
  HostPrefixed hp = split_host_prefix(trim(raw));
  std::string t = trim(hp.text);
  size_t eq = t.find('=');
  if (!starts_with(t, "lldp.") || eq == std::string::npos) return std::nullopt;
  auto comps = split(t.substr(5, eq - 5), '.');
  size_t i = 1;
  while (i < comps.size() && !is_interface_tag(comps[i])) ++i;
  if (comps.empty() || comps[0].empty() || i >= comps.size()) return std::nullopt;
  KvLine kv;
  kv.host = hp.host;
  kv.ifname = comps[0];
  for (size_t k = 1; k < i; ++k) kv.ifname += "." + comps[k];
  kv.path.assign(comps.begin() + static_cast<std::ptrdiff_t>(i), comps.end());
  kv.value = t.substr(eq + 1);
  return kv;
}

std::optional<int> small_int(const std::string& v) {
  auto n = parse_i64(v);
  if (!n || *n < 0 || *n > 1000000) return std::nullopt;
  return static_cast<int>(*n);
}

void read_chassis(LldpNeighbor& n, const std::vector<std::string>& p, const std::string& v) {
  if (p.size() == 2 && is_id_subtype(p[1])) n.chassis_id_type = p[1], n.chassis_id = v;
  else if (p.size() == 2 && p[1] == "name") n.sysname = v;
  else if (p.size() == 2 && p[1] == "descr") n.sysdescr = v;
  else if (p.size() == 2 && p[1] == "mgmt-ip") n.mgmt_ips.push_back(v);
  else if (p.size() == 2 && p[1] == "ttl") n.ttl_s = small_int(v);  // lldpd before 0.9.8
  else if (p.size() == 3 && p[2] == "enabled" && v == "on") n.capabilities.push_back(p[1]);
}

void read_port(LldpNeighbor& n, const std::vector<std::string>& p, const std::string& v) {
  if (p.size() == 2 && is_id_subtype(p[1])) n.port_id_type = p[1], n.port_id = v;
  else if (p.size() == 2 && p[1] == "descr") n.port_descr = v;
  else if (p.size() == 2 && p[1] == "ttl") n.ttl_s = small_int(v);
  else if (p.size() == 2 && p[1] == "mfs") n.mfs = small_int(v);
  else if (p.size() == 3 && p[1] == "auto-negotiation") {
    if (p[2] == "supported") n.autoneg_supported = v == "yes";
    else if (p[2] == "enabled") n.autoneg_enabled = v == "yes";
    else if (p[2] == "current") n.mau_oper_type = v;
  }
}

void read_field(LldpNeighbor& n, const KvLine& kv) {
  const auto& p = kv.path;
  if (p[0] == "via" && p.size() == 1) n.via = kv.value;
  else if (p[0] == "age" && p.size() == 1) n.age = kv.value;
  else if (p[0] == "chassis") read_chassis(n, p, kv.value);
  else if (p[0] == "port") read_port(n, p, kv.value);
  else if (p[0] == "vlan" && p.size() == 2 && p[1] == "vlan-id") {
    if (auto id = small_int(kv.value)) n.vlans.push_back(*id);
  } else if (p[0] == "vlan" && p.size() == 2 && p[1] == "pvid" && kv.value == "yes" && !n.vlans.empty()) {
    n.pvid = n.vlans.back();
  }
}

struct KvReader {
  LldpImport imp;
  LatestRecords latest;  // the neighbours heard again (a later capture) replace the earlier
  std::string cur_host, cur_if;
  LineTally other;
};

void read_kv_line(KvReader& r, const std::string& raw, size_t line_no) {
  std::string t = trim(raw);
  if (t.empty() || starts_with(t, "###")) return;
  auto kv = split_kv(t);
  if (!kv) {
    r.other.add(line_no, t);
    return;
  }
  bool second_neighbor = kv->path.size() == 1 && kv->path[0] == "via" && !r.imp.neighbors.empty() &&
                         !r.imp.neighbors.back().via.empty();
  if (r.imp.neighbors.empty() || kv->ifname != r.cur_if || kv->host != r.cur_host || second_neighbor) {
    LldpNeighbor n;
    n.local_port = kv->ifname;
    n.host = kv->host;
    n.line = line_no;
    if (!r.imp.neighbors.empty()) r.latest.settle_last(r.imp.neighbors, lldp_neighbor_key(r.imp.neighbors.back()));
    r.imp.neighbors.push_back(std::move(n));
    r.cur_if = kv->ifname;
    r.cur_host = kv->host;
  }
  read_field(r.imp.neighbors.back(), *kv);
}

}  // namespace

bool is_lldpctl_keyvalue_line(std::string_view line) { return split_kv(line).has_value(); }

Result<LldpImport> read_lldpctl_keyvalue(LineSource& lines, const std::string& source, const std::string& first,
                                         size_t first_no) {
  KvReader r;
  r.imp.source = source;
  r.imp.format = "keyvalue";
  read_kv_line(r, first, first_no);
  auto st = read_whole_lines(
      lines, source, [&r](const std::string& l, size_t n) { read_kv_line(r, l, n); }, [] { return true; },
      r.imp.gaps);
  if (!st) return st.error();
  if (!r.imp.neighbors.empty()) r.latest.settle_last(r.imp.neighbors, lldp_neighbor_key(r.imp.neighbors.back()));
  if (r.imp.neighbors.empty())
    return not_this_format("`lldpctl -f keyvalue` output (\"lldp.eth0.chassis.name=...\" lines)", source, r.other);
  add_tally_gap(r.imp.gaps, source, r.other, "line(s) not understood");
  return std::move(r.imp);
}

}  // namespace fabdiag
