#include "probes/counters/ethtool_s_text.h"

#include <optional>

#include "core/text.h"

namespace fabdiag {

namespace {

bool is_header(const std::string& line) {
  return ends_with(line, "statistics:") || starts_with(line, "Standard stats for");
}

}  // namespace

Result<EthtoolSText> parse_ethtool_s_text(std::string_view text, const std::string& source,
                                          EthtoolSStrictness strictness, size_t first_line) {
  EthtoolSText out;
  size_t line_no = first_line - 1;
  bool header_allowed = true;
  for (const auto& raw : split(text, '\n')) {
    ++line_no;
    std::string line = trim(raw);
    if (line.empty() || line[0] == '#') continue;  // ethtool never starts a line with '#'
    if (header_allowed && is_header(line)) {
      header_allowed = false;
      continue;
    }
    header_allowed = false;
    size_t colon = line.rfind(':');
    bool has_name = colon != std::string::npos && colon > 0;
    std::optional<uint64_t> v;
    if (has_name) v = parse_u64(line.substr(colon + 1));
    if (!v) {
      if (strictness == EthtoolSStrictness::kLenient) {
        out.bad_lines.push_back(line_no);
        continue;
      }
      return make_error(ErrorCode::kParse,
                        "line " + std::to_string(line_no) +
                            (has_name ? " has no unsigned value: " : " is not \"name: value\": ") + line,
                        source);
    }
    out.stats.push_back(EthtoolStat{trim(line.substr(0, colon)), *v});
    out.stat_lines.push_back(line_no);
  }
  return out;
}

}  // namespace fabdiag
