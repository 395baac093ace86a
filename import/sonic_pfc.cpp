#include "import/sonic_pfc.h"

#include <map>

#include "core/text.h"
#include "import/common.h"
#include "import/whole_lines.h"

namespace fabdiag {
namespace {

enum class Dir { kNone, kRx, kTx };

struct Reader {
  SonicPfcImport imp;
  std::map<std::string, size_t> index;
  Dir dir = Dir::kNone;
  std::vector<int> columns;  // priority of each value column
  LineTally other, cut;
};

// "Port Rx  PFC0 ... PFC7" -> the direction and the priority of each column.
Dir read_header(const std::string& t, std::vector<int>& columns) {
  auto w = split_ws(t);
  if (w.size() < 3 || w[0] != "Port" || (w[1] != "Rx" && w[1] != "Tx")) return Dir::kNone;
  std::vector<int> cols;
  for (size_t i = 2; i < w.size(); ++i) {
    if (w[i].size() != 4 || !starts_with(w[i], "PFC") || w[i][3] < '0' || w[i][3] > '7') return Dir::kNone;
    cols.push_back(w[i][3] - '0');
  }
  columns = cols;
  return w[1] == "Rx" ? Dir::kRx : Dir::kTx;
}

// "93,845" -> 93845; "N/A" -> nullopt in `v`; false for anything else.
bool read_value(std::string s, std::optional<uint64_t>& v) {
  if (s == "N/A") {
    v.reset();
    return true;
  }
  std::string digits;
  for (char c : s)
    if (c != ',') digits += c;
  auto n = parse_u64(digits);
  if (!n) return false;
  v = *n;
  return true;
}

PfcPort& port_of(Reader& r, const std::string& name) {
  auto [it, added] = r.index.emplace(name, r.imp.ports.size());
  if (added) r.imp.ports.push_back(PfcPort{name, {}, {}});
  return r.imp.ports[it->second];
}

void read_row(Reader& r, const std::string& t, size_t line_no) {
  auto w = split_ws(t);
  std::array<std::optional<uint64_t>, 8> values{};
  bool ok = w.size() == r.columns.size() + 1;
  for (size_t i = 1; ok && i < w.size(); ++i) ok = read_value(w[i], values[static_cast<size_t>(r.columns[i - 1])]);
  if (!ok) {
    bool numbers = true;  // a row cut short: a port name and fewer values than columns
    std::optional<uint64_t> v;
    for (size_t i = 1; i < w.size(); ++i) numbers = numbers && read_value(w[i], v);
    (numbers && w.size() < r.columns.size() + 1 ? r.cut : r.other).add(line_no, t);
    return;
  }
  PfcPort& p = port_of(r, w[0]);
  PfcCounts& c = r.dir == Dir::kRx ? p.rx : p.tx;
  if (c.samples == 0) {
    c.first = values;
    c.first_line = line_no;
  }
  c.last = values;
  c.last_line = line_no;
  ++c.samples;
  size_t tables = r.dir == Dir::kRx ? r.imp.rx_tables : r.imp.tx_tables;
  if (tables == 1) ++(r.dir == Dir::kRx ? r.imp.rx_rows : r.imp.tx_rows);
}

void read_line(Reader& r, const std::string& raw, size_t line_no) {
  std::string t = trim(raw);
  if (t.empty()) return;
  if (starts_with(t, "###")) {
    r.dir = Dir::kNone;
    return;
  }
  if (starts_with(t, "Last cached time was")) {
    r.imp.cached_time = trim(t.substr(20));
    return;
  }
  if (Dir d = read_header(t, r.columns); d != Dir::kNone) {
    r.dir = d;
    ++(d == Dir::kRx ? r.imp.rx_tables : r.imp.tx_tables);
    return;
  }
  if (r.dir != Dir::kNone && t.find_first_not_of("- ") == std::string::npos) return;  // the rule under the header
  if (r.dir == Dir::kNone) {
    r.other.add(line_no, t);
    return;
  }
  read_row(r, t, line_no);
}

}  // namespace

Result<SonicPfcImport> import_sonic_pfc(std::string_view text, const std::string& source) {
  auto lines = text_line_source(std::string(text));
  return import_sonic_pfc(*lines, source, ReadLimits{});
}

Result<SonicPfcImport> import_sonic_pfc(LineSource& lines, const std::string& source, const ReadLimits&) {
  Reader r;
  r.imp.source = source;
  auto st = read_whole_lines(
      lines, source, [&r](const std::string& l, size_t n) { read_line(r, l, n); },
      [&r] { return r.dir != Dir::kNone; }, r.imp.gaps);
  if (!st) return st.error();
  if (r.imp.rx_tables + r.imp.tx_tables == 0)
    return not_this_format("`show pfc counters` output (a \"Port Rx  PFC0 ... PFC7\" table)", source, r.other);
  add_tally_gap(r.imp.gaps, source, r.cut,
                "row(s) cut short (fewer values than PFC columns; NOT READ, the port's counts in that table are "
                "unknown, not zero)");
  add_tally_gap(r.imp.gaps, source, r.other, "line(s) not understood");
  return std::move(r.imp);
}

}  // namespace fabdiag
