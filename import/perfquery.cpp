#include "import/perfquery.h"

#include <cmath>
#include <map>
#include <set>

#include "core/text.h"
#include "probes/counters/sysfs_counters.h"

namespace fabdiag {
namespace {

bool not_a_counter(const std::string& name) {
  return name.find("Select") != std::string::npos || starts_with(name, "CapMask");
}

struct Header {
  std::string kind;  // "Port extended counters", "PortRcvErrorDetails counters", ...
  std::string lid;
  int port = -1;
  bool extended = false;
};

// "# Port extended counters: Lid 1719 port 1 (CapMask: 0x5300 CapMask2: 0x0000002)".
std::optional<Header> parse_header(const std::string& line) {
  if (!starts_with(line, "#")) return std::nullopt;
  std::string t = trim(line.substr(1));
  size_t colon = t.find("counters:");
  if (colon == std::string::npos) return std::nullopt;
  Header h;
  h.kind = trim(t.substr(0, colon + 8));
  h.extended = h.kind.find("xtended") != std::string::npos;
  auto words = split_ws(t.substr(colon + 9));
  for (size_t i = 0; i + 1 < words.size(); ++i) {
    if (words[i] == "Lid") h.lid = words[i + 1];
    if (words[i] == "port") {
      std::string p = words[i + 1];
      if (!p.empty() && p.back() == ',') p.pop_back();
      if (auto v = parse_u64(p)) h.port = static_cast<int>(*v);
      else if (p == "ALL") h.port = 255;
    }
  }
  if (h.lid.empty() || h.port < 0) return std::nullopt;
  return h;
}

}  // namespace

std::optional<uint64_t> parse_perfquery_value(std::string_view text, bool& approximate) {
  approximate = false;
  std::string t = trim(text);
  auto words = split_ws(t);
  if (words.empty()) return std::nullopt;
  if (auto v = parse_u64(words[0])) return v;
  // Only the humanized form: "(2.779K)".
  std::string h = words[0];
  if (h.size() < 3 || h.front() != '(' || h.back() != ')') return std::nullopt;
  h = h.substr(1, h.size() - 2);
  double mult = 1;
  switch (h.back()) {
    case 'K': mult = 1e3; break;
    case 'M': mult = 1e6; break;
    case 'G': mult = 1e9; break;
    case 'T': mult = 1e12; break;
    case 'P': mult = 1e15; break;
    default: break;
  }
  if (mult > 1) h.pop_back();
  auto d = parse_double(h);
  if (!d || *d < 0) return std::nullopt;
  approximate = true;
  return static_cast<uint64_t>(std::llround(*d * mult));
}

Result<CounterImport> import_perfquery(std::string_view text, const std::string& source) {
  auto lines = text_line_source(std::string(text));
  return import_perfquery(*lines, source, ReadLimits{});
}

Result<CounterImport> import_perfquery(LineSource& lines, const std::string& source, const ReadLimits&) {
  CounterImport imp;
  imp.format = "perfquery";
  imp.source = source;
  std::map<std::string, size_t> series_of;  // "kind|lid|port" -> series
  std::optional<Header> cur;
  size_t cur_series = 0;  // the block's snapshot is imp.series[cur_series].back()
  size_t headers = 0, line_no = 0;
  LineTally orphan, bad, other;  // other: lines that are neither a header nor a comment
  std::set<std::string> aggregate_lids;
  nlohmann::json aggregates = nlohmann::json::object();
  while (auto raw = lines.next()) {
    line_no = lines.line_no();
    std::string line = trim(*raw);
    if (line.empty() || starts_with(line, "###")) continue;
    if (auto h = parse_header(line)) {
      ++headers;
      cur = h;
      if (h->port == 255) {
        if (aggregate_lids.insert(h->lid).second)
          imp.notes.push_back("Lid " + h->lid + " port 255 is the sum of all ports (perfquery -a), "
                            "not a port: its values are kept under facts.aggregates only");
        continue;
      }
      std::string device = "lid " + h->lid + " port " + std::to_string(h->port);
      PortInfo p;
      p.device = device;
      p.ibdev = "lid " + h->lid;
      p.port = h->port;
      p.is_rdma = true;
      p.link_layer = "InfiniBand";
      merge_port(imp.ports, p);
      std::string key = h->kind + "|" + h->lid + "|" + std::to_string(h->port);
      auto [it, fresh] = series_of.emplace(key, imp.series.size());
      if (fresh) imp.series.emplace_back();
      imp.series[it->second].push_empty();
      cur_series = it->second;
      continue;
    }
    if (starts_with(line, "#")) continue;  // another comment
    if (headers == 0) other.add(line_no, line);
    size_t colon = line.find(':');
    if (colon == std::string::npos) {
      bad.add(line_no);
      continue;
    }
    std::string name = trim(line.substr(0, colon));
    std::string rest = line.substr(colon + 1);
    size_t first = rest.find_first_not_of('.');
    rest = first == std::string::npos ? "" : rest.substr(first);
    if (!cur) {
      orphan.add(line_no);
      continue;
    }
    if (not_a_counter(name)) continue;
    bool approx = false;
    auto v = parse_perfquery_value(rest, approx);
    if (!v) {
      bad.add(line_no);
      continue;
    }
    if (cur->port == 255) {
      aggregates["lid " + cur->lid][name] = *v;
      continue;
    }
    std::string src = line_source(source, line_no) + (approx ? " (humanized value, approximate)" : "");
    bool ext = cur->extended || *v > 0xFFFFFFFFull;
    std::string device = "lid " + cur->lid + " port " + std::to_string(cur->port);
    imp.series[cur_series].back().samples.push_back(
        make_counter(device, CounterGroup::kIbPortCounters, name, *v, "", src, ext));
  }
  if (lines.error()) return *lines.error();
  if (headers == 0)
    return not_this_format("perfquery output (\"# Port counters: Lid N port N\" headers, then \"Name:....value\")",
                           source, other);
  if (orphan.count)
    imp.gaps.push_back(make_error(ErrorCode::kParse,
                                  std::to_string(orphan.count) + " value line(s) before any header "
                                  "(no port to give them to), first at line " + std::to_string(orphan.first),
                                  source));
  if (bad.count)
    imp.gaps.push_back(make_error(ErrorCode::kParse,
                                  std::to_string(bad.count) + " line(s) are not \"Name:....value\", "
                                  "first at line " + std::to_string(bad.first),
                                  source));
  if (!aggregates.empty()) imp.facts["aggregates"] = aggregates;
  return imp;
}

}  // namespace fabdiag
