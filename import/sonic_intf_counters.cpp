#include "import/sonic_intf_counters.h"

#include <cctype>

#include "core/text.h"
#include "import/common.h"
#include "import/host_prefix.h"
#include "import/shell_prompt.h"
#include "import/whole_lines.h"

namespace fabdiag {
namespace {

constexpr const char* kNoPort = "(port not named)";

struct Reader {
  SonicIntfImport imp;
  std::map<std::string, size_t> index;  // host '\x1f' port -> ports[]
  std::vector<std::string> columns;     // of the table being read; empty outside one
  bool in_detail = false;
  std::string prompt_host, detail_port;
  LineTally other, cut, bad_cell;
};

// split_ws, with the unit words tabulate keeps in one cell joined back: "2000.00 MB/s",
// "7.81e-10 (89%)", the header "FLR(P) (Accuracy)".
std::vector<std::string> cells_of(const std::string& t) {
  std::vector<std::string> out;
  for (auto& w : split_ws(t)) {
    bool unit = w == "B/s" || w == "KB/s" || w == "MB/s" || w == "GB/s" || w[0] == '(';
    if (unit && !out.empty()) out.back() += " " + w;
    else out.push_back(std::move(w));
  }
  return out;
}

bool is_header(const std::vector<std::string>& cells) {
  if (cells.size() < 2 || cells[0] != "IFACE") return false;
  for (const auto& c : cells)
    if (c == "STATE" || c == "BIN0") return true;
  return false;
}

// "1,000" -> 1000; nullopt for anything else.
std::optional<uint64_t> count_of(const std::string& s) {
  std::string digits;
  for (char c : s)
    if (c != ',') digits += c;
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return parse_u64(digits);
}

// "2000.00 MB/s" -> 2e9 (bytes/s, units of 1000), "247000.00/s", "64.00%", "4.21e-10",
// "7.81e-10 (89%)" -> the number; nullopt when it is none of these.
std::optional<double> rate_of(std::string s) {
  if (auto p = s.find(" ("); p != std::string::npos) s = s.substr(0, p);
  double scale = 1;
  for (auto [unit, k] : {std::pair<const char*, double>{" GB/s", 1e9}, {" MB/s", 1e6}, {" KB/s", 1e3}, {" B/s", 1},
                         {"/s", 1}, {"%", 1}})
    if (ends_with(s, unit)) {
      s = s.substr(0, s.size() - std::string_view(unit).size());
      scale = k;
      break;
    }
  auto v = parse_double(s);
  if (!v) return std::nullopt;
  return *v * scale;
}

SonicIntfPort& port_of(Reader& r, const std::string& host, const std::string& name) {
  auto [it, added] = r.index.emplace(host + '\x1f' + name, r.imp.ports.size());
  if (added) {
    SonicIntfPort p;
    p.host = host;
    p.port = name;
    r.imp.ports.push_back(std::move(p));
  }
  return r.imp.ports[it->second];
}

void add_count(SonicCounter& c, uint64_t v, size_t line_no) {
  if (c.samples++ == 0) {
    c.first = v;
    c.first_line = line_no;
  }
  c.last = v;
  c.last_line = line_no;
}

void read_row(Reader& r, const std::string& host, const std::string& t, size_t line_no) {
  auto cells = cells_of(t);
  if (cells.size() != r.columns.size()) {
    (cells.size() < r.columns.size() ? r.cut : r.other).add(line_no, t);
    return;
  }
  SonicIntfPort& p = port_of(r, host, cells[0]);
  for (size_t i = 1; i < cells.size(); ++i) {
    const std::string& col = r.columns[i];
    if (col == "STATE") {
      p.state = cells[i];
      p.state_line = line_no;
    } else if (cells[i] == "N/A") {
      continue;
    } else if (auto n = count_of(cells[i])) {
      add_count(p.counters[col], *n, line_no);
    } else if (auto v = rate_of(cells[i])) {
      p.rates[col] = *v;
    } else {
      r.bad_cell.add(line_no, t);
    }
  }
}

// "Jabbers Received............................... 0" (portstat -l).
bool read_detailed(Reader& r, const std::string& host, const std::string& t, size_t line_no) {
  size_t dots = t.find("...");
  if (dots == std::string::npos || dots == 0) return false;
  std::string label = trim(t.substr(0, dots));
  size_t v = t.find_first_not_of('.', dots);
  std::string value = v == std::string::npos ? "" : trim(t.substr(v));
  if (label.empty()) return false;
  if (starts_with(label, "Packets Received 64 Octets") || !r.in_detail) {
    ++r.imp.detailed_blocks;
    r.in_detail = true;
  }
  if (label == "Time Since Counters Last Cleared") {
    if (value != "None") r.imp.cached_time = value;
    return true;
  }
  auto n = count_of(value);
  if (!n) {
    if (value != "N/A") r.bad_cell.add(line_no, t);
    return true;
  }
  add_count(port_of(r, host, r.detail_port.empty() ? kNoPort : r.detail_port).counters[label], *n, line_no);
  return true;
}

void read_prompt(Reader& r, const ShellPrompt& p) {
  r.prompt_host = p.host;
  r.columns.clear();
  r.in_detail = false;
  r.detail_port = command_word_after(p.command, "detailed");
  if (r.detail_port.empty() && p.command.find("portstat") != std::string::npos)
    r.detail_port = command_word_after(p.command, "-i");
}

// Lines portstat prints around its tables, read or passed over.
bool read_note(Reader& r, const std::string& t) {
  if (starts_with(t, "Last cached time was")) {
    r.imp.cached_time = trim(t.substr(20));
    return true;
  }
  if (starts_with(t, "The rates are calculated within ")) {
    auto w = split_ws(t);
    if (w.size() > 5) {
      auto s = parse_u64(w[5]);
      if (s && *s < 1000000) r.imp.period_s = static_cast<int>(*s);
    }
    return true;
  }
  return starts_with(t, "Reminder:") || starts_with(t, "For namespace") || starts_with(t, "No non-zero statistics") ||
         t == "Cleared counters" || starts_with(t, "###");
}

void read_line(Reader& r, const std::string& raw, size_t line_no) {
  std::string whole = trim(raw);
  if (whole.empty()) return;
  if (read_note(r, whole)) return;
  if (auto p = parse_shell_prompt(whole)) {
    read_prompt(r, *p);
    return;
  }
  HostPrefixed hp = split_host_prefix(whole);
  std::string t = trim(hp.text);
  std::string host = hp.host.empty() ? r.prompt_host : hp.host;
  if (t.empty() || read_note(r, t)) return;
  auto cells = cells_of(t);
  if (is_header(cells)) {
    r.columns = cells;
    r.in_detail = false;
    ++r.imp.tables;
    return;
  }
  if (t.find_first_not_of("- ") == std::string::npos) return;  // the rule under a header
  if (read_detailed(r, host, t, line_no)) return;
  if (r.columns.empty()) {
    r.other.add(line_no, t);
    return;
  }
  read_row(r, host, t, line_no);
}

}  // namespace

bool is_sonic_intf_counters_marker(std::string_view line) {
  std::string t = trim(split_host_prefix(trim(line)).text);
  if (starts_with(t, "Packets Received 64 Octets...") || starts_with(t, "Total Packets Received Without Errors..."))
    return true;
  return is_header(cells_of(t));
}

Result<SonicIntfImport> import_sonic_intf_counters(std::string_view text, const std::string& source) {
  auto lines = text_line_source(std::string(text));
  return import_sonic_intf_counters(*lines, source, ReadLimits{});
}

Result<SonicIntfImport> import_sonic_intf_counters(LineSource& lines, const std::string& source, const ReadLimits&) {
  Reader r;
  r.imp.source = source;
  auto st = read_whole_lines(
      lines, source, [&r](const std::string& l, size_t n) { read_line(r, l, n); },
      [&r] { return !r.columns.empty() || r.in_detail; }, r.imp.gaps);
  if (!st) return st.error();
  if (r.imp.tables == 0 && r.imp.detailed_blocks == 0)
    return not_this_format(
        "SONiC `show interfaces counters` output (an \"IFACE  STATE ...\" table or \"Packets Received 64 Octets....\" lines)",
        source, r.other);
  add_tally_gap(r.imp.gaps, source, r.cut,
                "row(s) cut short (fewer cells than columns; NOT READ, the port's counters in that table are "
                "unknown, not zero)");
  add_tally_gap(r.imp.gaps, source, r.bad_cell, "row(s) with a cell that is neither a count, a rate nor N/A (that cell NOT READ)");
  add_tally_gap(r.imp.gaps, source, r.other, "line(s) not understood");
  return std::move(r.imp);
}

}  // namespace fabdiag
