// NCCL_DEBUG log reader: the line parsers and the streaming pass (import/nccl_log.h). The
// findings are in import/nccl_log_findings.cpp. Line forms: docs/domain.md#nccl-log-lines.
#include "import/nccl_log.h"

#include <algorithm>
#include <cctype>

#include "core/text.h"
#include "import/common.h"
#include "import/format_detect.h"
#include "import/host_formats.h"
#include "import/nul_bytes.h"

namespace fabdiag {
namespace {

constexpr size_t kMaxGids = 256;
constexpr size_t kMaxFeatureLines = 20;

bool has(std::string_view s, std::string_view w) { return s.find(w) != std::string_view::npos; }


// Leading integer of `s` (digits only), nullopt when `s` does not start with one.
std::optional<long> leading_int(std::string_view s) {
  size_t j = 0;
  while (j < s.size() && j < 12 && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
  if (j == 0) return std::nullopt;
  return static_cast<long>(*parse_u64(s.substr(0, j)));
}

// The word after `key` in `text` ("rank 3 nranks" -> "3"), empty when `key` is absent.
std::string word_after(std::string_view text, std::string_view key) {
  auto p = text.find(key);
  if (p == std::string_view::npos) return {};
  auto words = split_ws(text.substr(p + key.size()));
  return words.empty() ? std::string() : words[0];
}

// "[1,0]<stdout>:node01" -> "node01"; "[default0]:node01" -> "node01"; "0:node01" stays, and so
// does a host its owner redacted as "<cluster_name>".
std::string strip_tags(std::string_view host) {
  for (std::string_view tag : {"<stdout>:", "<stderr>:", "]:"})
    if (auto p = host.rfind(tag); p != std::string_view::npos) host = host.substr(p + tag.size());
  return std::string(host);
}

// The pid or tid field of a prefix: digits, or what a user put in their place ("XXXXXX").
bool pid_like(std::string_view w) {
  if (w.empty() || w.size() > 12) return false;
  if (all_digits(w)) return true;
  return w.find_first_not_of(w[0]) == std::string_view::npos && (w[0] == 'X' || w[0] == 'x' || w[0] == '*');
}

// NCCL's source position before the level in WARN lines: "transport/net_ib.cc:1295",
// "misc/ibvwrap.cc:263", "include/socket.h:520", "proxy.cc:1472"; quoted alone as "ibvwrap.cc:".
bool is_source_position(std::string_view w) {
  auto colon = w.rfind(':');
  if (colon == std::string_view::npos) return false;
  if (std::string_view n = w.substr(colon + 1); !n.empty() && !all_digits(n)) return false;
  std::string_view file = w.substr(0, colon);
  for (std::string_view ext : {".cc", ".cpp", ".cu", ".c", ".h", ".hpp"})
    if (file.size() > ext.size() && file.substr(file.size() - ext.size()) == ext) return true;
  return false;
}

}  // namespace

std::optional<NcclLinePrefix> parse_nccl_prefix(std::string_view line) {
  size_t at = std::string_view::npos, len = 0;
  NcclLinePrefix p;
  for (std::string_view level : {"NCCL INFO", "NCCL WARN", "NCCL TRACE", "NCCL ABORT"}) {
    auto q = line.find(level);
    if (q == std::string_view::npos || q >= at) continue;
    if (q + level.size() < line.size() && line[q + level.size()] != ' ') continue;
    at = q;
    len = level.size();
    p.warn = level == "NCCL WARN";
  }
  if (at == std::string_view::npos) return std::nullopt;
  p.text = trim(line.substr(at + len));
  auto words = split_ws(line.substr(0, at));
  size_t w = words.size();
  p.source_only = w == 1 && is_source_position(words[0]);
  if (w > 0 && is_source_position(words[w - 1])) --w;
  if (w > 0 && words[w - 1].size() > 2 && words[w - 1].front() == '[' && words[w - 1].back() == ']') {
    std::string_view inner(words[w - 1]);
    inner = inner.substr(1, inner.size() - 2);
    if (all_digits(inner)) p.dev = static_cast<int>(leading_int(inner).value_or(-1));
    --w;
  }
  if (w == 0) return p;
  // "host:pid:tid"; pastes redact the ids ("node01:XXXXXX") or keep only "host:pid".
  auto parts = split(strip_tags(words[w - 1]), ':');
  size_t ids = 0;
  while (ids < 2 && ids + 1 < parts.size() && pid_like(parts[parts.size() - 1 - ids])) ++ids;
  if (ids == 2 || (ids == 1 && p.dev)) {
    const std::string& pid = parts[parts.size() - ids];
    if (all_digits(pid)) p.pid = leading_int(pid);
    std::vector<std::string> head(parts.begin(), parts.end() - static_cast<long>(ids));
    p.host = join(head, ":");
    p.redacted_pid = !p.pid;
  }
  return p;
}

std::optional<std::string> parse_nccl_version(std::string_view text) {
  auto p = text.find("NCCL version ");
  if (p == std::string_view::npos) return std::nullopt;
  std::string v = word_after(text.substr(p), "NCCL version ");
  if (v.empty() || !std::isdigit(static_cast<unsigned char>(v[0])) || v.find('.') == std::string::npos) return std::nullopt;
  return v;
}

std::optional<NcclChannel> parse_nccl_channel(std::string_view text) {
  if (!starts_with(text, "Channel ") && !starts_with(text, "Ring ")) return std::nullopt;
  auto via = text.find(" via ");
  auto arrow = text.find(" -> ");
  auto colon = text.find(" : ");
  if (via == std::string_view::npos || arrow == std::string_view::npos || colon == std::string_view::npos ||
      colon > arrow || arrow > via)
    return std::nullopt;
  NcclChannel c;
  c.from_rank = static_cast<int>(leading_int(trim(text.substr(colon + 3, arrow - colon - 3))).value_or(-1));
  c.to_rank = static_cast<int>(leading_int(trim(text.substr(arrow + 4))).value_or(-1));
  c.via = trim(text.substr(via + 5));
  if (auto sp = c.via.find_first_of(" \t,"); sp != std::string::npos && !starts_with(c.via, "NET/")) c.via.resize(sp);
  if (c.via.empty()) return std::nullopt;
  auto parts = split(c.via, '/');
  if (parts[0] == "NET" && parts.size() >= 2) {
    c.network = true;
    c.transport = trim(parts[1]);
    if (parts.size() >= 3) {
      std::string dev = trim(parts[2]);
      if (all_digits(dev)) c.net_dev = static_cast<int>(leading_int(dev).value_or(0));
    }
    c.gdr = has(c.via, "/GDRDMA");
    if (auto sp = c.via.find(' '); sp != std::string::npos && c.transport != "AWS Libfabric") c.via.resize(sp);
  } else {
    c.transport = parts[0];
  }
  return c;
}

std::vector<NcclNetDevice> parse_nccl_net_devices(std::string_view list) {
  std::vector<NcclNetDevice> out;
  if (auto oob = list.find("; OOB"); oob != std::string_view::npos) list = list.substr(0, oob);
  for (const auto& word : split_ws(list)) {
    if (word.size() < 4 || word[0] != '[') continue;
    auto close = word.find(']');
    if (close == std::string::npos || !all_digits(std::string_view(word).substr(1, close - 1))) continue;
    NcclNetDevice d;
    d.index = static_cast<int>(leading_int(std::string_view(word).substr(1)).value_or(0));
    std::string rest = word.substr(close + 1);
    if (auto lt = rest.find('<'); lt != std::string::npos) rest.resize(lt);  // "<0>": the address family
    if (auto slash = rest.find('/'); slash != std::string::npos) {
      d.link = rest.substr(slash + 1);
      rest.resize(slash);
    }
    if (auto c = rest.find(':'); c != std::string::npos) {
      std::string after = rest.substr(c + 1);
      rest.resize(c);
      if (!d.link.empty() && all_digits(after)) d.port = static_cast<int>(leading_int(after).value_or(0));
      else d.address = after;
    }
    d.name = rest;
    if (!d.name.empty()) out.push_back(std::move(d));
  }
  return out;
}

std::optional<WcError> parse_nccl_wc_error(std::string_view text) { return parse_nccl_wc_error_line(text); }

namespace {

// A pasted environment line: "NCCL_IB_HCA=mlx5", "export NCCL_IB_HCA=mlx5".
bool env_setting(std::string_view t, std::string& name, std::string& value) {
  if (starts_with(t, "export ")) t = t.substr(7);
  std::string s = trim(t);
  if (!starts_with(s, "NCCL_")) return false;
  auto eq = s.find('=');
  if (eq == std::string::npos || s.find_first_of(" \t") < eq) return false;
  name = s.substr(0, eq);
  value = trim(s.substr(eq + 1));
  if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front())
    value = value.substr(1, value.size() - 2);
  return true;
}

// NCCL's echo: "NCCL_IB_HCA set by environment to mlx5_0", "NCCL_SOCKET_IFNAME set to lo",
// "NCCL_IB_DISABLE set by environment to 1.".
bool echoed_setting(std::string_view t, std::string& name, std::string& value) {
  if (!starts_with(t, "NCCL_")) return false;
  auto sp = t.find(' ');
  if (sp == std::string_view::npos) return false;
  std::string_view rest = t.substr(sp);
  std::string_view to;
  for (std::string_view k : {" set by environment to ", " set to "})
    if (starts_with(rest, k)) to = rest.substr(k.size());
  if (to.data() == nullptr) return false;
  name = std::string(t.substr(0, sp));
  value = trim(to);
  if (!value.empty() && value.back() == '.') value.pop_back();
  return true;
}

// "GID[  3]:		::ffff:192.0.2.6, RoCE v2" of ibv_devinfo -v.
std::optional<NcclGidEntry> gid_entry(std::string_view t) {
  if (!starts_with(t, "GID[")) return std::nullopt;
  auto close = t.find("]:");
  if (close == std::string_view::npos) return std::nullopt;
  auto idx = leading_int(trim(t.substr(4, close - 4)));
  if (!idx) return std::nullopt;
  NcclGidEntry g;
  g.index = static_cast<int>(*idx);
  std::string rest = trim(t.substr(close + 2));
  if (auto comma = rest.find(','); comma != std::string::npos) {
    std::string kind = trim(rest.substr(comma + 1));
    if (has(kind, "v2")) g.version = "v2";
    else if (has(kind, "v1")) g.version = "v1";
    rest = trim(rest.substr(0, comma));
  }
  g.gid = rest;
  std::string low = rest;
  std::transform(low.begin(), low.end(), low.begin(), [](unsigned char c) { return std::tolower(c); });
  g.link_local = starts_with(low, "fe80");
  if (auto p = low.find("ffff:"); p != std::string::npos) {
    std::string tail = low.substr(p + 5);
    if (std::count(tail.begin(), tail.end(), '.') == 3) {
      g.ipv4 = tail;
    } else if (tail.size() == 9 && tail[4] == ':' && low.find("0000:0000:0000:0000:0000:ffff") == 0) {
      // Only eight hex digits make an IPv4 address; "ffff:zz12:3456" is left as the GID text.
      if (auto v = parse_u64("0x" + tail.substr(0, 4) + tail.substr(5)))
        g.ipv4 = std::to_string((*v >> 24) & 255) + "." + std::to_string((*v >> 16) & 255) + "." +
                 std::to_string((*v >> 8) & 255) + "." + std::to_string(*v & 255);
    }
  }
  return g;
}

// One host's facts out of one INFO text.
void read_info(NcclHostLog& h, const NcclLinePrefix& p, std::string_view t, size_t line_no) {
  if (auto v = parse_nccl_version(t); v && h.version.empty()) h.version = *v;
  if (auto c = parse_nccl_channel(t)) {
    if (c->network) {
      ++h.net_channels[c->transport];
      if (c->net_dev) ++h.channels_on_net_dev[*c->net_dev];
      h.gdr_channels += c->gdr;
      if (c->gdr && c->net_dev && c->transport == "IB")
        for (const auto& d : h.ib_devices)
          if (d.index == *c->net_dev) h.gdr[d.name].used_in_channels = true;
    } else {
      ++h.local_channels[c->via];
    }
    return;
  }
  if (starts_with(t, "NET/IB : Using interface ") && has(t, " for sideband")) {  // 2.3: the OOB interface
    if (h.bootstrap.empty()) h.bootstrap = word_after(t, "Using interface ");
  } else if (starts_with(t, "NET/IB : Using ") && h.ib_devices.empty()) {
    h.ib_devices = parse_nccl_net_devices(t.substr(15));
    if (auto oob = t.find("; OOB "); oob != std::string_view::npos && h.bootstrap.empty()) h.bootstrap = trim(t.substr(oob + 6));
  } else if (starts_with(t, "NET/IB: [")) {  // NCCL 2.3 and older: one line per device, "NET/IB: [0] mlx5_1:1/IB"
    std::string one(t.substr(8));
    if (auto sp = one.find("] "); sp != std::string::npos) one.erase(sp + 1, 1);
    for (auto& d : parse_nccl_net_devices(one))
      if (std::none_of(h.ib_devices.begin(), h.ib_devices.end(), [&](const auto& e) { return e.index == d.index; }))
        h.ib_devices.push_back(std::move(d));
  } else if (starts_with(t, "NET/Socket : Using ") && h.socket_devices.empty()) {
    h.socket_devices = parse_nccl_net_devices(t.substr(19));
  } else if (starts_with(t, "Bootstrap : Using ") || starts_with(t, "Bootstrap: Using ")) {  // 2.27+: no blank
    h.bootstrap = trim(t.substr(t.find("Using ") + 6));
  } else if (starts_with(t, "Using network ")) {
    h.network = trim(t.substr(14));
  } else if (starts_with(t, "Using internal Network ")) {  // NCCL 2.3
    h.network = trim(t.substr(23));
  } else if (has(t, "NET/IB : No device found")) {
    h.ib_no_device = true;
  } else if (has(t, "No plugin found") || (starts_with(t, "NET/Plugin: Could not find") && has(t, "libnccl-net"))) {
    if (h.plugin.empty()) h.plugin = "none";
  } else if (has(t, "Loaded net plugin") || has(t, "Using non-device net plugin") || has(t, "Plugin Path")) {
    if (h.plugin.empty() || h.plugin == "none") h.plugin = t;
  } else if (has(t, "GPU Direct RDMA") && starts_with(t, "NET/IB")) {
    bool enabled = has(t, "Enabled") || has(t, "enabled");
    std::string name;
    if (auto q = t.find('\''); q != std::string_view::npos)
      if (auto q2 = t.find('\'', q + 1); q2 != std::string_view::npos) name = std::string(t.substr(q + 1, q2 - q - 1));
    if (name.empty()) {  // "for GPU 1c000 / HCA 0 (distance ...)": the index of the NET/IB list
      auto idx = leading_int(word_after(t, "HCA "));
      for (const auto& d : h.ib_devices)
        if (idx && d.index == *idx) name = d.name;
      if (name.empty() && idx) name = "HCA " + std::to_string(*idx);
    }
    if (!name.empty()) {
      NcclGdr& g = h.gdr[name];
      if (!g.enabled || enabled) g.enabled = enabled;  // one enabled GPU/HCA pair counts
      g.read = g.read || has(t, "read 1");
      if (auto d = t.find("(distance "); !enabled && d != std::string_view::npos && g.distance.empty())
        g.distance = std::string(t.substr(d + 1, t.find(')', d) == std::string_view::npos ? 0 : t.find(')', d) - d - 1));
      if (!g.line) g.line = line_no;
    }
  } else if (starts_with(t, "comm ") && has(t, " rank ")) {
    auto r = leading_int(word_after(t, " rank "));
    if (r && p.pid) h.ranks[*p.pid] = static_cast<int>(*r);
    std::string n = word_after(t, " nranks ");
    if (n.empty()) n = word_after(t, " nRanks ");
    if (auto nr = leading_int(n)) h.nranks = static_cast<int>(*nr);
  } else if (starts_with(t, "Could not get speed from /sys/class/net/")) {
    std::string iface = word_after(t, "/sys/class/net/");
    iface = iface.substr(0, iface.find('/'));
    if (std::find(h.speed_assumed.begin(), h.speed_assumed.end(), iface) == h.speed_assumed.end())
      h.speed_assumed.push_back(iface);
  }
}

std::string warn_kind(std::string_view t) {
  if (has(t, "Got completion")) return "completion_error";
  if (has(t, "ibv_modify_qp")) return "ibv_modify_qp";
  if (has(t, "imed out") || has(t, "imeout")) return "timeout";
  if (has(t, "closed by remote peer") || has(t, "Connection closed")) return "connection_closed";
  return "other";
}

constexpr size_t kMaxNcclHosts = 65536;

struct Reader {
  NcclLogImport& imp;
  const ReadLimits& limits;
  std::map<std::string, size_t> index;  // host -> position in imp.hosts

  NcclHostLog& host(const std::string& name, size_t line_no) {
    // Memory is per distinct host (a few KB each): past kMaxNcclHosts, the lines of further
    // hosts are pooled into one entry and the gap says so (a log of more hosts than any job).
    if (index.size() >= kMaxNcclHosts && !index.count(name)) {
      const std::string pooled = "(hosts past " + std::to_string(kMaxNcclHosts) + ")";
      if (!index.count(pooled))
        imp.gaps.push_back(make_error(ErrorCode::kParse,
                                      "more than " + std::to_string(kMaxNcclHosts) +
                                          " distinct hosts: the lines of the hosts after that are pooled as '" +
                                          pooled + "', not told apart",
                                      line_source(imp.source, line_no)));
      return host_entry(pooled, line_no);
    }
    return host_entry(name, line_no);
  }

  NcclHostLog& host_entry(const std::string& name, size_t line_no) {
    auto [it, fresh] = index.try_emplace(name, imp.hosts.size());
    if (fresh) {
      imp.hosts.emplace_back();
      imp.hosts.back().host = name;
      imp.hosts.back().first_line = line_no;
    }
    return imp.hosts[it->second];
  }

  void setting(const std::string& name, const std::string& value, size_t line_no) {
    imp.settings.try_emplace(name, value, line_no);
  }

  void warn(NcclHostLog& h, const NcclLinePrefix& p, size_t line_no) {
    ++h.warns;
    std::string kind = warn_kind(p.text);
    size_t n = ++imp.warn_counts[kind];
    if (limits.max_listed && n > limits.max_listed) return;
    NcclWarn w;
    w.kind = kind;
    w.host = p.host;
    w.pid = p.pid;
    w.dev = p.dev;
    w.text = p.text;
    w.line = line_no;
    if (kind == "completion_error") {
      w.wc = parse_nccl_wc_error(p.text);
      if (w.wc) {
        w.wc->line = p.text;
        w.wc->source = line_source(imp.source, line_no);
      }
      std::string peer = word_after(p.text, "from peer ");
      w.peer = peer;
    }
    imp.warns.push_back(std::move(w));
  }

  void nccl_line(const NcclLinePrefix& p, size_t line_no) {
    ++imp.nccl_lines;
    NcclHostLog& h = host(p.host, line_no);
    ++h.lines;
    if (p.pid) h.processes.try_emplace(*p.pid, p.dev);
    std::string name, value;
    if (echoed_setting(p.text, name, value)) setting(name, value, line_no);
    if (p.warn) warn(h, p, line_no);
    else read_info(h, p, p.text, line_no);
    if ((has(p.text, "CollNet") || has(p.text, "NVLS") || has(p.text, "SHARP") || has(p.text, "Sharp")) &&
        imp.feature_lines.size() < kMaxFeatureLines)
      imp.feature_lines.push_back(line_source(imp.source, line_no) + ": " + p.text);
  }

  void other_line(std::string_view raw, size_t line_no) {
    std::string t = trim(raw);
    std::string name, value;
    if (env_setting(t, name, value)) {
      setting(name, value, line_no);
    } else if (auto g = gid_entry(t)) {
      g->line = line_no;
      if (imp.gids.size() < kMaxGids) imp.gids.push_back(std::move(*g));
    } else if (starts_with(t, "hca_id:")) {
      imp.gid_device = trim(t.substr(7));
    } else if (starts_with(t, "###") && has(t, " -d ")) {
      imp.gid_device = word_after(t, " -d ");
    }
  }
};

}  // namespace

namespace {

// Positive evidence of an NCCL log: a whole "host:pid:tid [dev] NCCL INFO|WARN ..." line, a
// line quoted from its source position on ("ibvwrap.cc: NCCL WARN ..."), or NCCL's version banner.
// "foo NCCL INFO bar" quoted in other output, or a line holding a NUL, is none.
bool nccl_evidence(std::string_view raw, const std::optional<NcclLinePrefix>& p) {
  if (raw.find('\0') != std::string_view::npos) return false;
  if (p) return (!p->host.empty() && (p->pid || p->redacted_pid) && p->dev) || p->source_only;
  return starts_with(trim(raw), "NCCL version ") && parse_nccl_version(trim(raw));
}

// True when `raw` is a whole NCCL line: nccl_evidence() with a message after the level.
bool whole_nccl_line(std::string_view raw) {
  if (starts_with(trim(raw), "###")) return false;
  auto p = parse_nccl_prefix(raw);
  return p && nccl_evidence(raw, p) && !p->text.empty();
}

// One line of the log: an NCCL line or another line (settings, GIDs, skipped).
void read_line(Reader& r, LineTally& other, size_t& evidence, std::string_view raw, size_t line_no) {
  ++r.imp.lines;
  std::optional<NcclLinePrefix> p;
  if (!starts_with(trim(raw), "###")) p = parse_nccl_prefix(raw);  // "###" titles of pastes quote, never log
  bool good = nccl_evidence(raw, p);
  evidence += good;
  if (p) r.nccl_line(*p, line_no);
  if (!p || !good) other.add(line_no, raw);
  if (!p) r.other_line(raw, line_no);
}

}  // namespace

Result<NcclLogImport> import_nccl_log(LineSource& lines, const std::string& source, const ReadLimits& limits) {
  NcclLogImport imp;
  imp.source = source;
  Reader r{imp, limits, {}};
  LineTally other;
  size_t evidence = 0;
  // Each line is read once the next one starts: a last line without its newline is read when
  // whole_nccl_line(), else it is a cut-line gap ("node01:12:34 [0] NCC": cut while written).
  std::string held;
  size_t held_no = 0;
  while (auto raw = lines.next()) {
    if (held_no) read_line(r, other, evidence, held, held_no);
    held_no = 0;
    if (trim(*raw).empty()) continue;
    held.assign(raw->data(), raw->size());
    held_no = lines.line_no();
  }
  if (lines.error()) return *lines.error();
  if (held_no && lines.unterminated() && !whole_nccl_line(held)) {
    imp.gaps.push_back(make_error(ErrorCode::kParse,
                                  "the last line ends without a newline (the log was cut while written); NOT READ: " +
                                      quote_line(held),
                                  line_source(source, held_no)));
    other.add(held_no, held);
  } else if (held_no) {
    read_line(r, other, evidence, held, held_no);
  }
  add_cut_lines_gap(lines, source, imp.gaps);
  if (evidence == 0 || (lines.nul_bytes() > 0 && imp.nccl_lines * 2 < imp.lines)) {
    return not_this_format_text("an NCCL_DEBUG log (lines \"host:pid:tid [dev] NCCL INFO ...\" or \"... NCCL WARN ...\")",
                              source, other, lines);
  }
  return imp;
}

Result<NcclLogImport> import_nccl_log(std::string_view text, const std::string& source) {
  auto lines = text_line_source(std::string(text));
  return import_nccl_log(*lines, source, ReadLimits{});
}

std::string nccl_data_transport(const NcclHostLog& h) {
  if (!h.net_channels.empty()) {
    auto best = std::max_element(h.net_channels.begin(), h.net_channels.end(),
                                 [](const auto& a, const auto& b) { return a.second < b.second; });
    return best->first;
  }
  if (!h.network.empty()) return h.network;
  if (!h.ib_devices.empty()) return "IB";
  if (h.ib_no_device && !h.socket_devices.empty()) return "Socket";
  return "";
}

std::string nccl_gdr_mode(const NcclHostLog& h) {
  if (h.gdr_channels > 0) return "GDRDMA";
  bool disabled = false;
  for (const auto& [hca, g] : h.gdr) disabled = disabled || g.enabled == false;
  if (disabled) return "disabled";
  return h.net_channels.empty() ? "" : "not used";
}

}  // namespace fabdiag

namespace fabdiag {
namespace {

nlohmann::json devices_json(const std::vector<NcclNetDevice>& devs) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& d : devs) {
    nlohmann::json j = {{"index", d.index}, {"name", d.name}};
    if (d.port) j["port"] = *d.port;
    if (!d.link.empty()) j["link"] = d.link;
    if (!d.address.empty()) j["address"] = d.address;
    a.push_back(j);
  }
  return a;
}

nlohmann::json host_json(const NcclHostLog& h) {
  nlohmann::json procs = nlohmann::json::array();
  for (const auto& [pid, dev] : h.processes) {
    nlohmann::json p = {{"pid", pid}, {"cuda_dev", dev ? nlohmann::json(*dev) : nlohmann::json(nullptr)}};
    if (auto r = h.ranks.find(pid); r != h.ranks.end()) p["rank"] = r->second;
    procs.push_back(p);
  }
  nlohmann::json gdr = nlohmann::json::object();
  for (const auto& [hca, g] : h.gdr)
    gdr[hca] = {{"enabled", g.enabled ? nlohmann::json(*g.enabled) : nlohmann::json(nullptr)},
                {"used_in_channels", g.used_in_channels},
                {"read", g.read}};
  std::string transport = nccl_data_transport(h);
  return {{"host", h.host},
          {"nccl_version", h.version.empty() ? nlohmann::json(nullptr) : nlohmann::json(h.version)},
          {"processes", procs},
          {"data_transport", transport.empty() ? nlohmann::json(nullptr) : nlohmann::json(transport)},
          {"network", h.network},
          {"ib_devices", devices_json(h.ib_devices)},
          {"socket_devices", devices_json(h.socket_devices)},
          {"bootstrap", h.bootstrap},
          {"net_plugin", h.plugin},
          {"ib_no_device", h.ib_no_device},
          {"gdr", gdr},
          {"net_channels", h.net_channels},
          {"local_channels", h.local_channels},
          {"lines", h.lines},
          {"warns", h.warns}};
}

}  // namespace

nlohmann::json nccl_log_data(const NcclLogImport& imp) {
  nlohmann::json hosts = nlohmann::json::array();
  for (const auto& h : imp.hosts) hosts.push_back(host_json(h));
  nlohmann::json settings = nlohmann::json::object();
  for (const auto& [k, v] : imp.settings) settings[k] = {{"value", v.first}, {"line", v.second}};
  nlohmann::json warns = nlohmann::json::array();
  for (const auto& w : imp.warns) {
    nlohmann::json j = {{"kind", w.kind}, {"host", w.host}, {"line", w.line}, {"text", w.text}};
    if (w.pid) j["pid"] = *w.pid;
    if (w.dev) j["cuda_dev"] = *w.dev;
    if (!w.peer.empty()) j["peer"] = w.peer;
    if (w.wc) {
      j["status"] = w.wc->status;
      j["status_name"] = wc_status_name(w.wc->status);
      j["status_meaning"] = wc_status_meaning(w.wc->status);
      if (w.wc->vendor_err) j["vendor_err"] = *w.wc->vendor_err;
      if (!w.wc->hca.empty()) j["hca"] = w.wc->hca;
    }
    warns.push_back(j);
  }
  nlohmann::json gids = nlohmann::json::array();
  size_t v1 = 0, v2 = 0, ll = 0, v4 = 0;
  nlohmann::json v2_ipv4 = nullptr, v2_link_local = nullptr;
  for (const auto& g : imp.gids) {
    if (g.version == "v2" && !g.ipv4.empty() && v2_ipv4.is_null()) v2_ipv4 = g.index;
    if (g.version == "v2" && g.link_local && v2_link_local.is_null()) v2_link_local = g.index;
    v1 += g.version == "v1";
    v2 += g.version == "v2";
    ll += g.link_local;
    v4 += !g.ipv4.empty();
    gids.push_back({{"index", g.index}, {"gid", g.gid}, {"roce", g.version}, {"link_local", g.link_local}, {"ipv4", g.ipv4}});
  }
  nlohmann::json out = {{"hosts", hosts},
                        {"settings", settings},
                        {"warns", warns},
                        {"warn_counts", imp.warn_counts},
                        {"feature_lines", imp.feature_lines},
                        {"nccl_lines", imp.nccl_lines},
                        {"lines", imp.lines}};
  if (!imp.gids.empty())
    out["gid_table"] = {{"device", imp.gid_device}, {"entries", gids}, {"roce_v1", v1}, {"roce_v2", v2},
                        {"link_local", ll}, {"ipv4_mapped", v4},
                        {"ipv4_roce_v2_gid_index", v2_ipv4}, {"link_local_roce_v2_gid_index", v2_link_local}};
  return out;
}

}  // namespace fabdiag
