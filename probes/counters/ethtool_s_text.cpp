#include "probes/counters/ethtool_s_text.h"

#include <optional>
#include <string_view>

#include "core/text.h"

namespace fabdiag {

namespace {

bool is_header(std::string_view line) {
  return ends_with(line, "statistics:") || starts_with(line, "Standard stats for");
}

}  // namespace

EthtoolSLine parse_ethtool_s_line(std::string_view raw) {
  EthtoolSLine out;
  std::string_view line = trim_view(raw);
  if (line.empty() || line[0] == '#') return out;  // ethtool never starts a line with '#'
  if (is_header(line)) {
    out.kind = EthtoolSLineKind::kHeader;
    return out;
  }
  size_t colon = line.rfind(':');
  out.has_name = colon != std::string_view::npos && colon > 0;
  std::optional<uint64_t> v;
  if (out.has_name) v = parse_u64(line.substr(colon + 1));
  if (!v) {
    out.kind = EthtoolSLineKind::kBad;
    return out;
  }
  out.kind = EthtoolSLineKind::kStat;
  out.stat = EthtoolStat{std::string(trim_view(line.substr(0, colon))), *v};
  return out;
}

Result<EthtoolSText> parse_ethtool_s_text(std::string_view text, const std::string& source,
                                          EthtoolSStrictness strictness, size_t first_line) {
  EthtoolSText out;
  size_t line_no = first_line - 1;
  bool header_allowed = true;
  for (size_t start = 0, end = 0; end != std::string_view::npos; start = end + 1) {
    end = text.find('\n', start);  // the lines split() would give, as views
    const std::string_view raw =
        text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    ++line_no;
    EthtoolSLine l = parse_ethtool_s_line(raw);
    if (l.kind == EthtoolSLineKind::kSkip) continue;
    bool header = l.kind == EthtoolSLineKind::kHeader && header_allowed;
    header_allowed = false;
    if (header) continue;
    if (l.kind == EthtoolSLineKind::kStat) {
      out.stats.push_back(std::move(l.stat));
      out.stat_lines.push_back(line_no);
      continue;
    }
    if (strictness == EthtoolSStrictness::kLenient) {
      out.bad_lines.push_back(line_no);
      continue;
    }
    return make_error(ErrorCode::kParse,
                      "line " + std::to_string(line_no) +
                          (l.has_name ? " has no unsigned value: " : " is not \"name: value\": ") + trim(raw),
                      source);
  }
  return out;
}

}  // namespace fabdiag
