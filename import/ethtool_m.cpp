#include "import/ethtool_m.h"

#include <cctype>
#include <cmath>
#include <algorithm>
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

std::optional<double>* limit_slot(ModuleThresholds& t, int level) {
  std::optional<double>* slots[] = {&t.high_alarm, &t.low_alarm, &t.high_warning, &t.low_warning};
  return slots[level];
}

// "0x11 (QSFP28)" -> identifier 0x11, name "QSFP28".
void read_identifier(const std::string& value, ModuleDiagnostics& m) {
  auto words = split_ws(value);
  if (!words.empty() && words[0].rfind("0x", 0) == 0)
    if (auto v = parse_u64(words[0]); v && *v <= 0xff) m.identifier = static_cast<uint8_t>(*v);
  size_t open = value.find('('), close = value.rfind(')');
  if (open != std::string::npos && close != std::string::npos && close > open)
    m.identifier_name = trim(value.substr(open + 1, close - open - 1));
}

// Identity lines; true when `l` (the lowercased label) was one.
bool read_identity(const std::string& l, const std::string& value, ModuleDiagnostics& m) {
  // SFF-8636 byte 93 as ethtool 5.16+ prints it: "Power set: On" asks for low power mode,
  // which holds when "Power override" (software control) is On too.
  if (l == "power set") m.module_state = lower(value) == "on" ? "ModuleLowPwr" : "";
  else if (l == "power override") {
    if (lower(value) != "on" && m.module_state == "ModuleLowPwr") m.module_state.clear();
  } else if (l == "identifier") read_identifier(value, m);
  else if (l == "vendor name") m.vendor = value;
  else if (l == "vendor pn") m.part_number = value;
  else if (l == "vendor sn") m.serial = value;
  else return false;
  return true;
}

// Reads one line into `m`; returns the number of values and thresholds found (0 or 1).
size_t read_line(std::string_view raw, ModuleDiagnostics& m) {
  size_t colon = raw.find(':');
  if (colon == std::string::npos) return 0;
  std::string label = trim(raw.substr(0, colon));
  std::string value = trim(raw.substr(colon + 1));
  std::string l = lower(label);
  if (read_identity(l, value, m)) return 0;
  Quantity q = quantity_of(l);
  if (q == Quantity::kNone) return 0;
  int level = level_of(l);
  int lane = std::max(1, channel_of(label));  // no channel: a single-lane module (lane 1)
  if (level >= 0 && has(l, "threshold")) {
    std::optional<double> v = q == Quantity::kTxPower || q == Quantity::kRxPower
                                  ? parse_optical_power_mw(value)
                                  : parse_leading_double(value);
    if (!v) return 0;
    ModuleThresholds& t = q == Quantity::kTxPower       ? m.tx_power_limits_mw
                          : q == Quantity::kRxPower     ? m.rx_power_limits_mw
                          : q == Quantity::kBias        ? m.tx_bias_limits_ma
                          : q == Quantity::kTemperature ? m.temperature_limits_c
                                                        : m.vcc_limits_v;
    *limit_slot(t, level) = *v;
    return 1;
  }
  if (level >= 0 || has(l, "alarm") || has(l, "warning")) {  // a flag line: On / Off
    if (lower(value) == "on" &&
        std::find(m.raised_flags.begin(), m.raised_flags.end(), label) == m.raised_flags.end())
      m.raised_flags.push_back(label);
    return 0;
  }
  std::optional<double> v = q == Quantity::kTxPower || q == Quantity::kRxPower
                                ? parse_optical_power_mw(value)
                                : parse_leading_double(value);
  if (!v) return 0;
  switch (q) {
    case Quantity::kTxPower: m.lane(lane).tx_power_mw = *v; break;
    case Quantity::kRxPower:
      m.lane(lane).rx_power_mw = *v;
      if (has(l, "oma")) m.rx_power_is_average = false;
      break;
    case Quantity::kBias: m.lane(lane).tx_bias_ma = *v; break;
    case Quantity::kTemperature: m.temperature_c = *v; break;
    case Quantity::kVoltage: m.vcc_v = *v; break;
    case Quantity::kNone: break;
  }
  return 1;
}

}  // namespace

std::optional<double> parse_optical_power_mw(std::string_view text) {
  std::optional<double> mw, dbm;
  for (const auto& part : split(text, '/')) {
    auto words = split_ws(part);
    if (words.size() != 2) continue;
    auto v = number(words[0]);
    if (!v) continue;
    if (words[1] == "mW") mw = *v;
    else if (words[1] == "dBm") dbm = *v;
  }
  // A power is a finite, non-negative milliwatt figure. "0.0000 mW / -inf dBm" (no light) is
  // 0 mW; a negative or NaN mW, or a NaN or +inf dBm, is a garbled line: no optical power.
  auto valid_mw = [](double v) { return std::isfinite(v) && v >= 0.0; };
  if (mw && valid_mw(*mw)) return mw;
  if (dbm && !std::isnan(*dbm)) {
    double from_dbm = dbm_to_mw(*dbm);
    if (valid_mw(from_dbm)) return from_dbm;
  }
  return std::nullopt;
}

namespace {

bool all_zero(const ModuleThresholds& t) {
  for (const auto* v : {&t.high_alarm, &t.low_alarm, &t.high_warning, &t.low_warning})
    if (*v && *v != 0.0) return false;
  return true;
}

// A reading of 0 V supply and 0 C with every lane at 0: no monitor answered. With every
// threshold 0 as well it is a diagnostics page read back as zeros (a driver masking an I2C
// error): a gap, never "no light". Without thresholds it is a module without monitors (a
// passive copper cable): no readings. Either way the zeros are dropped.
bool blank_monitors(const ModuleDiagnostics& m) {
  if (!m.vcc_v || *m.vcc_v != 0.0 || m.temperature_c.value_or(0.0) != 0.0) return false;
  for (const auto& l : m.lanes)
    for (const auto* v : {&l.rx_power_mw, &l.tx_power_mw, &l.tx_bias_ma})
      if (*v && *v != 0.0) return false;
  return true;
}

enum class Blank { kNo, kNoMonitors, kUnreadPage };

// Drops blank monitors (see blank_monitors): kNoMonitors (a module without monitors, no
// readings kept), kUnreadPage (a page of zeros: a gap), kNo (judge the readings).
Blank drop_blank_monitors(CounterImport& imp, ModuleDiagnostics& m) {
  if (!blank_monitors(m)) return Blank::kNo;
  const ModuleThresholds* all[] = {&m.temperature_limits_c, &m.vcc_limits_v, &m.rx_power_limits_mw,
                                   &m.tx_power_limits_mw, &m.tx_bias_limits_ma};
  bool thresholds = false, zero = true;
  for (const auto* t : all) {
    thresholds = thresholds || t->any();
    zero = zero && all_zero(*t);
  }
  if (thresholds && zero) {
    imp.gaps.push_back(make_error(ErrorCode::kParse,
                                  m.netdev + ": the module's diagnostics read back as all zeros (supply 0 V, 0 C, "
                                             "0 mW, every threshold 0): the diagnostics page was not read (the "
                                             "driver returned zeros); NOT JUDGED, read the module on another port "
                                             "or NIC",
                                  m.source));
  } else if (thresholds) {
    return Blank::kNo;  // real thresholds next to zero readings: judge them
  } else {
    imp.notes.push_back(m.netdev + ": supply 0 V and 0 C are monitors that did not answer (a passive copper cable "
                                   "has none): no readings, not zero readings");
  }
  m.temperature_c.reset();
  m.vcc_v.reset();
  m.lanes.clear();
  for (auto* t : {&m.temperature_limits_c, &m.vcc_limits_v, &m.rx_power_limits_mw, &m.tx_power_limits_mw,
                  &m.tx_bias_limits_ma})
    *t = ModuleThresholds{};
  return thresholds ? Blank::kUnreadPage : Blank::kNoMonitors;
}

// One module's reading done: kept, or replacing the same netdev's earlier one.
void keep_module(CounterImport& imp, std::map<std::string, size_t>& index, ModuleDiagnostics m) {
  if (auto it = index.find(m.netdev); it != index.end()) {
    imp.optics[it->second] = std::move(m);
    return;
  }
  index[m.netdev] = imp.optics.size();
  PortInfo p;
  p.device = p.netdev = m.netdev;
  merge_port(imp.ports, p);
  imp.optics.push_back(std::move(m));
}

}  // namespace

Result<CounterImport> import_ethtool_m(LineSource& lines, const std::string& source, const std::string& device,
                                       const ReadLimits&) {
  CounterImport imp;
  imp.format = "ethtool-m";
  imp.source = source;
  std::map<std::string, size_t> index;
  auto start = [&](const std::string& title) {
    std::string nd = netdev_in_title(title);
    ModuleDiagnostics m;
    m.netdev = nd.empty() ? (device.empty() ? "module" : device) : nd;
    m.source = source;
    return m;
  };
  ModuleDiagnostics m = start("");
  size_t found = 0;
  bool identified = false;  // an "Identifier" line: a module is there, with or without diagnostics
  std::vector<std::string> without_dom;
  bool blank_seen = false;  // a module whose monitors all read zero (dropped, not "not ethtool -m")
  auto done = [&] {
    Blank blank = found ? drop_blank_monitors(imp, m) : Blank::kNo;
    blank_seen = blank_seen || blank != Blank::kNo;
    if (found && blank == Blank::kNo) keep_module(imp, index, std::move(m));
    else if ((identified || blank == Blank::kNoMonitors) && blank != Blank::kUnreadPage && !index.count(m.netdev))
      without_dom.push_back(m.netdev);
  };
  LineTally other;
  while (auto l = lines.next()) {
    std::string title;
    if (is_section_title(*l, &title)) {
      done();
      m = start(title);
      found = 0;
      identified = false;
      continue;
    }
    if (std::string t = trim(*l); has(t, "ethtool ")) {  // "# ethtool -m swp13": the next module's netdev
      if (std::string nd = netdev_in_title(t); !nd.empty()) {
        if (found || identified) done();
        m = start(t);
        found = 0;
        identified = false;
        continue;
      }
    }
    identified = identified || starts_with(trim(*l), "Identifier");
    size_t n = read_line(*l, m);
    found += n;
    if (!n && imp.optics.empty() && !found && !trim(*l).empty()) other.add(lines.line_no(), *l);
  }
  done();
  for (const auto& nd : without_dom) {  // no readings is "no DOM", never zero readings
    PortInfo p;
    p.device = p.netdev = nd;
    merge_port(imp.ports, p);
    imp.facts["modules_without_diagnostics"].push_back(nd);
    imp.notes.push_back(nd + ": the module has no diagnostics page (no DOM): no optical readings, not zero readings");
  }
  if (lines.error()) return *lines.error();
  if (imp.optics.empty() && !blank_seen)
    return not_this_format("`ethtool -m` output (optical power, bias, temperature or voltage values; or the "
                           "module has no diagnostics)",
                           source, other);
  if (device.empty() && index.count("module"))
    imp.notes.push_back("the input does not name the netdev: the module is called \"module\" "
                        "(give --netdev NAME)");
  return imp;
}

Result<CounterImport> import_ethtool_m(std::string_view text, const std::string& source,
                                       const std::string& device) {
  auto lines = text_line_source(std::string(text));
  return import_ethtool_m(*lines, source, device, ReadLimits{});
}

}  // namespace fabdiag
