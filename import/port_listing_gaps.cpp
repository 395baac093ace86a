#include "import/port_listing_gaps.h"

#include "core/text.h"

namespace fabdiag {

std::vector<std::string> PortBlockLines::missing() const {
  std::vector<std::string> out;
  for (const auto& k : required)
    if (!seen.count(k)) out.push_back(k);
  return out;
}

std::vector<Error> missing_port_lines_gaps(const std::vector<RdmaPortFacts>& ports,
                                           const std::vector<PortBlockLines>& lines) {
  std::vector<Error> out;
  for (size_t i = 0; i < ports.size() && i < lines.size(); ++i) {
    auto missing = lines[i].missing();
    if (missing.empty()) continue;
    for (auto& k : missing) k = "\"" + k + "\"";
    out.push_back(make_error(ErrorCode::kParse,
                             "the port's block has no " + join_prose(missing, " or ") +
                                 " line (the output ends or is cut short there): NOT READ, unknown, not healthy",
                             ports[i].source));
  }
  return out;
}

std::vector<Error> missing_port_blocks_gap(const std::string& where, const std::string& ca, uint64_t declared,
                                           size_t listed) {
  if (listed >= declared) return {};
  return {make_error(ErrorCode::kParse,
                     ca + " has " + std::to_string(declared) + " ports but the text lists " + std::to_string(listed) +
                         " (the output ends or is cut short there): the others are NOT READ, unknown, not healthy",
                     where)};
}

}  // namespace fabdiag
