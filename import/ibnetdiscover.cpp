#include "import/ibnetdiscover.h"

#include <set>

#include "core/text.h"
#include "import/common.h"
#include "import/whole_lines.h"

namespace fabdiag {
namespace {

std::string lower_hex(std::string s) {
  for (auto& c : s)
    if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

// "S-0002c9030000104a" -> {"switch", "0002c9030000104a"}; "0x0002c9..." -> {"", "0002c9..."}.
std::pair<std::string, std::string> node_name(const std::string& q) {
  std::string type;
  std::string g = q;
  if (g.size() > 2 && g[1] == '-') {
    type = g[0] == 'S' ? "switch" : g[0] == 'H' ? "ca" : g[0] == 'R' ? "router" : "";
    g = g.substr(2);
  }
  if (starts_with(g, "0x")) g = g.substr(2);
  if (g.empty() || g.size() > 16 || g.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) return {"", ""};
  return {type, lower_hex(std::string(16 - g.size(), '0') + g)};
}

// The quoted strings of `s` in order.
std::vector<std::string> quoted_strings(const std::string& s, char q) {
  std::vector<std::string> out;
  for (size_t at = s.find(q); at != std::string::npos;) {
    size_t end = s.find(q, at + 1);
    if (end == std::string::npos) break;
    out.push_back(s.substr(at + 1, end - at - 1));
    at = s.find(q, end + 1);
  }
  return out;
}

// "4xNDR" -> {4, "NDR"}.
bool width_speed(const std::string& w, IbnetLink& l) {
  size_t x = w.find('x');
  if (x == std::string::npos || x == 0) return false;
  auto lanes = parse_u64(w.substr(0, x));
  std::string speed = w.substr(x + 1);
  if (!lanes || *lanes == 0 || *lanes > 32 || speed.empty() || ib_speed_rank(speed) < 0) return false;
  l.lanes = static_cast<uint32_t>(*lanes);
  l.speed = speed;
  return true;
}

// "lid 3" -> 3, the first "lid N" of `words`.
std::optional<uint64_t> lid_in(const std::vector<std::string>& words) {
  for (size_t i = 0; i + 1 < words.size(); ++i)
    if (words[i] == "lid") return parse_u64(words[i + 1]);
  return std::nullopt;
}

// "[12]" at `pos` of `s` -> 12; pos moves past ']'.
std::optional<uint32_t> bracket_port(const std::string& s, size_t& pos) {
  if (pos >= s.size() || s[pos] != '[') return std::nullopt;
  size_t end = s.find(']', pos);
  if (end == std::string::npos) return std::nullopt;
  auto n = parse_u64(s.substr(pos + 1, end - pos - 1));
  pos = end + 1;
  if (!n || *n > 255) return std::nullopt;
  return static_cast<uint32_t>(*n);
}

struct Reader {
  IbnetImport imp;
  std::string current;  ///< GUID of the block being read.
  std::set<std::string> seen;
  LineTally other, bad_ports;

  IbnetNode& node(const std::string& guid, const std::string& type, const std::string& desc) {
    for (auto& n : imp.nodes)
      if (n.guid == guid) {
        if (n.desc.empty()) n.desc = desc;
        if (n.type.empty()) n.type = type;
        return n;
      }
    imp.nodes.push_back({guid, type, desc, std::nullopt, 0});
    return imp.nodes.back();
  }

  void link(IbnetLink l) {
    std::string ka = l.a.guid + ":" + std::to_string(l.a.port), kb = l.b.guid + ":" + std::to_string(l.b.port);
    if (!seen.insert(ka < kb ? ka + "|" + kb : kb + "|" + ka).second) return;
    imp.links.push_back(std::move(l));
  }

  // "Switch 36 \"S-...\" # \"desc\" enhanced port 0 lid 2 lmc 0"
  bool header(const std::string& t) {
    auto w = split_ws(t);
    if (w.size() < 3 || (w[0] != "Switch" && w[0] != "Ca" && w[0] != "Rt")) return false;
    auto ports = parse_u64(w[1]);
    auto q = quoted_strings(t, '"');
    if (!ports || q.empty()) return false;
    auto [type, guid] = node_name(q[0]);
    if (guid.empty()) return false;
    size_t hash = t.find('#');
    std::string comment = hash == std::string::npos ? "" : t.substr(hash + 1);
    auto cq = quoted_strings(comment, '"');
    IbnetNode& n = node(guid, type.empty() ? (w[0] == "Switch" ? "switch" : w[0] == "Ca" ? "ca" : "router") : type,
                        cq.empty() ? "" : cq[0]);
    n.ports = static_cast<uint32_t>(*ports);
    if (!n.lid) n.lid = lid_in(split_ws(comment));
    current = guid;
    return true;
  }

  // "[1](portguid) \"S-guid\"[17](peerportguid) # lid 3 lmc 0 \"peer desc\" lid 2 4xNDR"
  bool port_line(const std::string& t, size_t line_no) {
    if (current.empty()) return false;
    size_t pos = 0;
    auto local = bracket_port(t, pos);
    if (!local) return false;
    size_t q1 = t.find('"', pos), q2 = q1 == std::string::npos ? q1 : t.find('"', q1 + 1);
    if (q2 == std::string::npos) return false;
    auto [ptype, pguid] = node_name(t.substr(q1 + 1, q2 - q1 - 1));
    size_t ppos = q2 + 1;
    auto peer_port = bracket_port(t, ppos);
    if (pguid.empty() || !peer_port) return false;
    size_t hash = t.find('#', ppos);
    std::string comment = hash == std::string::npos ? "" : t.substr(hash + 1);
    auto cw = split_ws(comment);
    IbnetLink l;
    l.a = {current, *local};
    l.b = {pguid, *peer_port};
    l.line = line_no;
    if (!cw.empty()) width_speed(cw.back(), l);
    auto cq = quoted_strings(comment, '"');
    IbnetNode& self = node(current, "", "");
    // A CA's line carries its own LID before the peer's description: "# lid 3 lmc 0 \"leaf01\" ...".
    if (self.type == "ca" && !self.lid && !cw.empty() && cw[0] == "lid") self.lid = lid_in(cw);
    node(pguid, ptype, cq.empty() ? "" : cq[0]);
    link(std::move(l));
    return true;
  }

  // "SW 2 19 0x... 4x NDR - CA 3 1 0x... ( 'leaf01' - 'node01 mlx5_0' )"
  bool ports_line(const std::string& t, size_t line_no) {
    auto w = split_ws(t);
    auto kind = [](const std::string& s) {
      return s == "SW" ? "switch" : s == "CA" ? "ca" : s == "RT" ? "router" : "";
    };
    if (w.size() < 6 || !*kind(w[0]) || !parse_u64(w[1]) || !parse_u64(w[2]) || !starts_with(w[3], "0x")) return false;
    auto [t0, guid] = node_name(w[3]);
    if (guid.empty()) return false;
    imp.format = "ports";
    auto descs = quoted_strings(t, '\'');
    IbnetNode& n = node(guid, kind(w[0]), descs.empty() ? "" : descs[0]);
    if (!n.lid) n.lid = parse_u64(w[1]);
    if (w.size() < 11 || w[6] != "-" || !*kind(w[7])) return true;  // a port without a peer ("4x ???")
    auto [t1, pguid] = node_name(w[10]);
    auto pport = parse_u64(w[9]);
    if (pguid.empty() || !pport) return false;
    IbnetNode& p = node(pguid, kind(w[7]), descs.size() > 1 ? descs[1] : "");
    if (!p.lid) p.lid = parse_u64(w[8]);
    IbnetLink l;
    l.a = {guid, static_cast<uint32_t>(*parse_u64(w[2]))};
    l.b = {pguid, static_cast<uint32_t>(*pport)};
    l.line = line_no;
    width_speed(w[4] + w[5], l);
    link(std::move(l));
    return true;
  }

  void read(const std::string& raw, size_t n) {
    std::string t = trim(raw);
    if (t.empty() || t[0] == '#') return;
    if (t.find('=') != std::string::npos && t.find(' ') == std::string::npos) return;  // vendid=0x2c9, caguid=0x...
    if (header(t)) return;
    if (t[0] == '[') {
      if (!port_line(t, n)) bad_ports.add(n, t);
      return;
    }
    if (ports_line(t, n)) return;
    other.add(n, t);
  }
};

}  // namespace

int ib_speed_rank(std::string_view speed) {
  static const char* const order[] = {"SDR", "DDR", "QDR", "FDR10", "FDR", "EDR", "HDR", "NDR", "XDR"};
  for (int i = 0; i < 9; ++i)
    if (speed == order[i]) return i;
  return -1;
}

const IbnetNode* IbnetImport::node(const std::string& guid) const {
  for (const auto& n : nodes)
    if (n.guid == guid) return &n;
  return nullptr;
}

bool is_ibnetdiscover_line(std::string_view line) {
  std::string t = trim(line);
  if (starts_with(t, "switchguid=0x") || starts_with(t, "caguid=0x")) return true;
  Reader r;
  return r.header(t) || r.ports_line(t, 1);
}

Result<IbnetImport> import_ibnetdiscover(std::string_view text, const std::string& source) {
  auto lines = text_line_source(std::string(text));
  return import_ibnetdiscover(*lines, source, ReadLimits{});
}

Result<IbnetImport> import_ibnetdiscover(LineSource& lines, const std::string& source, const ReadLimits&) {
  Reader r;
  r.imp.source = source;
  r.imp.format = "topology";
  auto st = read_whole_lines(
      lines, source, [&r](const std::string& l, size_t n) { r.read(l, n); }, [&r] { return !r.imp.nodes.empty(); },
      r.imp.gaps);
  if (!st) return st.error();
  if (r.imp.nodes.empty())
    return not_this_format("ibnetdiscover output (\"Switch 36 \\\"S-...\\\"\" / \"Ca 1 \\\"H-...\\\"\" blocks, or -p lines)",
                           source, r.other);
  add_tally_gap(r.imp.gaps, source, r.bad_ports, "port line(s) not understood");
  add_tally_gap(r.imp.gaps, source, r.other, "line(s) not understood");
  return std::move(r.imp);
}

}  // namespace fabdiag
