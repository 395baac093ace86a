#include "import/ibdev2netdev.h"

#include "core/text.h"
#include "import/common.h"
#include "import/host_prefix.h"
#include "import/latest_records.h"
#include "import/whole_lines.h"

namespace fabdiag {
namespace {

// "(Up)" -> "Up"; "" when not one parenthesised word.
std::string paren_word(const std::string& w) {
  if (w.size() < 3 || w.front() != '(' || w.back() != ')') return "";
  return w.substr(1, w.size() - 2);
}

// "port 1 (DOWN  ) ==> ib1 (Down)" -> "port 1 (DOWN) ==> ib1 (Down)": ibdev2netdev -v pads the
// port state to the width of ACTIVE, so blanks right inside parentheses are dropped.
std::string tighten_parens(const std::string& t) {
  std::string out;
  out.reserve(t.size());
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i] == ' ' || t[i] == '\t') {
      size_t j = t.find_first_not_of(" \t", i);
      bool before_close = j != std::string::npos && t[j] == ')';
      bool after_open = !out.empty() && out.back() == '(';
      if (before_close || after_open) {
        i = (j == std::string::npos ? t.size() : j) - 1;
        continue;
      }
    }
    out += t[i];
  }
  return out;
}

// The adapter's rate in a -v description: the largest "(200Gb/s)", "200Gb/s" or "400GbE" word, in Gb/s.
std::optional<double> rate_in(const std::string& d) {
  std::optional<double> best;
  for (auto w : split_ws(d)) {
    while (!w.empty() && (w.back() == ',' || w.back() == ')')) w.pop_back();
    if (!w.empty() && w.front() == '(') w.erase(0, 1);
    size_t unit = ends_with(w, "Gb/s") ? 4 : ends_with(w, "GbE") ? 3 : 0;
    if (unit == 0) continue;
    auto v = parse_double(w.substr(0, w.size() - unit));
    if (v && *v > 0 && (!best || *v > *best)) best = v;
  }
  return best;
}

// The -v part before " port N": "[bdf] ibdev (part - board) description fw X.Y.Z".
bool read_device(const std::string& left, Ibdev2netdevPort& p) {
  auto words = split_ws(left);
  if (words.empty()) return false;
  size_t i = 0;
  if (words.size() > 1 && words[0].find(':') != std::string::npos && words[0].find('.') != std::string::npos)
    p.pci_bdf = words[i++];
  p.ibdev = words[i++];
  if (i == words.size()) return true;
  std::string rest = trim(left.substr(left.find(p.ibdev) + p.ibdev.size()));
  if (starts_with(rest, "(")) {
    size_t close = rest.find(')');
    if (close == std::string::npos) return false;
    std::string model = rest.substr(1, close - 1);
    size_t dash = model.find(" - ");
    p.part = trim(model.substr(0, dash));
    if (dash != std::string::npos) p.board = trim(model.substr(dash + 3));
    rest = trim(rest.substr(close + 1));
  }
  size_t fw = rest.rfind(" fw ");
  if (starts_with(rest, "fw ")) fw = 0;
  if (fw != std::string::npos) {
    auto fw_words = split_ws(rest.substr(fw + 3));
    if (!fw_words.empty()) p.fw = fw_words[0];
    rest = trim(rest.substr(0, fw));
  }
  p.description = rest;
  p.max_rate_gbps = rate_in(rest);
  return true;
}

std::optional<Ibdev2netdevPort> read_port(std::string_view raw) {
  HostPrefixed hp = split_host_prefix(raw);
  std::string t = tighten_parens(trim(hp.text));
  size_t arrow = t.find(" ==> ");
  if (arrow == std::string::npos) return std::nullopt;
  Ibdev2netdevPort p;
  p.host = hp.host;
  auto right = split_ws(t.substr(arrow + 5));
  if (right.size() != 2) return std::nullopt;
  p.netdev = right[0];
  p.link = paren_word(right[1]);
  if (p.link.empty()) return std::nullopt;
  std::string left = t.substr(0, arrow);
  size_t port_at = left.rfind(" port ");
  if (port_at == std::string::npos) return std::nullopt;
  auto after = split_ws(left.substr(port_at + 6));
  if (after.empty() || after.size() > 2) return std::nullopt;
  auto n = parse_u64(after[0]);
  if (!n || *n == 0 || *n > 255) return std::nullopt;
  p.port = static_cast<uint32_t>(*n);
  if (after.size() == 2) {
    p.port_state = paren_word(after[1]);
    if (p.port_state.empty()) return std::nullopt;
  }
  if (!read_device(left.substr(0, port_at), p)) return std::nullopt;
  return p;
}

}  // namespace

bool Ibdev2netdevPort::up() const { return link == "Up" && (port_state.empty() || port_state == "ACTIVE"); }

bool is_ibdev2netdev_line(std::string_view line) { return read_port(line).has_value(); }

Result<Ibdev2netdevImport> import_ibdev2netdev(std::string_view text, const std::string& source) {
  auto lines = text_line_source(std::string(text));
  return import_ibdev2netdev(*lines, source, ReadLimits{});
}

Result<Ibdev2netdevImport> import_ibdev2netdev(LineSource& lines, const std::string& source, const ReadLimits&) {
  Ibdev2netdevImport imp;
  imp.source = source;
  LineTally other;
  LatestRecords latest;
  auto st = read_whole_lines(
      lines, source,
      [&](const std::string& l, size_t n) {
        std::string t = trim(l);
        if (t.empty() || starts_with(t, "###")) return;
        auto p = read_port(l);
        if (!p) return other.add(n, t);
        p->line = n;
        imp.verbose = imp.verbose || !p->port_state.empty() || !p->fw.empty();
        std::string key = p->host + "|" + p->ibdev + "|" + std::to_string(p->port);
        latest.put(imp.ports, key, std::move(*p));
      },
      [&imp] { return !imp.ports.empty(); }, imp.gaps);
  if (!st) return st.error();
  imp.repeated = latest.replaced();
  if (imp.ports.empty())
    return not_this_format("ibdev2netdev output (\"mlx5_0 port 1 ==> ib0 (Up)\" lines)", source, other);
  add_tally_gap(imp.gaps, source, other, "line(s) not understood");
  return imp;
}

}  // namespace fabdiag
