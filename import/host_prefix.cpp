#include "import/host_prefix.h"

#include <cctype>

namespace fabdiag {

HostPrefixed split_host_prefix(std::string_view line) {
  size_t start = line.find_first_not_of(" \t");
  if (start == std::string_view::npos) return {"", std::string(line)};
  size_t colon = line.find(": ", start);
  if (colon == std::string_view::npos || colon == start) return {"", std::string(line)};
  bool letter = false;
  for (size_t i = start; i < colon; ++i) {
    auto c = static_cast<unsigned char>(line[i]);
    if (!std::isalnum(c) && c != '-' && c != '_' && c != '.') return {"", std::string(line)};
    letter = letter || std::isalpha(c);
  }
  if (!letter) return {"", std::string(line)};
  return {std::string(line.substr(start, colon - start)), std::string(line.substr(colon + 2))};
}

}  // namespace fabdiag
