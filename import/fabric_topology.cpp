#include "import/fabric_topology.h"

#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>

#include "core/text.h"
#include "import/ibnetdiscover.h"

namespace fabdiag {

namespace {

bool is_topology_name(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-' || c == ':';
  });
}

std::string where(const std::string& source, size_t line) { return source + ":" + std::to_string(line); }

// The line without its '#' comment, split on whitespace, "->" arrows dropped.
std::vector<std::string> text_fields(std::string_view line) {
  auto hash = line.find('#');
  std::string body(line.substr(0, hash));
  for (size_t p = body.find("->"); p != std::string::npos; p = body.find("->", p)) body.replace(p, 2, " ");
  return split_ws(body);
}

bool looks_like_slurm(std::string_view text) {
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string line = trim(text.substr(start, end - start));
    std::string lower(line.substr(0, 11));
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (lower == "switchname=") return true;
    start = end + 1;
  }
  return false;
}

bool looks_like_ibnetdiscover(std::string_view text) {
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    if (is_ibnetdiscover_line(trim_view(text.substr(start, end - start)))) return true;
    start = end + 1;
  }
  return false;
}

}  // namespace

Result<FabricTopology> read_topology_text(std::string_view text, const std::string& source) {
  FabricTopology t;
  t.source = source;
  t.format = "text";
  size_t start = 0, line_no = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    ++line_no;
    auto f = text_fields(text.substr(start, end - start));
    start = end + 1;
    if (f.empty()) continue;
    if (f.size() < 2 || f.size() > 3)
      return make_error(ErrorCode::kParse,
                        "want `HOST LEAF [SPINE]` (or `HOST -> LEAF -> SPINE`), got " + std::to_string(f.size()) + " name(s)",
                        where(source, line_no));
    for (const auto& name : f)
      if (!is_topology_name(name))
        return make_error(ErrorCode::kParse, "'" + escape_controls(name) + "' is not a host or switch name (letters, digits, ._-:)",
                          where(source, line_no));
    auto [it, fresh] = t.leaf_of_host.emplace(f[0], f[1]);
    if (!fresh && it->second != f[1])
      return make_error(ErrorCode::kParse, "host " + f[0] + " is under leaf " + it->second + " already, not " + f[1],
                        where(source, line_no));
    auto& spines = t.spines_of_leaf[f[1]];
    if (f.size() == 3 && std::find(spines.begin(), spines.end(), f[2]) == spines.end()) spines.push_back(f[2]);
    if (end == text.size()) break;
  }
  if (t.leaf_of_host.empty()) return make_error(ErrorCode::kParse, "names no host under a leaf", source);
  return t;
}

Result<FabricTopology> read_fabric_topology(std::string_view text, const std::string& source) {
  if (looks_like_ibnetdiscover(text)) return read_ibnetdiscover_topology(text, source);
  if (looks_like_slurm(text)) return read_slurm_topology(text, source);
  return read_topology_text(text, source);
}

nlohmann::json fabric_topology_json(const FabricTopology& t) {
  std::map<std::string, std::vector<std::string>> hosts_of_leaf;
  for (const auto& [h, l] : t.leaf_of_host) hosts_of_leaf[l].push_back(h);
  nlohmann::json leaves = nlohmann::json::array();
  for (const auto& [leaf, hosts] : hosts_of_leaf) {
    auto sp = t.spines_of_leaf.find(leaf);
    leaves.push_back({{"leaf", leaf}, {"hosts", hosts},
                      {"spines", sp == t.spines_of_leaf.end() ? std::vector<std::string>{} : sp->second}});
  }
  return {{"source", t.source}, {"format", t.format}, {"hosts", t.leaf_of_host.size()}, {"leaves", leaves}, {"notes", t.notes}};
}

}  // namespace fabdiag
