#include "import/nvue_interface.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>

#include "core/text.h"
#include "import/common.h"
#include "import/host_prefix.h"
#include "import/shell_prompt.h"
#include "import/whole_lines.h"

namespace fabdiag {
namespace {

constexpr const char* kNoPort = "(port not named)";
constexpr size_t kMaxJsonBytes = size_t{64} << 20;

enum class Mode { kNone, kKeyValue, kAfterTitle, kRxTx, kSkipTable, kView, kAllInterfaces };

struct Reader {
  NvueImport imp;
  std::map<std::string, size_t> index;  // host '\x1f' port -> ports[]
  std::set<std::string> commands;       // imp.commands, to name each once
  Mode mode = Mode::kNone;
  std::vector<std::string> columns;     // --view=counters
  std::string prompt_host, prompt_port;
  std::string pending_title;            // a capitalised line that may be a section title
  size_t pending_line = 0;
  bool read_any = false;
  LineTally other;
};

// Keys only NVUE's interface counters and phy-detail print.
bool is_nvue_key(std::string_view k) {
  return k == "carrier-transitions" || k == "effective-errors" || k == "effective-ber" || k == "raw-ber" ||
         k == "symbol-ber" || k == "phy-raw-errors-lane0" || k == "time-since-last-clear-min" || k == "phy-received-bits";
}

NvuePort& port_of(Reader& r, const std::string& host, const std::string& name) {
  auto [it, added] = r.index.emplace(host + '\x1f' + name, r.imp.ports.size());
  if (added) {
    NvuePort p;
    p.host = host;
    p.port = name;
    r.imp.ports.push_back(std::move(p));
  }
  r.read_any = true;
  return r.imp.ports[it->second];
}

void read_prompt(Reader& r, const ShellPrompt& p) {
  r.prompt_host = p.host;
  r.prompt_port.clear();
  r.mode = Mode::kNone;
  if (!starts_with(p.command, "nv show interface")) return;
  if (r.commands.insert(p.command).second) r.imp.commands.push_back(p.command);
  else ++r.imp.commands_repeated;  // a later capture: its values replace the earlier ones per key
  std::string port = command_word_after(p.command, "interface");
  if (!port.empty() && port[0] != '-') r.prompt_port = port;
}

// A header line: sets the mode it opens; false when the line is none.
bool read_header(Reader& r, const std::vector<std::string>& w) {
  if (w[0] == "operational" || (w[0] == "applied" && w.size() <= 2)) {
    r.mode = Mode::kKeyValue;
    return true;
  }
  if (w.size() == 3 && w[0] == "Counter" && w[1] == "Receive" && w[2] == "Transmit") {
    r.mode = Mode::kRxTx;
    return true;
  }
  if (w[0] == "Interface" && w.size() > 2 && w[1] == "State") {
    r.mode = Mode::kAllInterfaces;
    return true;
  }
  if (w[0] == "Interface" && std::find(w.begin(), w.end(), "RX_ERR") != w.end()) {
    r.mode = Mode::kView;
    r.columns = w;
    return true;
  }
  if (r.mode == Mode::kAfterTitle) {  // another section's table (Ingress Buffer Statistics ...)
    r.mode = Mode::kSkipTable;
    return true;
  }
  return false;
}

void read_key_value(Reader& r, const std::string& host, const std::vector<std::string>& w, size_t line_no) {
  if (w.size() < 2) return;  // a parent key ("link", "stats") of the nested form
  nvue_add_value(port_of(r, host, r.prompt_port.empty() ? kNoPort : r.prompt_port), w[0], w[1], line_no);
}

// "FCS Errors  0  n/a": the counter's name, then its Receive and Transmit counts.
void read_rx_tx(Reader& r, const std::string& host, const std::vector<std::string>& w, size_t line_no,
                const std::string& t) {
  if (w.size() < 3) {
    r.other.add(line_no, t);
    return;
  }
  std::string name = w[0];
  for (size_t i = 1; i + 2 < w.size(); ++i) name += " " + w[i];
  NvuePort& p = port_of(r, host, r.prompt_port.empty() ? kNoPort : r.prompt_port);
  nvue_add_value(p, name + " rx", w[w.size() - 2], line_no);
  nvue_add_value(p, name + " tx", w[w.size() - 1], line_no);
}

void read_view_row(Reader& r, const std::string& host, const std::vector<std::string>& w, size_t line_no,
                   const std::string& t) {
  if (w.size() != r.columns.size()) {
    r.other.add(line_no, t);
    return;
  }
  NvuePort& p = port_of(r, host, w[0]);
  for (size_t i = 1; i < w.size(); ++i)
    if (r.columns[i] != "MTU" && r.columns[i] != "Flg") nvue_add_value(p, r.columns[i], w[i], line_no);
}

void read_row(Reader& r, const std::string& host, const std::vector<std::string>& w, size_t line_no,
              const std::string& t) {
  switch (r.mode) {
    case Mode::kKeyValue: read_key_value(r, host, w, line_no); return;
    case Mode::kRxTx: read_rx_tx(r, host, w, line_no, t); return;
    case Mode::kView: read_view_row(r, host, w, line_no, t); return;
    case Mode::kAllInterfaces:
      if (w.size() > 1 && (w[1] == "up" || w[1] == "down")) {
        NvuePort& p = port_of(r, host, w[0]);
        p.state = w[1];
        p.state_from_table = true;
        p.line_of["state"] = line_no;
      }
      return;  // continuation lines of the Summary column
    case Mode::kSkipTable: return;
    case Mode::kNone:
    case Mode::kAfterTitle: r.other.add(line_no, t); return;
  }
}

void flush_title(Reader& r) {
  if (!r.pending_title.empty()) r.other.add(r.pending_line, r.pending_title);
  r.pending_title.clear();
}

void read_line(Reader& r, const std::string& raw, size_t line_no) {
  std::string whole = trim(raw);
  if (whole.empty() || starts_with(whole, "###")) return;
  if (auto p = parse_shell_prompt(whole)) {
    flush_title(r);
    read_prompt(r, *p);
    return;
  }
  HostPrefixed hp = split_host_prefix(whole);
  std::string t = trim(hp.text), host = hp.host.empty() ? r.prompt_host : hp.host;
  if (t.empty() || t == "...") return;
  if (t.find_first_not_of('=') == std::string::npos) {  // the rule under a section title
    r.pending_title.clear();
    r.mode = Mode::kAfterTitle;
    return;
  }
  flush_title(r);
  if (t.find_first_not_of("- ") == std::string::npos) return;  // the rule under a header
  auto w = split_ws(t);
  if (read_header(r, w)) return;
  auto cell = [](const std::string& c) { return c == "n/a" || c.find_first_not_of("0123456789") == std::string::npos; };
  bool rx_tx_row = r.mode == Mode::kRxTx && w.size() >= 3 && cell(w[w.size() - 1]) && cell(w[w.size() - 2]);
  if (std::isupper(static_cast<unsigned char>(t[0])) && r.mode != Mode::kView && r.mode != Mode::kAllInterfaces &&
      !rx_tx_row) {
    r.pending_title = t;  // "Drop Counters", if a "=====" line follows
    r.pending_line = line_no;
    return;
  }
  if (r.mode == Mode::kRxTx && std::isupper(static_cast<unsigned char>(t[0])) == 0 && w.size() == 1) return;
  if (r.mode == Mode::kNone && w.size() >= 2 && is_nvue_key(w[0])) r.mode = Mode::kKeyValue;  // a grep'ped fragment
  read_row(r, host, w, line_no, t);
}

using HeadLines = std::vector<std::pair<std::string, size_t>>;

Result<NvueImport> read_text(LineSource& lines, const std::string& source, const HeadLines& head) {
  Reader r;
  r.imp.source = source;
  r.imp.format = "text";
  for (const auto& [l, n] : head) read_line(r, l, n);
  auto st = read_whole_lines(
      lines, source, [&r](const std::string& l, size_t n) { read_line(r, l, n); },
      [&r] { return r.mode != Mode::kNone; }, r.imp.gaps);
  if (!st) return st.error();
  flush_title(r);
  if (!r.read_any)
    return not_this_format("Cumulus NVUE `nv show interface` output (counters, link phy-detail, --view=counters)",
                           source, r.other);
  add_tally_gap(r.imp.gaps, source, r.other, "line(s) not understood");
  return std::move(r.imp);
}

}  // namespace

bool is_nvue_interface_marker(std::string_view line) {
  std::string t = trim(split_host_prefix(trim(line)).text);
  if (auto p = parse_shell_prompt(t)) return starts_with(p->command, "nv show interface");
  auto w = split_ws(t);
  if (w.empty()) return false;
  if (w.size() == 3 && w[0] == "Counter" && w[1] == "Receive" && w[2] == "Transmit") return true;
  if (w[0] == "Interface" && w.size() > 4 && w[1] == "MTU" && w[2] == "RX_OK" && w[3] == "RX_ERR") return true;
  if (w.size() >= 2 && is_nvue_key(w[0])) return true;
  for (const char* k : {"\"effective-ber\":", "\"carrier-transitions\":", "\"raw-ber\":", "\"effective-errors\":"})
    if (t.find(k) != std::string::npos) return true;
  return false;
}

void nvue_add_value(NvuePort& p, const std::string& key, const std::string& value, size_t line) {
  if (key == "state") {
    if (value == "up" || value == "down") p.state = value, p.state_from_table = false, p.line_of[key] = line;
    return;
  }
  bool ber = key.find("-ber") != std::string::npos || key == "ber";
  if (ber) {
    if (auto v = parse_double(value)) p.bers[key] = *v, p.line_of[key] = line;
    return;
  }
  if (auto n = parse_u64(value); n && value.find_first_not_of("0123456789") == std::string::npos)
    p.counts[key] = *n, p.line_of[key] = line;
}

Result<NvueImport> import_nvue_interface(std::string_view text, const std::string& source) {
  auto lines = text_line_source(std::string(text));
  return import_nvue_interface(*lines, source, ReadLimits{});
}

Result<NvueImport> import_nvue_interface(LineSource& lines, const std::string& source, const ReadLimits&) {
  // The first non-blank line, and the one after it when the first is a prompt: JSON follows a
  // prompt as often as it starts the file.
  HeadLines head;
  std::optional<ShellPrompt> prompt;
  while (auto raw = lines.next()) {
    std::string t = trim(*raw);
    if (t.empty()) continue;
    head.emplace_back(std::string(*raw), lines.line_no());
    if (head.size() == 1 && (prompt = parse_shell_prompt(t))) continue;
    if (t[0] != '{') return read_text(lines, source, head);
    std::string json;
    for (size_t i = prompt ? 1 : 0; i < head.size(); ++i) json += head[i].first + "\n";
    while (auto more = lines.next()) {
      json.append(more->data(), more->size());
      json += '\n';
      if (json.size() > kMaxJsonBytes) return make_error(ErrorCode::kParse, "NVUE JSON larger than 64 MiB: not read", source);
    }
    if (lines.error()) return *lines.error();
    std::string port = prompt ? command_word_after(prompt->command, "interface") : "";
    if (!port.empty() && port[0] == '-') port.clear();
    return parse_nvue_interface_json(json, source, prompt ? prompt->host : "", port);
  }
  if (lines.error()) return *lines.error();
  if (!head.empty()) return read_text(lines, source, head);
  return make_error(ErrorCode::kParse, "expected Cumulus NVUE `nv show interface` output, but the input is empty", source);
}

}  // namespace fabdiag
