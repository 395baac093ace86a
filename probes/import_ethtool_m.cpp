#include "probes/import_ethtool_m.h"

#include <cctype>
#include <limits>
#include <map>

#include "core/text.h"

namespace fabdiag {
namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
bool has(const std::string& s, const char* w) { return s.find(w) != std::string::npos; }

std::optional<double> number(std::string_view t) {
  std::string s = trim(t);
  if (s == "-inf") return -std::numeric_limits<double>::infinity();
  return parse_double(s);
}

// "(Channel 3)", "(Lane 3)", "Channel 3" -> 3; 0 when none.
int channel_of(const std::string& label) {
  std::string l = lower(label);
  for (const char* key : {"channel", "lane"}) {
    size_t at = l.find(key);
    if (at == std::string::npos) continue;
    auto words = split_ws(l.substr(at + std::string(key).size()));
    if (words.empty()) continue;
    std::string w = words[0];
    while (!w.empty() && !std::isdigit(static_cast<unsigned char>(w.back()))) w.pop_back();
    if (auto v = parse_u64(w)) return static_cast<int>(*v);
  }
  return 0;
}

enum class Quantity { kNone, kTxPower, kRxPower, kBias, kTemperature, kVoltage };

Quantity quantity_of(const std::string& l) {
  if (has(l, "rx power") || has(l, "receiver signal") || has(l, "rcvr signal") ||
      has(l, "receive power") || has(l, "rx optical power"))
    return Quantity::kRxPower;
  if (has(l, "output power") || has(l, "transmit avg optical power") || has(l, "tx power") ||
      has(l, "tx optical power"))
    return Quantity::kTxPower;
  if (has(l, "bias")) return Quantity::kBias;
  if (has(l, "temperature")) return Quantity::kTemperature;
  if (has(l, "voltage")) return Quantity::kVoltage;
  return Quantity::kNone;
}

// "high alarm" -> 0, "low alarm" -> 1, "high warning" -> 2, "low warning" -> 3; -1 none.
int level_of(const std::string& l) {
  if (has(l, "high alarm")) return 0;
  if (has(l, "low alarm")) return 1;
  if (has(l, "high warning")) return 2;
  if (has(l, "low warning")) return 3;
  return -1;
}

std::string netdev_in_title(const std::string& title) {
  auto words = split_ws(title);
  for (size_t i = 0; i + 1 < words.size(); ++i)
    if ((words[i] == "-m" || words[i] == "--module-info" || words[i] == "--dump-module-eeprom") &&
        words[i + 1][0] != '-')
      return words[i + 1];
  return {};
}

void set_power_limit(PowerLimits& l, int level, const OpticalPower& p) {
  OpticalPower* slots[] = {&l.high_alarm, &l.low_alarm, &l.high_warning, &l.low_warning};
  *slots[level] = p;
}
void set_scalar_limit(ScalarLimits& l, int level, double v) {
  std::optional<double>* slots[] = {&l.high_alarm, &l.low_alarm, &l.high_warning, &l.low_warning};
  *slots[level] = v;
}

// Reads one section into `m`; returns the number of values and thresholds found.
size_t read_section(const TextSection& sec, ModuleDiagnostics& m) {
  size_t found = 0;
  for (const auto& raw : split(sec.text, '\n')) {
    size_t colon = raw.find(':');
    if (colon == std::string::npos) continue;
    std::string label = trim(raw.substr(0, colon));
    std::string value = trim(raw.substr(colon + 1));
    std::string l = lower(label);
    Quantity q = quantity_of(l);
    if (q == Quantity::kNone) continue;
    int level = level_of(l);
    int lane = channel_of(label);
    if (level >= 0 && has(l, "threshold")) {
      if (q == Quantity::kTxPower || q == Quantity::kRxPower) {
        auto p = parse_optical_power(value);
        if (!p) continue;
        set_power_limit(q == Quantity::kTxPower ? m.tx_power_limits : m.rx_power_limits, level, *p);
      } else {
        auto v = parse_leading_double(value);
        if (!v) continue;
        set_scalar_limit(q == Quantity::kBias ? m.tx_bias_limits_ma
                         : q == Quantity::kTemperature ? m.temperature_limits_c
                                                       : m.voltage_limits_v,
                         level, *v);
      }
      ++found;
      continue;
    }
    if (level >= 0 || has(l, "alarm") || has(l, "warning")) {  // a flag line: On / Off
      if (lower(value) == "on") m.raised_flags.push_back(label);
      continue;
    }
    switch (q) {
      case Quantity::kTxPower:
      case Quantity::kRxPower: {
        auto p = parse_optical_power(value);
        if (!p) continue;
        auto& lanes = q == Quantity::kTxPower ? m.tx_power : m.rx_power;
        lanes.push_back(LanePower{lane, *p});
        ++found;
        break;
      }
      case Quantity::kBias:
        if (auto v = parse_leading_double(value)) {
          m.tx_bias_ma.push_back(LaneBias{lane, *v});
          ++found;
        }
        break;
      case Quantity::kTemperature:
        if (auto v = parse_leading_double(value)) {
          m.temperature_c = *v;
          ++found;
        }
        break;
      case Quantity::kVoltage:
        if (auto v = parse_leading_double(value)) {
          m.voltage_v = *v;
          ++found;
        }
        break;
      case Quantity::kNone: break;
    }
  }
  return found;
}

}  // namespace

std::optional<OpticalPower> parse_optical_power(std::string_view text) {
  OpticalPower p;
  for (const auto& part : split(text, '/')) {
    auto words = split_ws(part);
    if (words.size() != 2) continue;
    auto v = number(words[0]);
    if (!v) continue;
    if (words[1] == "mW") p.mw = *v;
    else if (words[1] == "dBm") p.dbm = *v;
  }
  if (!p.present()) return std::nullopt;
  return p;
}

Result<CounterImport> import_ethtool_m(std::string_view text, const std::string& source,
                                       const std::string& device) {
  CounterImport imp;
  imp.format = "ethtool-m";
  imp.source = source;
  std::map<std::string, size_t> index;
  for (const auto& sec : split_sections(text)) {
    std::string nd = netdev_in_title(sec.title);
    if (nd.empty()) nd = device.empty() ? "module" : device;
    ModuleDiagnostics m;
    m.device = nd;
    m.source = source;
    if (read_section(sec, m) == 0) continue;
    if (auto it = index.find(nd); it != index.end()) {
      imp.modules[it->second] = m;
    } else {
      index[nd] = imp.modules.size();
      imp.modules.push_back(m);
      PortInfo p;
      p.device = p.netdev = nd;
      merge_port(imp.ports, p);
    }
  }
  if (imp.modules.empty())
    return make_error(ErrorCode::kParse, "no optical power, bias, temperature or voltage value "
                      "(not `ethtool -m` output, or the module has no diagnostics)", source);
  if (device.empty() && index.count("module"))
    imp.notes.push_back("the input does not name the netdev: the module is called \"module\" "
                        "(give --netdev NAME)");
  return imp;
}

}  // namespace fabdiag
