#include "import/xid_log.h"

#include <algorithm>
#include <cctype>

#include "core/text.h"
#include "import/common.h"
#include "import/format_detect.h"
#include "import/nul_bytes.h"
#include "import/syslog.h"
#include "import/whole_lines.h"
#include "import/xid_catalog.h"

namespace fabdiag {

namespace {

bool has(std::string_view s, std::string_view w) { return s.find(w) != std::string_view::npos; }

// "0000:9b:00" -> "0000:9b:00.0"; "9b:00" -> "0000:9b:00.0".
std::string to_bdf(std::string pci) {
  if (starts_with(pci, "PCI:")) pci = pci.substr(4);
  if (std::count(pci.begin(), pci.end(), ':') == 1) pci = "0000:" + pci;
  if (pci.find('.') == std::string::npos) pci += ".0";
  for (auto& c : pci) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return pci;
}

// The timestamp a line starts with, as printed: "[Sun Feb 23 16:24:18 2025]" -> "Sun Feb 23 16:24:18 2025",
// "[ 1234.5678]" -> "1234.5678", "2025-02-23T16:24:18+0000 host kernel: ..." -> the first word,
// "Feb 23 16:24:18 host kernel: ..." -> "Feb 23 16:24:18".
std::string time_text(const std::string& t) {
  if (!log_line_time_s(t)) return "";
  if (t[0] == '[') return trim(t.substr(1, t.find(']') - 1));
  auto words = split_ws(t);
  if (std::isdigit(static_cast<unsigned char>(t[0]))) return words[0];
  return words.size() >= 3 ? words[0] + " " + words[1] + " " + words[2] : "";
}

// "GPU4" in the driver's text ("from GPU4 GSP!"); nullopt when it names none.
std::optional<int> gpu_index_in(std::string_view text) {
  for (size_t at = text.find("GPU"); at != std::string_view::npos; at = text.find("GPU", at + 3)) {
    size_t i = at + 3, j = i;
    while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
    if (j > i && j - i < 4 && (j == text.size() || !std::isalnum(static_cast<unsigned char>(text[j]))))
      return static_cast<int>(*parse_u64(text.substr(i, j - i)));
  }
  return std::nullopt;
}

// "Timeout after 6s" -> 6; "Timeout after 45s" -> 45.
std::optional<double> timeout_in(std::string_view text) {
  auto at = text.find("Timeout after ");
  if (at == std::string_view::npos) return std::nullopt;
  auto v = parse_leading_double(text.substr(at + 14));
  if (!v) return std::nullopt;
  size_t unit = text.find_first_not_of("0123456789.", at + 14);
  if (unit != std::string_view::npos && text.substr(unit, 2) == "ms") return *v / 1000;
  return v;
}

// Xid 154: "... changed from 0x0 (None) to 0x2 (Node Reboot Required)" -> "Node Reboot Required".
std::string recovery_label(std::string_view text) {
  auto to = text.rfind(" to ");
  if (to == std::string_view::npos) return "";
  auto open = text.find('(', to), close = text.find(')', to);
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return "";
  return trim(text.substr(open + 1, close - open - 1));
}

// "caused by previous Xid 149" -> 149.
std::optional<int> cause_in(std::string_view text) {
  auto at = text.find("caused by previous Xid ");
  if (at == std::string_view::npos) return std::nullopt;
  size_t i = at + 23, j = i;
  while (j < text.size() && j < i + 6 && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
  if (j == i) return std::nullopt;
  return static_cast<int>(*parse_u64(text.substr(i, j - i)));
}

// The PCI address right after `key` ("NVRM: GPU 0000:01:00.0: GPU has ..." -> "0000:01:00.0");
// "" when what follows is not one.
std::string bdf_after(std::string_view t, std::string_view key) {
  auto at = t.find(key);
  if (at == std::string_view::npos) return "";
  size_t i = at + key.size(), j = i;
  while (j < t.size() && (std::isxdigit(static_cast<unsigned char>(t[j])) || t[j] == ':' || t[j] == '.')) ++j;
  std::string_view a = t.substr(i, j - i);
  while (!a.empty() && (a.back() == ':' || a.back() == '.')) a.remove_suffix(1);
  return std::count(a.begin(), a.end(), ':') >= 1 && a.size() >= 5 ? std::string(a) : "";
}

// GPUs kept (a node has at most a few dozen; more is a log of many nodes or junk).
constexpr size_t kMaxGpus = 1024;

struct Reader {
  XidLogImport& imp;
  LineTally other;
  LineTally overflow;  // Xid lines of GPUs past kMaxGpus

  XidGpu* gpu(const std::string& pci) {
    std::string bdf = to_bdf(pci);
    for (auto& g : imp.gpus)
      if (g.pci_bdf == bdf) return &g;
    if (imp.gpus.size() >= kMaxGpus) return nullptr;
    XidGpu g;
    g.pci_bdf = bdf;
    g.pci = starts_with(pci, "PCI:") ? pci.substr(4) : pci;
    imp.gpus.push_back(std::move(g));
    return &imp.gpus.back();
  }

  void xid(const XidLine& x, const std::string& t, size_t line_no) {
    XidGpu* found = gpu(x.pci);
    if (!found) return overflow.add(line_no, t);
    XidGpu& g = *found;
    if (!g.gpu_index) g.gpu_index = gpu_index_in(x.text);
    XidTally& tally = g.xids[x.xid];
    if (tally.from_message) tally = XidTally{};  // the Xid 79 line itself: the message was the same event
    std::string when = time_text(t);
    if (auto cause = cause_in(x.text)) {
      ++tally.caused_by[*cause];
      if (!g.xids.count(*cause)) {
        XidCited& c = g.cited[*cause];
        if (c.count++ == 0) c = {1, x.xid, line_no, when};
      }
    }
    if (tally.count++ == 0) {
      tally.first_time = when;
      tally.first_line = line_no;
      tally.first_text = x.text.substr(0, 200);
    }
    tally.last_time = when;
    tally.last_line = line_no;
    if (!x.process.empty() && tally.processes.size() < 16) tally.processes.insert(x.process);
    if (auto s = timeout_in(x.text); s && (!tally.timeout_s || *s > *tally.timeout_s)) tally.timeout_s = s;
    if (x.xid == 154)
      if (auto label = recovery_label(x.text); !label.empty()) tally.recovery = label;
  }

  // "NVRM: GPU at PCI:0000:9b:00: GPU-<uuid>" and "... for GPU at PCI:0000:9b:00 ... The GPU likely needs to be reset."
  void gpu_line(const std::string& t) {
    auto at = t.find("GPU at PCI:");
    if (at == std::string::npos) return;
    size_t start = at + 11, end = t.find(' ', start);
    std::string pci = t.substr(start, end == std::string::npos ? std::string::npos : end - start);
    while (!pci.empty() && (pci.back() == ':' || pci.back() == ',' || pci.back() == '.')) pci.pop_back();
    XidGpu* found = pci.empty() ? nullptr : gpu(pci);
    if (!found) return;
    XidGpu& g = *found;
    if (auto u = t.find(": GPU-", start); u != std::string::npos && g.uuid.empty()) g.uuid = trim(t.substr(u + 2));
    if (auto n = t.find("The GPU likely needs"); n != std::string::npos && g.driver_notes.size() < 8) {
      std::string note = trim(t.substr(n));
      if (std::find(g.driver_notes.begin(), g.driver_notes.end(), note) == g.driver_notes.end())
        g.driver_notes.push_back(note);
    }
  }

  // "NVRM: GPU 0000:01:00.0: GPU has fallen off the bus." or the last line of "NVRM: The NVIDIA
  // GPU 0000:b3:00.0" / "NVRM: (PCI ID: ...) installed in this system has" / "NVRM: fallen off
  // the bus and is not responding to commands.": Xid 79 of that GPU unless its Xid 79 line is here.
  void gpu_lost(const std::string& t, size_t line_no) {
    std::string bdf = bdf_after(t, "NVRM: GPU "), when = time_text(t);
    if (bdf.empty() && lost_gpu_line && line_no - lost_gpu_line <= 3) {
      bdf = lost_gpu;
      if (when.empty()) when = lost_gpu_time;  // the continuation lines carry no timestamp
    }
    XidGpu* found = bdf.empty() ? nullptr : gpu(bdf);
    if (!found) return;
    XidTally& tally = found->xids[79];
    if (tally.count && !tally.from_message) return;
    if (tally.count++ == 0) {
      tally.from_message = true;
      tally.first_time = when;
      tally.first_line = line_no;
      tally.first_text = "GPU has fallen off the bus (the driver's message; no Xid line)";
    }
    tally.last_time = when;
    tally.last_line = line_no;
  }

  void line(std::string_view raw, size_t line_no) {
    std::string t = trim(raw);
    if (t.empty() || starts_with(t, "###")) return;
    ++imp.lines;
    bool logged = log_line_time_s(t).has_value() || has(t, "kernel: ") || has(t, "NVRM: ");
    imp.logged_lines += logged;
    if (auto x = parse_xid_line(t)) {
      ++imp.xid_lines;
      return xid(*x, t, line_no);
    }
    if (has(t, "SXid (")) ++imp.sxid_lines;
    if (std::string b = bdf_after(t, "NVRM: The NVIDIA GPU "); !b.empty()) {
      lost_gpu = b;
      lost_gpu_line = line_no;
      lost_gpu_time = time_text(t);
    }
    if (is_nvrm_gpu_lost_line(t)) {
      ++imp.gpu_lost_lines;
      gpu_lost(t, line_no);
    } else if (has(t, "NVRM: ")) {
      gpu_line(t);
    }
    if (!logged) other.add(line_no, t);
  }

  std::string lost_gpu;  // the GPU of "NVRM: The NVIDIA GPU 0000:b3:00.0", the first line of the multi-line report
  size_t lost_gpu_line = 0;
  std::string lost_gpu_time;
};

}  // namespace

std::optional<XidLine> parse_xid_line(std::string_view line) {
  auto at = line.find("NVRM: Xid (");
  if (at == std::string_view::npos) return std::nullopt;
  size_t open = at + 11, close = line.find("): ", open);
  if (close == std::string_view::npos) return std::nullopt;
  XidLine x;
  x.pci = trim(line.substr(open, close - open));
  std::string rest = trim(line.substr(close + 3));
  auto comma = rest.find(',');
  auto code = parse_u64(trim(rest.substr(0, comma)));
  if (!code || *code > 100000 || x.pci.empty()) return std::nullopt;
  x.xid = static_cast<int>(*code);
  rest = comma == std::string::npos ? "" : trim(rest.substr(comma + 1));
  for (const char* key : {"pid=", "name="}) {
    if (!starts_with(rest, key)) continue;
    auto end = rest.find(", ");
    std::string v = rest.substr(std::string_view(key).size(), end == std::string::npos ? std::string::npos
                                                                                      : end - std::string_view(key).size());
    if (key[0] == 'p') {
      if (auto p = parse_u64(v)) x.pid = static_cast<long>(*p);
    } else {
      x.process = v;
    }
    rest = end == std::string::npos ? "" : trim(rest.substr(end + 2));
  }
  x.text = rest;
  return x;
}

Result<XidLogImport> import_xid_log(LineSource& lines, const std::string& source, const ReadLimits&) {
  XidLogImport imp;
  imp.source = source;
  Reader r{imp, {}, {}, {}, 0, {}};
  NulTally nuls;
  auto st = for_each_whole_line_counting_nuls(
      lines, source, [&](std::string_view l, size_t n) { r.line(l, n); }, imp.gaps,
      [&](std::string_view l, size_t n) { r.other.add(n, l); }, nuls);
  if (!st) return st.error();
  if (r.overflow.count)
    imp.gaps.push_back(make_error(ErrorCode::kParse,
                                  "more than " + std::to_string(kMaxGpus) + " GPUs: " + std::to_string(r.overflow.count) +
                                      " Xid line(s) of the GPUs past them not read",
                                  line_source(source, r.overflow.first)));
  bool log = imp.xid_lines + imp.gpu_lost_lines > 0 || (imp.lines > 0 && imp.logged_lines * 2 > imp.lines);
  if (!log) {
    return not_this_format_text("a kernel log (dmesg, journal or syslog lines; Xid reports \"NVRM: Xid (PCI:...): N, ...\")",
                              source, r.other, lines);
  }
  add_nul_gap(imp.gaps, source, nuls);  // NULs are not emptiness: the rest was read
  return imp;
}

Result<XidLogImport> import_xid_log(std::string_view text, const std::string& source) {
  auto lines = text_line_source(std::string(text));
  return import_xid_log(*lines, source, ReadLimits{});
}

}  // namespace fabdiag
