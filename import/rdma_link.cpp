#include "import/rdma_link.h"

#include "core/text.h"
#include "import/common.h"
#include "import/format_detect.h"
#include "import/host_prefix.h"
#include "import/latest_records.h"
#include "import/whole_lines.h"

namespace fabdiag {
namespace {

constexpr size_t kMaxJsonBytes = size_t{64} << 20;

// "mlx5_0/1" -> ibdev, port.
bool read_name(const std::string& w, RdmaLink& l) {
  size_t slash = w.rfind('/');
  if (slash == std::string::npos || slash == 0) return false;
  auto port = parse_u64(w.substr(slash + 1));
  if (!port || *port == 0 || *port > 255) return false;
  l.ibdev = w.substr(0, slash);
  l.port = static_cast<uint32_t>(*port);
  return true;
}

// "link mlx5_0/1 key value key value ..."; nullopt when not a link record.
std::optional<RdmaLink> read_record(const std::vector<std::string>& w) {
  RdmaLink l;
  if (w.size() < 3 || w[0] != "link" || !read_name(w[1], l)) return std::nullopt;
  if (w[2] != "state" && w[2] != "subnet_prefix") return std::nullopt;
  for (size_t i = 2; i + 1 < w.size(); ++i) {
    const std::string& k = w[i];
    if (k == "caps" || k == "caps:") {  // -d: "caps: <CM, IP_BASED_GIDS>"
      while (i + 1 < w.size() && w[i].find('>') == std::string::npos) ++i;
      continue;
    }
    const std::string& v = w[++i];
    if (k == "state") l.state = v;
    else if (k == "physical_state") l.physical_state = v;
    else if (k == "netdev") l.netdev = v;
    else if (k == "subnet_prefix") l.subnet_prefix = v;
    else if (k == "lid") l.lid = parse_u64(v);
    else if (k == "sm_lid") l.sm_lid = parse_u64(v);
  }
  return l;
}

std::string json_text(const nlohmann::json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : "";
}

std::optional<uint64_t> json_u64(const nlohmann::json& o, const char* key) {
  auto it = o.find(key);
  if (it == o.end() || !it->is_number_unsigned()) return std::nullopt;
  return it->get<uint64_t>();
}

Result<RdmaLinkImport> read_json(LineSource& lines, RdmaLinkImport imp, std::string text, size_t first) {
  while (auto raw = lines.next()) {
    text.append(raw->data(), raw->size());
    text += '\n';
    if (text.size() > kMaxJsonBytes)
      return make_error(ErrorCode::kParse, "rdma link JSON larger than 64 MiB: not read", imp.source);
  }
  if (lines.error()) return *lines.error();
  auto doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_array())
    return make_error(ErrorCode::kParse,
                      "expected `rdma link show -j` output (a JSON array of links), but the JSON " +
                          std::string(doc.is_discarded() ? "does not parse (cut?)" : "is not an array"),
                      line_source(imp.source, first));
  imp.format = "json";
  for (const auto& o : doc) {
    RdmaLink l;
    auto port = o.is_object() ? json_u64(o, "port") : std::nullopt;
    l.ibdev = o.is_object() ? json_text(o, "ifname") : "";
    if (l.ibdev.empty() || !port || *port == 0 || *port > 255) {
      imp.gaps.push_back(make_error(ErrorCode::kParse, "a JSON entry without ifname and port: " + o.dump().substr(0, 80),
                                    line_source(imp.source, first)));
      continue;
    }
    l.port = static_cast<uint32_t>(*port);
    l.state = json_text(o, "state");
    l.physical_state = json_text(o, "physical_state");
    l.netdev = json_text(o, "netdev");
    l.subnet_prefix = json_text(o, "subnet_prefix");
    l.lid = json_u64(o, "lid");
    l.sm_lid = json_u64(o, "sm_lid");
    l.line = first;
    imp.links.push_back(std::move(l));
  }
  if (imp.links.empty() && !doc.empty())
    return make_error(ErrorCode::kParse, "expected `rdma link show -j` output, but no entry names a link",
                      line_source(imp.source, first));
  return imp;
}

Result<RdmaLinkImport> read_text(LineSource& lines, RdmaLinkImport imp, const std::string& first_line, size_t first) {
  imp.format = "text";
  LineTally other, partial;
  LatestRecords latest;
  auto read = [&](const std::string& l, size_t n) {
    HostPrefixed hp = split_host_prefix(l);
    std::string t = trim(hp.text);
    if (t.empty() || starts_with(t, "###")) return;
    auto rec = read_record(split_ws(t));
    if (!rec) return other.add(n, t);
    if (rec->state.empty() || rec->physical_state.empty()) partial.add(n, t);
    rec->host = hp.host;
    rec->line = n;
    std::string key = rec->host + "|" + rec->ibdev + "|" + std::to_string(rec->port);
    latest.put(imp.links, key, std::move(*rec));
  };
  read(first_line, first);
  // The first line was taken to tell text from JSON; when it was also the last and ends
  // without '\n', it is the cut line read_whole_lines() would have reported.
  bool more = false;
  auto st = read_whole_lines(
      lines, imp.source,
      [&](const std::string& l, size_t n) {
        more = true;
        read(l, n);
      },
      [&imp] { return !imp.links.empty(); }, imp.gaps, [&more](const std::string&, size_t) { more = true; });
  if (!st) return st.error();
  imp.repeated = latest.replaced();
  if (!more && lines.unterminated() && !imp.links.empty()) {
    imp.links.pop_back();
    if (partial.first == first) partial = LineTally{};
    imp.gaps.push_back(make_error(ErrorCode::kParse,
                                  "the last line ends without a newline (the output was cut); NOT READ: " +
                                      quote_line(first_line),
                                  line_source(imp.source, first)));
    if (imp.links.empty()) return imp;
  }
  if (imp.links.empty())
    return not_this_format("`rdma link show` output (\"link mlx5_0/1 state ACTIVE physical_state LINK_UP ...\")",
                           imp.source, other);
  add_tally_gap(imp.gaps, imp.source, partial, "link record(s) without state or physical_state (cut?)");
  add_tally_gap(imp.gaps, imp.source, other, "line(s) not understood");
  return imp;
}

}  // namespace

bool RdmaLink::up() const { return state == "ACTIVE" && physical_state == "LINK_UP"; }

bool is_rdma_link_show_line(std::string_view line) {
  std::string t = trim(split_host_prefix(line).text);
  if (starts_with(t, "\"physical_state\":")) return true;
  if (!t.empty() && (t[0] == '[' || t[0] == '{'))
    return t.find("\"physical_state\":") != std::string::npos && t.find("\"ifname\":") != std::string::npos;
  return read_record(split_ws(t)).has_value();
}

Result<RdmaLinkImport> import_rdma_link(std::string_view text, const std::string& source) {
  auto lines = text_line_source(std::string(text));
  return import_rdma_link(*lines, source, ReadLimits{});
}

Result<RdmaLinkImport> import_rdma_link(LineSource& lines, const std::string& source, const ReadLimits&) {
  RdmaLinkImport imp;
  imp.source = source;
  while (auto raw = lines.next()) {
    std::string t = trim(*raw);
    if (t.empty() || starts_with(t, "###")) continue;
    if (t[0] == '[' || t[0] == '{') return read_json(lines, std::move(imp), std::string(*raw) + "\n", lines.line_no());
    return read_text(lines, std::move(imp), std::string(*raw), lines.line_no());
  }
  if (lines.error()) return *lines.error();
  return make_error(ErrorCode::kParse, "expected `rdma link show` output, but the input is empty", source);
}

}  // namespace fabdiag
