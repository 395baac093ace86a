#include "import/sonic_pfcwd.h"

#include <map>

#include "core/text.h"
#include "import/common.h"
#include "import/shell_prompt.h"
#include "import/whole_lines.h"

namespace fabdiag {
namespace {

enum class Col { kQueue, kStatus, kStorms, kTx, kRx, kTxLast, kRxLast, kOther };

struct Reader {
  SonicPfcwdImport imp;
  std::map<std::string, size_t> index;
  std::vector<Col> columns;  // empty until a header is read
  LineTally other, cut;
};

// Splits at runs of two or more blanks: "STORM DETECTED/RESTORED" stays one column name.
std::vector<std::string> header_cells(const std::string& t) {
  std::vector<std::string> out;
  std::string cur;
  size_t blanks = 0;
  for (char c : t) {
    if (c == ' ' || c == '\t') {
      ++blanks;
      continue;
    }
    if (!cur.empty() && blanks >= 2) {
      out.push_back(cur);
      cur.clear();
    } else if (!cur.empty() && blanks == 1) {
      cur += ' ';
    }
    blanks = 0;
    cur += c;
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

bool read_header(const std::string& t, std::vector<Col>& columns) {
  if (!starts_with(t, "QUEUE") || t.find("STORM DETECTED/RESTORED") == std::string::npos) return false;
  std::vector<Col> cols;
  for (const auto& c : header_cells(t)) {
    if (c == "QUEUE") cols.push_back(Col::kQueue);
    else if (c == "STATUS") cols.push_back(Col::kStatus);
    else if (c == "STORM DETECTED/RESTORED") cols.push_back(Col::kStorms);
    else if (c == "TX OK/DROP") cols.push_back(Col::kTx);
    else if (c == "RX OK/DROP") cols.push_back(Col::kRx);
    else if (c == "TX LAST OK/DROP") cols.push_back(Col::kTxLast);
    else if (c == "RX LAST OK/DROP") cols.push_back(Col::kRxLast);
    else cols.push_back(Col::kOther);
  }
  if (cols.empty() || cols[0] != Col::kQueue) return false;
  columns = cols;
  return true;
}

std::optional<uint64_t> count_of(const std::string& s, bool& ok) {
  if (s == "N/A") return std::nullopt;
  std::string digits;
  for (char c : s)
    if (c != ',') digits += c;
  auto n = parse_u64(digits);
  ok = ok && n.has_value();
  return n;
}

// "0/41507426" -> {0, 41507426}; "N/A" -> both unknown; false for anything else.
bool read_pair(const std::string& s, PfcwdPair& p) {
  if (s == "N/A") {
    p = {};
    return true;
  }
  size_t slash = s.find('/');
  if (slash == std::string::npos) return false;
  bool ok = true;
  p.first = count_of(s.substr(0, slash), ok);
  p.second = count_of(s.substr(slash + 1), ok);
  return ok;
}

// "Ethernet4:3" -> port and queue.
bool read_queue(const std::string& s, std::string& port, int& queue) {
  size_t colon = s.rfind(':');
  if (colon == std::string::npos || colon == 0) return false;
  auto q = parse_u64(s.substr(colon + 1));
  if (!q || *q > 63) return false;
  port = s.substr(0, colon);
  queue = static_cast<int>(*q);
  return true;
}

PfcwdQueue& queue_of(Reader& r, const std::string& port, int queue) {
  auto [it, added] = r.index.emplace(port + ":" + std::to_string(queue), r.imp.queues.size());
  if (added) {
    r.imp.queues.emplace_back();
    r.imp.queues.back().port = port;
    r.imp.queues.back().queue = queue;
  }
  return r.imp.queues[it->second];
}

void read_row(Reader& r, const std::string& t, size_t line_no) {
  auto w = split_ws(t);
  PfcwdQueue row;
  bool ok = w.size() == r.columns.size() && read_queue(w[0], row.port, row.queue);
  for (size_t i = 1; ok && i < w.size(); ++i) {
    switch (r.columns[i]) {
      case Col::kStatus: row.status = w[i]; break;
      case Col::kStorms: ok = read_pair(w[i], row.storms); break;
      case Col::kTx: ok = read_pair(w[i], row.tx); break;
      case Col::kRx: ok = read_pair(w[i], row.rx); break;
      case Col::kTxLast: ok = read_pair(w[i], row.tx_last); break;
      case Col::kRxLast: ok = read_pair(w[i], row.rx_last); break;
      default: break;
    }
  }
  if (!ok) {
    std::string port;
    int q = 0;
    bool cut_row = !w.empty() && w.size() < r.columns.size() && read_queue(w[0], port, q);
    (cut_row ? r.cut : r.other).add(line_no, t);
    return;
  }
  PfcwdQueue& q = queue_of(r, row.port, row.queue);
  if (q.samples == 0) {
    q.first_detected = row.storms.first;
    q.first_line = line_no;
  }
  bool stormed = q.stormed_in_a_sample || row.status == "stormed";
  auto first = q.first_detected;
  size_t samples = q.samples + 1, first_line = q.first_line;
  q = row;
  q.first_detected = first;
  q.stormed_in_a_sample = stormed;
  q.samples = samples;
  q.first_line = first_line;
  q.last_line = line_no;
}

// "$ sudo pfcwd stop", "# show pfcwd stats", "admin@sw:~$ pfcwd show stats": a command line.
bool command_line(Reader& r, const std::string& t) {
  std::string command;
  if (auto p = parse_shell_prompt(t)) command = p->command;
  else if (starts_with(t, "$ ") || starts_with(t, "# ")) command = trim(t.substr(2));
  else return false;
  if (command.find("pfcwd stop") != std::string::npos) r.imp.stop_command_seen = true;
  return true;
}

void read_line(Reader& r, const std::string& raw, size_t line_no) {
  std::string t = trim(raw);
  if (t.empty() || starts_with(t, "###") || command_line(r, t)) return;
  if (read_header(t, r.columns)) {
    ++r.imp.tables;
    return;
  }
  if (!r.columns.empty() && t.find_first_not_of("- ") == std::string::npos) return;  // the rule under the header
  if (r.columns.empty() || starts_with(t, "Changed polling interval")) {
    r.other.add(line_no, t);
    return;
  }
  read_row(r, t, line_no);
}

}  // namespace

Result<SonicPfcwdImport> import_sonic_pfcwd(std::string_view text, const std::string& source) {
  auto lines = text_line_source(std::string(text));
  return import_sonic_pfcwd(*lines, source, ReadLimits{});
}

Result<SonicPfcwdImport> import_sonic_pfcwd(LineSource& lines, const std::string& source, const ReadLimits&) {
  Reader r;
  r.imp.source = source;
  auto st = read_whole_lines(
      lines, source, [&r](const std::string& l, size_t n) { read_line(r, l, n); },
      [&r] { return !r.columns.empty(); }, r.imp.gaps);
  if (!st) return st.error();
  if (r.imp.tables == 0)
    return not_this_format("`show pfcwd stats` output (a \"QUEUE  STATUS  STORM DETECTED/RESTORED ...\" table)",
                           source, r.other);
  add_tally_gap(r.imp.gaps, source, r.cut,
                "row(s) cut short (fewer cells than columns; NOT READ, that queue's watchdog counts are unknown)");
  add_tally_gap(r.imp.gaps, source, r.other, "line(s) not understood");
  return std::move(r.imp);
}

}  // namespace fabdiag
