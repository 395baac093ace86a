#include "import/iblinkinfo.h"

#include <cctype>
#include <unordered_map>

#include "core/text.h"
#include "import/common.h"
#include "import/whole_lines.h"

namespace fabdiag {
namespace {

struct Reader {
  IbLinkInfoImport imp;
  size_t section = 0;
  std::string section_title;
  size_t current = SIZE_MAX;  // node the next port lines belong to
  LineTally other;            // lines that are not iblinkinfo's
  size_t port_lines = 0;
  // A node (type, GUID, description) or a node's port read again, a later capture in the same
  // file: the earlier record is reused or replaced, so memory follows the fabric, not the file.
  std::unordered_map<std::string, size_t> node_at, port_at;
};

// Makes `n` the node the next port lines belong to: a node already read is taken again (its
// section and line become the latest), else `n` is added.
void enter_node(Reader& r, IbLinkNode n) {
  auto [it, fresh] = r.node_at.emplace(n.type + "|" + n.guid + "|" + n.description, r.imp.nodes.size());
  if (fresh) {
    r.imp.nodes.push_back(std::move(n));
  } else {
    IbLinkNode& kept = r.imp.nodes[it->second];
    kept.section = n.section;
    kept.section_title = std::move(n.section_title);
    kept.line = n.line;
  }
  r.current = it->second;
}

// "Switch: 0x0002c90200401234 MF0;sw01:SX6036/U1:", "Switch 0x0000000000000001 IBM HSSM:"
// (older releases), "CA: node01 HCA-1:", "Router: ...:".
bool read_header(Reader& r, const std::string& t, size_t line_no) {
  std::string type;
  for (const char* k : {"Switch", "CA", "Router"})
    if (starts_with(t, k) && t.size() > std::string_view(k).size() &&
        (t[std::string_view(k).size()] == ':' || t[std::string_view(k).size()] == ' '))
      type = k;
  if (type.empty() || !ends_with(t, ":") || t.find("==(") != std::string::npos) return false;
  std::string rest = trim(t.substr(type.size() + (t[type.size()] == ':' ? 1 : 0)));
  rest = trim(rest.substr(0, rest.size() - 1));
  IbLinkNode n;
  n.type = type;
  if (type != "CA" && starts_with(rest, "0x")) {
    auto sp = rest.find(' ');
    n.guid = rest.substr(0, sp);
    rest = sp == std::string::npos ? "" : trim(rest.substr(sp));
  }
  n.description = rest;
  n.section = r.section;
  n.section_title = r.section_title;
  n.line = line_no;
  enter_node(r, std::move(n));
  return true;
}

// "  17[  ]" -> 17 (the token before '['); the LID is the number before it.
bool read_lid_port(std::string_view s, int& lid, int& port) {
  size_t br = s.rfind('[');
  if (br == std::string_view::npos) return false;
  auto words = split_ws(s.substr(0, br));
  if (words.size() < 2) return false;
  auto p = parse_u64(words.back());
  auto l = parse_u64(words[words.size() - 2]);
  if (!p || !l) return false;
  port = static_cast<int>(*p);
  lid = static_cast<int>(*l);
  return true;
}

// "( 4X 10.0 Gbps (FDR10) Active/  LinkUp) (HOQ:18 VL_Stall:7)" -> width, speed, states.
bool read_link(std::string link, IbLinkPort& p) {
  if (auto hoq = link.find(" (HOQ:"); hoq != std::string::npos) link = link.substr(0, hoq);
  link = trim(link);
  if (link.size() < 3 || link.front() != '(' || link.back() != ')') return false;
  link = link.substr(1, link.size() - 2);
  size_t slash = link.rfind('/');
  if (slash == std::string::npos) return false;
  p.phys_state = trim(link.substr(slash + 1));
  auto words = split_ws(link.substr(0, slash));
  if (words.empty() || p.phys_state.empty()) return false;
  p.state = words.back();
  words.pop_back();
  if (words.empty()) return true;  // a down port of a newer release: no rate printed
  p.width = words[0];
  if (words.size() >= 2) {
    p.lane_gbps = parse_double(words[1]);
    if (!p.lane_gbps) return false;
    p.speed_text = join(std::vector<std::string>(words.begin() + 1, words.end()), " ");
  }
  return true;
}

// `      1    1[  ] "node01 HCA-1" ( )`, `[0xGUID ]lid port[ext] "desc" (max msg)`,
// `           [  ] "" ( )` (no link), `    "Port not available"`.
bool read_peer(std::string_view s, IbLinkPort& p) {
  size_t q1 = s.find('"');
  if (q1 == std::string_view::npos) return false;
  size_t close = s.rfind(')');
  size_t open = close == std::string_view::npos ? std::string_view::npos : s.rfind('(', close);
  size_t q2 = s.rfind('"', open == std::string_view::npos ? s.size() : open);
  if (q2 == std::string_view::npos || q2 <= q1) return false;
  std::string desc(s.substr(q1 + 1, q2 - q1 - 1));
  if (desc == "Port not available") return true;
  int lid = 0, port = 0;
  if (read_lid_port(s.substr(0, q1), lid, port)) {
    p.peer_lid = lid;
    p.peer_port = port;
    p.peer = trim(desc);
  }
  if (open != std::string_view::npos && open > q2) p.max_msg = trim(s.substr(open + 1, close - open - 1));
  return true;
}

// Line mode: `0xGUID "            IBM HSSM"     4    1[  ] ==(...`: the node is on the line.
void line_mode_node(Reader& r, std::string_view left, size_t line_no) {
  size_t q1 = left.find('"'), q2 = left.rfind('"');
  if (q1 == std::string_view::npos || q2 <= q1) return;
  std::string desc = trim(left.substr(q1 + 1, q2 - q1 - 1));
  std::string guid = trim(left.substr(0, q1));
  if (r.current != SIZE_MAX) {
    const auto& cur = r.imp.nodes[r.current];
    if (cur.description == desc && cur.guid == guid && cur.section == r.section) return;
  }
  IbLinkNode n;
  n.type = "(line mode)";
  n.guid = guid;
  n.description = desc;
  n.section = r.section;
  n.section_title = r.section_title;
  n.line = line_no;
  enter_node(r, std::move(n));
}

bool read_port_line(Reader& r, const std::string& raw, size_t line_no) {
  size_t a = raw.find("==(");
  size_t b = raw.find(")==>", a == std::string::npos ? 0 : a);
  if (a == std::string::npos || b == std::string::npos) return false;
  std::string_view line(raw);
  std::string_view left = line.substr(0, a);
  IbLinkPort p;
  p.line = line_no;
  if (!read_lid_port(left, p.lid, p.port) || !read_link(std::string(line.substr(a + 2, b - a - 1)), p) ||
      !read_peer(line.substr(b + 4), p))
    return false;
  if (left.find('"') != std::string_view::npos) line_mode_node(r, left, line_no);
  if (r.current == SIZE_MAX) {
    IbLinkNode n;
    n.type = "(no header)";
    n.description = "(no header)";
    n.section = r.section;
    n.line = line_no;
    enter_node(r, std::move(n));
  }
  p.node = r.current;
  auto [at, fresh] = r.port_at.emplace(std::to_string(r.current) + "|" + std::to_string(p.port), r.imp.ports.size());
  if (fresh) {
    r.imp.nodes[r.current].ports.push_back(r.imp.ports.size());
    r.imp.ports.push_back(std::move(p));
  } else {
    r.imp.ports[at->second] = std::move(p);
  }
  ++r.port_lines;
  return true;
}

void read_line(Reader& r, const std::string& raw, size_t line_no) {
  std::string t = trim(raw);
  if (t.empty()) return;
  if (starts_with(t, "###")) {
    ++r.section;
    r.section_title = trim(t.substr(3));
    r.current = SIZE_MAX;
    return;
  }
  if (read_header(r, t, line_no) || read_port_line(r, raw, line_no)) return;
  r.other.add(line_no, t);
}

}  // namespace

std::string ib_speed_generation(double g, std::string_view speed_text) {
  auto near = [g](double v) { return g > v - 0.01 && g < v + 0.01; };
  if (near(2.5)) return "SDR";
  if (near(5.0)) return "DDR";
  if (near(10.0)) return speed_text.find("FDR10") != std::string_view::npos ? "FDR10" : "QDR";
  if (near(14.0625)) return "FDR";
  if (near(25.78125)) return "EDR";
  if (near(53.125)) return "HDR";
  if (near(106.25)) return "NDR";
  if (near(212.5)) return "XDR";
  return "";
}

bool ib_default_description(std::string_view description) {
  auto words = split_ws(description);
  if (words.empty()) return true;
  const std::string& w = words[0];
  return w.size() > 2 && w[0] == 'M' && w[1] == 'T' && std::isdigit(static_cast<unsigned char>(w[2]));
}

std::string ib_host_of_description(std::string_view description) {
  if (ib_default_description(description)) return "";
  std::string w = split_ws(description)[0];
  bool switch_like = w.find(';') != std::string::npos && w.find(':') != std::string::npos;  // "MF0;leaf01:MQM8790/U1"
  return switch_like ? "" : w;
}

Result<IbLinkInfoImport> import_iblinkinfo(std::string_view text, const std::string& source) {
  auto lines = text_line_source(std::string(text));
  return import_iblinkinfo(*lines, source, ReadLimits{});
}

Result<IbLinkInfoImport> import_iblinkinfo(LineSource& lines, const std::string& source, const ReadLimits&) {
  Reader r;
  r.imp.source = source;
  auto st = read_whole_lines(
      lines, source, [&r](const std::string& l, size_t n) { read_line(r, l, n); },
      [&r] { return r.port_lines > 0; }, r.imp.gaps);
  if (!st) return st.error();
  if (r.port_lines == 0)
    return not_this_format("iblinkinfo output (port lines \"<lid> <port>[ ] ==( 4X 25.78125 Gbps Active/  LinkUp)==> ...\")",
                           source, r.other);
  add_tally_gap(r.imp.gaps, source, r.other, "line(s) not understood");
  return std::move(r.imp);
}

}  // namespace fabdiag
