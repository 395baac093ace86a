#include "import/ibstat.h"

#include <cctype>
#include <optional>

#include "core/text.h"
#include "import/common.h"
#include "import/format_detect.h"
#include "import/port_listing_gaps.h"

namespace fabdiag {

namespace {

// The lines ibstat prints in every "Port N:" block (infiniband-diags ibstat.c, port_dump()).
const std::vector<std::string>& ibstat_port_lines() {
  static const std::vector<std::string> lines = {"State", "Physical state", "Rate", "Link layer"};
  return lines;
}

// A "CA '<name>'" block: where it starts and how many ports it says it has.
struct CaBlock {
  std::string where;  // "FILE line N"
  std::string name;
  std::optional<uint64_t> declared;
  size_t listed = 0;
};

void close_ca(const CaBlock& ca, std::vector<Error>* gaps) {
  if (!gaps || ca.name.empty() || !ca.declared) return;
  for (auto& e : missing_port_blocks_gap(ca.where, "CA '" + ca.name + "'", *ca.declared, ca.listed))
    gaps->push_back(std::move(e));
}

// A state name normalize_port_state() / normalize_phys_state() knows ("4: ACTIVE").
bool known_state(const std::string& normalized) {
  return !normalized.empty() && std::isdigit(static_cast<unsigned char>(normalized[0])) &&
         normalized.find(": ") != std::string::npos;
}

// True when `t` (trimmed) is a line ibstat prints whole: a "CA '...'" or "Port N:" title, or
// "Key: value" with a value, one of theirs for State, Physical state and Link layer. An input's
// last line without '\n' is read only when it is one ("Link layer: Ethe" was cut).
bool whole_ibstat_line(const std::string& t) {
  if (starts_with(t, "CA '")) return t.size() > 5 && t.back() == '\'';
  if (starts_with(t, "Port ") && t.back() == ':') return true;
  auto colon = t.find(':');
  if (colon == std::string::npos) return false;
  std::string key = trim(t.substr(0, colon)), value = trim(t.substr(colon + 1));
  if (value.empty()) return false;
  if (key == "State") return known_state(normalize_port_state(value));
  if (key == "Physical state") return known_state(normalize_phys_state(value));
  if (key == "Link layer") return value == "InfiniBand" || value == "Ethernet";
  return true;
}

}  // namespace

Result<std::vector<RdmaPortFacts>> parse_ibstat(std::string_view text, const std::string& source, int first_line,
                                                std::vector<Error>* gaps) {
  std::vector<RdmaPortFacts> ports;
  std::vector<PortBlockLines> read;
  CaBlock ca;
  std::string model, fw;
  RdmaPortFacts* cur = nullptr;
  int n = first_line - 1;
  const auto rows = split(text, '\n');
  const bool unterminated = !text.empty() && text.back() != '\n';
  for (size_t i = 0; i < rows.size(); ++i) {
    ++n;
    std::string t = trim(rows[i]);
    if (t.empty()) continue;
    if (unterminated && i + 1 == rows.size() && !whole_ibstat_line(t)) {
      if (gaps)
        gaps->push_back(make_error(ErrorCode::kParse,
                                   "the last line ends without a newline (the output was cut); NOT READ: " + quote_line(t),
                                   line_source(source, static_cast<size_t>(n))));
      continue;
    }
    if (starts_with(t, "CA '") && t.size() > 5 && t.back() == '\'') {
      close_ca(ca, gaps);
      ca = CaBlock{source + " line " + std::to_string(n), t.substr(4, t.size() - 5), std::nullopt, 0};
      model.clear();
      fw.clear();
      cur = nullptr;
      continue;
    }
    if (ca.name.empty()) continue;
    if (starts_with(t, "Port ") && t.back() == ':') {
      auto num = parse_u64(t.substr(5, t.size() - 6));
      if (!num || *num > 255) continue;
      RdmaPortFacts p = listed_rdma_port(ca.name, static_cast<int>(*num),
                                         source + " line " + std::to_string(n) + ": CA '" + ca.name + "' port " +
                                             std::to_string(*num));
      p.model = model;
      p.fw_ver = fw;
      ports.push_back(std::move(p));
      read.push_back(PortBlockLines{ibstat_port_lines(), {}});
      ++ca.listed;
      cur = &ports.back();
      continue;
    }
    auto colon = t.find(':');
    if (colon == std::string::npos) continue;
    std::string key = trim(t.substr(0, colon)), value = trim(t.substr(colon + 1));
    if (!cur) {
      if (key == "CA type") model = value;
      else if (key == "Firmware version") fw = value;
      else if (key == "Number of ports") ca.declared = parse_u64(value);
      continue;
    }
    read.back().saw(key);
    if (key == "State") cur->state = normalize_port_state(value);
    else if (key == "Physical state") cur->phys_state = normalize_phys_state(value);
    else if (key == "Rate") {
      cur->rate = value;
      cur->rate_gbps = parse_leading_double(value);
    } else if (key == "Base lid") cur->lid = value;
    else if (key == "Link layer") cur->link_layer = value;
  }
  close_ca(ca, gaps);
  if (ports.empty())
    return make_error(ErrorCode::kParse, "no \"CA '<name>'\" block with a \"Port N:\" section (not ibstat output?)",
                      source);
  if (gaps)
    for (auto& e : missing_port_lines_gaps(ports, read)) gaps->push_back(std::move(e));
  return ports;
}

}  // namespace fabdiag
