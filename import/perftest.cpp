#include "import/perftest.h"

#include "core/text.h"
#include "import/common.h"
#include "import/whole_lines.h"

namespace fabdiag {
namespace {

struct Reader {
  PerftestImport imp;
  bool table = false;
  LineTally other;
};

// " #bytes  #iterations  BW peak[Gb/sec]  BW average[Gb/sec]  MsgRate[Mpps]" -> names, units.
bool read_columns(const std::string& t, PerftestImport& imp) {
  if (!starts_with(t, "#bytes")) return false;
  imp.columns.clear();
  imp.units.clear();
  std::string rest = t;
  size_t pos = 0;
  while (pos < rest.size()) {
    size_t br = rest.find('[', pos);
    std::string name = trim(rest.substr(pos, br == std::string::npos ? std::string::npos : br - pos));
    if (br == std::string::npos) {
      for (const auto& w : split_ws(name)) {  // "#bytes     #iterations" before the first unit
        imp.columns.push_back(w);
        imp.units.emplace_back();
      }
      break;
    }
    size_t end = rest.find(']', br);
    std::string unit = rest.substr(br + 1, end == std::string::npos ? std::string::npos : end - br - 1);
    auto words = split_ws(name);
    // names before the unit-bearing one ("#bytes #iterations") have no unit
    while (!words.empty() && starts_with(words.front(), "#")) {
      imp.columns.push_back(words.front());
      imp.units.emplace_back();
      words.erase(words.begin());
    }
    imp.columns.push_back(join(words, " "));
    imp.units.push_back(unit);
    pos = end == std::string::npos ? rest.size() : end + 1;
  }
  imp.latency = false;
  for (const auto& c : imp.columns) imp.latency = imp.latency || starts_with(c, "t_");
  return imp.columns.size() >= 3;
}

bool read_row(Reader& r, const std::string& t, size_t line_no) {
  auto w = split_ws(t);
  // A header line that failed read_columns() leaves fewer than 3 columns: no row reads on it
  // (fuzz find, 2026-12: w[1] past a 1-word row).
  if (w.size() < 3 || w.size() != r.imp.columns.size()) return false;
  PerftestRow row;
  row.line = line_no;
  auto b = parse_u64(w[0]), it = parse_u64(w[1]);
  if (!b || !it) return false;
  row.bytes = *b;
  row.iterations = *it;
  for (size_t i = 2; i < w.size(); ++i) {
    auto v = parse_double(w[i]);
    if (!v) return false;
    row.values.emplace_back(r.imp.columns[i], *v);
  }
  r.imp.rows.push_back(std::move(row));
  return true;
}

void read_line(Reader& r, const std::string& raw, size_t line_no) {
  std::string t = trim(raw);
  if (t.empty() || starts_with(t, "###") || t[0] == '*' || t.find_first_not_of("-*") == std::string::npos)
    return;  // rules and the "* Waiting for client to connect... *" banner
  if (ends_with(t, " BW Test") || ends_with(t, " Latency Test")) {
    r.imp.test = t;
    return;
  }
  if (read_columns(t, r.imp)) {
    r.table = true;
    return;
  }
  if (r.table && read_row(r, t, line_no)) return;
  if (starts_with(t, "local address:") || starts_with(t, "remote address:") || starts_with(t, "GID:") ||
      starts_with(t, "Waiting for client") || starts_with(t, "WARNING") || starts_with(t, "Conflicting CPU"))
    return;
  // "Device : mlx4_0", two fields a line: "Dual-port : OFF   Device : mlx4_0"
  if (t.find(" : ") != std::string::npos || t.find(": ") != std::string::npos) {
    auto parts = split(t, ':');
    if (parts.size() == 2 || parts.size() == 3) {
      std::string k1 = trim(parts[0]);
      if (parts.size() == 2) {
        r.imp.settings.emplace_back(k1, trim(parts[1]));
        return;
      }
      auto mid = split_ws(parts[1]);  // "OFF          Device " -> value "OFF", key "Device"
      if (!mid.empty()) {
        r.imp.settings.emplace_back(k1, mid[0]);
        r.imp.settings.emplace_back(join(std::vector<std::string>(mid.begin() + 1, mid.end()), " "), trim(parts[2]));
        return;
      }
    }
  }
  r.other.add(line_no, t);
}

}  // namespace

std::optional<double> PerftestRow::get(std::string_view name) const {
  for (const auto& [k, v] : values)
    if (k == name) return v;
  return std::nullopt;
}

std::string PerftestImport::setting(std::string_view name) const {
  for (const auto& [k, v] : settings)
    if (k == name) return v;
  return "";
}

Result<PerftestImport> import_perftest(std::string_view text, const std::string& source) {
  auto lines = text_line_source(std::string(text));
  return import_perftest(*lines, source, ReadLimits{});
}

Result<PerftestImport> import_perftest(LineSource& lines, const std::string& source, const ReadLimits&) {
  Reader r;
  r.imp.source = source;
  auto st = read_whole_lines(
      lines, source, [&r](const std::string& l, size_t n) { read_line(r, l, n); }, [&r] { return r.table; },
      r.imp.gaps);
  if (!st) return st.error();
  if (!r.table && r.imp.test.empty())
    return not_this_format("perftest output (a \"... BW Test\" / \"... Latency Test\" title, a \"#bytes #iterations\" table)",
                           source, r.other);
  add_tally_gap(r.imp.gaps, source, r.other, "line(s) not understood");
  return std::move(r.imp);
}

}  // namespace fabdiag
