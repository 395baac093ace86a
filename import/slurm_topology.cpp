// Slurm's topology.conf (topology/tree) and the hostlist expression it uses for Nodes= and Switches=.
#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "core/text.h"
#include "import/fabric_topology.h"

namespace fabdiag {

namespace {

Error hostlist_error(const std::string& what) { return make_error(ErrorCode::kParse, "hostlist: " + what); }

// Splits a hostlist on the commas outside brackets.
Result<std::vector<std::string>> split_top_level(std::string_view list) {
  std::vector<std::string> parts;
  std::string cur;
  int depth = 0;
  for (char c : list) {
    if (c == '[') ++depth;
    if (c == ']' && --depth < 0) return hostlist_error("']' without '['");
    if (c == ',' && depth == 0) {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (depth != 0) return hostlist_error("'[' without ']'");
  parts.push_back(cur);
  return parts;
}

// The numbers of one bracket body "01-04,07" as strings, zero-padded like the lower bound.
Result<std::vector<std::string>> bracket_values(std::string_view body, size_t max_names) {
  std::vector<std::string> out;
  for (const auto& item : split(body, ',')) {
    auto dash = item.find('-');
    std::string lo_s = item.substr(0, dash), hi_s = dash == std::string::npos ? lo_s : item.substr(dash + 1);
    auto lo = parse_u64(lo_s), hi = parse_u64(hi_s);
    if (!lo || !hi || lo_s.empty() || hi_s.empty()) return hostlist_error("'" + item + "' is not N or N-M");
    if (*lo > *hi) return hostlist_error("range '" + item + "' runs backwards");
    if (*hi - *lo >= max_names || out.size() + (*hi - *lo) >= max_names) return hostlist_error("more than " + std::to_string(max_names) + " names");
    for (uint64_t v = *lo; v <= *hi; ++v) {
      std::string s = std::to_string(v);
      if (s.size() < lo_s.size()) s.insert(0, lo_s.size() - s.size(), '0');
      out.push_back(s);
    }
  }
  return out;
}

// Expands one name with any number of bracket ranges ("rack[1-2]-n[1-3]"), appending to `out`.
Status expand_one(const std::string& name, size_t max_names, std::vector<std::string>& out) {
  auto open = name.find('[');
  if (open == std::string::npos) {
    if (!name.empty()) out.push_back(name);
    return Ok{};
  }
  auto close = name.find(']', open);
  if (close == std::string::npos) return hostlist_error("'[' without ']'");
  auto values = bracket_values(std::string_view(name).substr(open + 1, close - open - 1), max_names);
  if (!values) return values.error();
  for (const auto& v : *values) {
    auto st = expand_one(name.substr(0, open) + v + name.substr(close + 1), max_names, out);
    if (!st) return st;
    if (out.size() > max_names) return hostlist_error("more than " + std::to_string(max_names) + " names");
  }
  return Ok{};
}

// Key=Value words of one topology.conf line, keys lower-cased.
std::vector<std::pair<std::string, std::string>> key_values(std::string_view line) {
  std::vector<std::pair<std::string, std::string>> kv;
  for (const auto& w : split_ws(line)) {
    auto eq = w.find('=');
    std::string key = w.substr(0, eq);
    std::transform(key.begin(), key.end(), key.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    kv.emplace_back(key, eq == std::string::npos ? std::string() : w.substr(eq + 1));
  }
  return kv;
}

}  // namespace

Result<std::vector<std::string>> expand_hostlist(std::string_view list, size_t max_names) {
  auto parts = split_top_level(trim_view(list));
  if (!parts) return parts.error();
  std::vector<std::string> out;
  for (const auto& p : *parts) {
    auto st = expand_one(trim(p), max_names, out);
    if (!st) return st.error();
  }
  return out;
}

Result<FabricTopology> read_slurm_topology(std::string_view text, const std::string& source) {
  FabricTopology t;
  t.source = source;
  t.format = "slurm";
  std::map<std::string, std::string> parent_of_switch;  // switch -> the switch listing it
  std::set<std::string> leaves;
  auto lines = split(text, '\n');
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    line = line.substr(0, line.find('#'));
    auto kv = key_values(line);
    if (kv.empty()) continue;
    const std::string at = source + ":" + std::to_string(i + 1);
    if (kv[0].first != "switchname" || kv[0].second.empty())
      return make_error(ErrorCode::kParse, "want `SwitchName=NAME Nodes=...|Switches=...`", at);
    const std::string& sw = kv[0].second;
    for (size_t k = 1; k < kv.size(); ++k) {
      if (kv[k].first != "nodes" && kv[k].first != "switches") continue;  // LinkSpeed= and others
      auto names = expand_hostlist(kv[k].second);
      if (!names) return Error{names.error().code, names.error().message, at, {}};
      for (const auto& n : *names) {
        if (kv[k].first == "nodes") {
          auto [it, fresh] = t.leaf_of_host.emplace(n, sw);
          if (!fresh && it->second != sw)
            return make_error(ErrorCode::kParse, "node " + n + " is under switch " + it->second + " already, not " + sw, at);
          leaves.insert(sw);
        } else {
          parent_of_switch.emplace(n, sw);
        }
      }
    }
  }
  for (const auto& leaf : leaves) {
    auto& spines = t.spines_of_leaf[leaf];
    auto it = parent_of_switch.find(leaf);
    if (it != parent_of_switch.end()) spines.push_back(it->second);
  }
  if (t.leaf_of_host.empty()) return make_error(ErrorCode::kParse, "no SwitchName line lists Nodes=", source);
  return t;
}

}  // namespace fabdiag
