#include "import/ibportstate.h"

#include <algorithm>
#include <cmath>

#include "core/text.h"
#include "import/common.h"
#include "import/host_prefix.h"
#include "import/latest_records.h"
#include "import/whole_lines.h"

namespace fabdiag {
namespace {

// What an after_set block takes from the block before it in reading order (finish_port()).
struct PreviousBlock {
  bool read = false, mlnx_ext = false, fdr10_supported = false, fdr10_enabled = false, fdr10_active = false;
  int port = -1;
  std::string portid, host;
};

struct Reader {
  IbportstateImport imp;
  LatestRecords latest;      // a block read again (a later capture of its port) replaces the earlier
  LatestRecords latest_warn;  // so does a warning of a host read again
  PreviousBlock previous;
  bool unsettled = false;    // ports.back() is still being read
  std::string role = "port", node_kind;  // of the next block
  bool in_block = false, in_mlnx_ext = false, cut = false;
  LineTally other;
};

void settle_block(Reader& r, bool whole);

// "Switch PortInfo:" -> "Switch"; "Initial CA/RT PortInfo:" -> "CA/RT"; "" when not a title.
std::string title_kind(const std::string& t) {
  std::string s = t;
  if (starts_with(s, "Initial ")) s = s.substr(8);
  if (s == "Switch PortInfo:") return "Switch";
  if (s == "CA/RT PortInfo:") return "CA/RT";
  return "";
}

// "# Port info: Lid 3 port 1" -> block started; false when not such a line.
bool start_block(Reader& r, const std::string& host, const std::string& t, size_t line_no) {
  if (!starts_with(t, "# Port info: ")) return false;
  std::string rest = t.substr(13);
  size_t at = rest.rfind(" port ");
  if (at == std::string::npos) return false;
  auto port = parse_u64(trim(rest.substr(at + 6)));
  if (!port || *port > 255) return false;
  IbPortInfo p;
  p.role = r.role;
  p.node_kind = r.role == "peer" ? "" : r.node_kind;  // a peer's kind is told by its own block
  p.host = host;
  p.portid = trim(rest.substr(0, at));
  p.port = static_cast<int>(*port);
  p.line = line_no;
  settle_block(r, true);
  r.imp.ports.push_back(std::move(p));
  r.unsettled = true;
  r.in_block = true;
  r.in_mlnx_ext = false;
  r.role = "port";
  return true;
}

// "# MLNX ext Port info:" fields: LinkSpeedSupported/Enabled/Active are bit masks, FDR10 0x01.
void read_mlnx_ext_field(IbPortInfo& p, const std::string& key, const std::string& value) {
  auto mask = parse_u64(value);
  if (!mask || !starts_with(key, "LinkSpeed")) return;
  bool fdr10 = (*mask & 0x01) != 0;
  if (key == "LinkSpeedSupported") p.fdr10_supported = fdr10;
  else if (key == "LinkSpeedEnabled") p.fdr10_enabled = fdr10;
  else if (key == "LinkSpeedActive") p.fdr10_active = fdr10;
}

void read_field(IbPortInfo& p, const std::string& key, const std::string& value) {
  if (p.role == "peer" && (key == "Mkey" || key == "MkeyLeasePeriod" || key == "ProtectBits"))
    p.node_kind = "CA/RT";  // printed for CA and router ports only (show_port_info)
  if (key == "LinkState") p.link_state = value;
  else if (key == "PhysLinkState") p.phys_state = value;
  else if (key == "Lid") {
    if (auto v = parse_u64(value)) p.lid = *v;
  } else if (key == "LinkWidthSupported") p.width_supported = ibportstate_widths(value);
  else if (key == "LinkWidthEnabled") p.width_enabled = ibportstate_widths(value);
  else if (key == "LinkWidthActive") {
    auto w = ibportstate_widths(value);
    if (w.size() == 1) p.width_active = w[0];
  } else if (starts_with(key, "LinkSpeed")) {
    auto speeds = ibportstate_speeds_gbps(value);
    if (ends_with(key, "Supported")) p.speed_supported_gbps.insert(p.speed_supported_gbps.end(), speeds.begin(), speeds.end());
    else if (ends_with(key, "Enabled")) p.speed_enabled_gbps.insert(p.speed_enabled_gbps.end(), speeds.begin(), speeds.end());
    else if (ends_with(key, "Active") && !speeds.empty())  // the extended speed when in use: the fastest named
      p.speed_active_gbps = std::max(p.speed_active_gbps.value_or(0), speeds[0]);
  }
}

// "LinkState:.......Active" -> (key, value); false when the line is not a dotted field.
bool split_field(const std::string& t, std::string& key, std::string& value) {
  size_t colon = t.find(':');
  if (colon == std::string::npos || colon == 0 || t.find(' ') < colon) return false;
  key = t.substr(0, colon);
  size_t v = t.find_first_not_of('.', colon + 1);
  value = v == std::string::npos ? "" : trim(t.substr(v));
  return true;
}

void read_warning(Reader& r, const std::string& host, const std::string& t, size_t line_no) {
  std::string rest = trim(t.substr(7));  // after "ibwarn:"
  if (!rest.empty() && rest[0] == '[') {
    size_t close = rest.find(']');
    if (close != std::string::npos) rest = trim(rest.substr(close + 1));
  }
  r.latest_warn.put(r.imp.warnings, host + "|" + rest, IbportstateWarning{host, rest, line_no});
}

void read_line(Reader& r, const std::string& raw, size_t line_no) {
  std::string t = trim(strip_launcher_tags(raw));
  if (t.empty() || starts_with(t, "###")) return;
  std::string host;
  if (!starts_with(t, "ibwarn:")) {
    HostPrefixed hp = split_host_prefix(t);
    host = hp.host;
    t = trim(hp.text);
  }
  if (starts_with(t, "ibwarn:")) return read_warning(r, host, t, line_no);
  if (std::string kind = title_kind(t); !kind.empty()) {
    r.node_kind = kind, r.role = "port", r.in_block = false;
    return;
  }
  if (t == "Peer PortInfo:" || t == "After PortInfo set:") {
    r.role = t[0] == 'P' ? "peer" : "after_set";
    r.in_block = false;
    return;
  }
  if (t == "After MLNXExtendedPortInfo set:") return;  // `fdr10 N`: the MLNX ext block of the Initial port follows
  if (start_block(r, host, t, line_no)) return;
  if (starts_with(t, "# MLNX ext Port info:") && r.in_block) {
    r.in_mlnx_ext = true;
    r.imp.ports.back().mlnx_ext = true;
    return;
  }
  std::string key, value;
  if (r.in_block && split_field(t, key, value)) {
    if (r.in_mlnx_ext) read_mlnx_ext_field(r.imp.ports.back(), key, value);
    else read_field(r.imp.ports.back(), key, value);
    return;
  }
  // The tool's own lines: "Disable may be irreversible", a shell prompt of the paste.
  if (t == "Disable may be irreversible" || (t[0] == '#' && t.find("ibportstate") != std::string::npos)) return;
  r.other.add(line_no, t);
}

void add_speed(std::vector<double>& speeds, double gbps) {
  for (double s : speeds)
    if (std::fabs(s - gbps) < 1e-6) return;
  speeds.push_back(gbps);
  std::sort(speeds.begin(), speeds.end());
}

// A block read to its end (the next one started, or the text ended): an after_set block takes
// the MLNX ext bits of the Initial block it follows (ibportstate prints that block once, before the
// set), FDR10 joins the speed sets, and a whole peer block that printed no M_Key fields is a
// switch port's.
void finish_port(const PreviousBlock& before, IbPortInfo& p, bool whole) {
  if (p.role == "after_set" && !p.mlnx_ext && before.read && before.mlnx_ext && before.port == p.port &&
      before.portid == p.portid && before.host == p.host) {
    p.mlnx_ext = true;
    p.fdr10_supported = before.fdr10_supported;
    p.fdr10_enabled = before.fdr10_enabled;
    p.fdr10_active = before.fdr10_active;
  }
  if (p.fdr10_supported) add_speed(p.speed_supported_gbps, kFdr10LaneGbps);
  if (p.fdr10_enabled) add_speed(p.speed_enabled_gbps, kFdr10LaneGbps);
  // FDR10 runs where PortInfo says 10.0 (QDR) and no extended speed is active.
  if (p.fdr10_active && p.speed_active_gbps.value_or(0) <= 10.0 + 1e-6) p.speed_active_gbps = kFdr10LaneGbps;
  if (p.role == "peer" && p.node_kind.empty() && whole && !p.link_state.empty()) p.node_kind = "Switch";
}

// The block being read is finished (`whole`: not cut by the end of the text) and settled: a block
// of the same host, role, port id and port read before is replaced in place by it.
void settle_block(Reader& r, bool whole) {
  if (!r.unsettled) return;
  r.unsettled = false;
  IbPortInfo& p = r.imp.ports.back();
  finish_port(r.previous, p, whole);
  r.previous = {true, p.mlnx_ext, p.fdr10_supported, p.fdr10_enabled, p.fdr10_active, p.port, p.portid, p.host};
  r.latest.settle_last(r.imp.ports, ibportstate_block_key(p));
}

}  // namespace

std::string ibportstate_block_key(const IbPortInfo& p) {
  return p.host + "|" + p.role + "|" + p.portid + "|" + std::to_string(p.port);
}

bool is_ibportstate_marker(std::string_view line) {
  HostPrefixed hp = split_host_prefix(line);  // pdsh / clush: "node07: Switch PortInfo:"
  std::string t = trim(hp.host.empty() ? std::string(line) : hp.text);
  if (!title_kind(t).empty() || t == "Peer PortInfo:") return true;
  return starts_with(t, "# Port info: ") && t.rfind(" port ") != std::string::npos &&
         parse_u64(trim(t.substr(t.rfind(" port ") + 6))).has_value();
}

std::vector<double> ibportstate_speeds_gbps(std::string_view value) {
  std::vector<double> out;
  std::string v(value);
  size_t pos = 0;
  while (pos < v.size()) {
    size_t next = v.find(" or ", pos);
    std::string part = trim(v.substr(pos, next == std::string::npos ? std::string::npos : next - pos));
    if (ends_with(part, " Gbps"))
      if (auto d = parse_double(part.substr(0, part.size() - 5)); d && *d > 0 && *d < 10000) out.push_back(*d);
    if (next == std::string::npos) break;
    pos = next + 4;
  }
  return out;
}

std::vector<int> ibportstate_widths(std::string_view value) {
  std::vector<int> out;
  for (const auto& w : split_ws(std::string(value))) {
    if (w.size() < 2 || (w.back() != 'X' && w.back() != 'x')) continue;
    if (auto n = parse_u64(w.substr(0, w.size() - 1)); n && *n >= 1 && *n <= 32) out.push_back(static_cast<int>(*n));
  }
  return out;
}

Result<IbportstateImport> import_ibportstate(std::string_view text, const std::string& source) {
  auto lines = text_line_source(std::string(text));
  return import_ibportstate(*lines, source, ReadLimits{});
}

Result<IbportstateImport> import_ibportstate(LineSource& lines, const std::string& source, const ReadLimits&) {
  Reader r;
  r.imp.source = source;
  auto st = read_whole_lines(
      lines, source, [&r](const std::string& l, size_t n) { read_line(r, l, n); }, [&r] { return r.in_block; },
      r.imp.gaps, [&r](const std::string&, size_t) { r.cut = true; });
  if (!st) return st.error();
  settle_block(r, !r.cut);
  r.imp.repeated = r.latest.replaced() + r.latest_warn.replaced();
  if (r.imp.ports.empty())
    return not_this_format("ibportstate output (a \"# Port info: Lid N port N\" block)", source, r.other);
  add_tally_gap(r.imp.gaps, source, r.other, "line(s) not understood");
  return std::move(r.imp);
}

}  // namespace fabdiag
