#include "import/show_gids.h"

#include <cctype>

#include "core/text.h"
#include "import/common.h"
#include "import/host_prefix.h"
#include "import/latest_records.h"
#include "import/whole_lines.h"

namespace fabdiag {
namespace {

// Eight groups of four hex digits: "fe80:0000:0000:0000:0a5b:ffff:fe12:3456".
bool is_gid(const std::string& w) {
  if (w.size() != 39) return false;
  for (size_t i = 0; i < w.size(); ++i) {
    bool colon = i % 5 == 4;
    if (colon ? w[i] != ':' : !std::isxdigit(static_cast<unsigned char>(w[i]))) return false;
  }
  return true;
}

bool is_ipv4(const std::string& w) {
  auto parts = split(w, '.');
  if (parts.size() != 4) return false;
  for (const auto& p : parts) {
    auto v = parse_u64(p);
    if (!v || *v > 255 || p.size() > 3) return false;
  }
  return true;
}

bool is_header(const std::vector<std::string>& w) {
  return w.size() == 7 && w[0] == "DEV" && w[1] == "PORT" && w[2] == "INDEX" && w[3] == "GID" && w[4] == "IPv4" &&
         w[5] == "VER" && w[6] == "DEV";
}

std::optional<uint64_t> gid_count(const std::string& t) {
  if (!starts_with(t, "n_gids_found=")) return std::nullopt;
  return parse_u64(t.substr(13));
}

// "mlx5_0 1 3 <gid> [ipv4] v1|v2 [netdev]".
std::optional<ShowGidsEntry> read_row(const std::vector<std::string>& w) {
  if (w.size() < 5 || w.size() > 7 || !is_gid(w[3])) return std::nullopt;
  auto port = parse_u64(w[1]), index = parse_u64(w[2]);
  if (!port || !index || *port == 0 || *port > 255 || *index > 65535) return std::nullopt;
  ShowGidsEntry e;
  e.ibdev = w[0];
  e.port = static_cast<uint32_t>(*port);
  e.index = static_cast<uint32_t>(*index);
  e.gid = w[3];
  size_t i = 4;
  if (is_ipv4(w[i])) e.ipv4 = w[i++];
  if (i == w.size() || (w[i] != "v1" && w[i] != "v2")) return std::nullopt;
  e.version = w[i++];
  if (i < w.size()) e.netdev = w[i++];
  if (i != w.size()) return std::nullopt;
  return e;
}

}  // namespace

bool is_show_gids_marker(std::string_view line) {
  std::string t = trim(split_host_prefix(line).text);
  auto w = split_ws(t);
  return is_header(w) || gid_count(t).has_value() || read_row(w).has_value();
}

Result<ShowGidsImport> import_show_gids(std::string_view text, const std::string& source) {
  auto lines = text_line_source(std::string(text));
  return import_show_gids(*lines, source, ReadLimits{});
}

Result<ShowGidsImport> import_show_gids(LineSource& lines, const std::string& source, const ReadLimits&) {
  ShowGidsImport imp;
  imp.source = source;
  LineTally other;
  LatestRecords latest;
  size_t count_line = 0;
  auto st = read_whole_lines(
      lines, source,
      [&](const std::string& l, size_t n) {
        HostPrefixed hp = split_host_prefix(l);
        std::string t = trim(hp.text);
        if (t.empty() || starts_with(t, "###") || t.find_first_not_of("- \t") == std::string::npos) return;
        auto w = split_ws(t);
        if (is_header(w)) {
          imp.header = true;
          return;
        }
        if (auto c = gid_count(t)) {
          imp.n_gids_found = imp.n_gids_found.value_or(0) + *c;  // one per host in a pdsh paste
          count_line = n;
          return;
        }
        auto e = read_row(w);
        if (!e) return other.add(n, t);
        e->host = hp.host;
        e->line = n;
        ++imp.rows;
        std::string key = e->host + "|" + e->ibdev + "|" + std::to_string(e->port) + "|" + std::to_string(e->index);
        latest.put(imp.entries, key, std::move(*e));
      },
      [&imp] { return imp.header || !imp.entries.empty(); }, imp.gaps);
  if (!st) return st.error();
  imp.repeated = latest.replaced();
  if (!imp.header && imp.entries.empty())
    return not_this_format("show_gids output (the \"DEV PORT INDEX GID IPv4 VER DEV\" table or its rows)", source, other);
  if (imp.n_gids_found && *imp.n_gids_found != imp.rows)
    imp.gaps.push_back(make_error(ErrorCode::kParse,
                                  "n_gids_found=" + std::to_string(*imp.n_gids_found) + " but " +
                                      std::to_string(imp.rows) +
                                      " GID row(s) were read: the table was cut or filtered",
                                  line_source(source, count_line)));
  add_tally_gap(imp.gaps, source, other, "line(s) not understood");
  return imp;
}

std::vector<ShowGidsPort> show_gids_ports(const ShowGidsImport& imp) {
  std::vector<ShowGidsPort> out;
  for (const auto& e : imp.entries) {
    ShowGidsPort* p = nullptr;
    for (auto& q : out)
      if (q.host == e.host && q.ibdev == e.ibdev && q.port == e.port) p = &q;
    if (!p) {
      out.push_back({e.host, e.ibdev, e.netdev, e.port, {}, false, std::nullopt, false});
      p = &out.back();
    }
    if (p->netdev.empty()) p->netdev = e.netdev;
    p->gids.push_back(&e);
    p->has_v2 = p->has_v2 || e.version == "v2";
    if (!p->v2_ipv4_index && e.version == "v2" && !e.ipv4.empty()) p->v2_ipv4_index = e.index;
  }
  for (auto& p : out) {
    bool mapped = false;
    for (const auto* g : p.gids) mapped = mapped || !g->ipv4.empty();
    p.infiniband = !mapped && !p.has_v2 && (p.netdev.empty() || starts_with(p.netdev, "ib"));
  }
  return out;
}

}  // namespace fabdiag
