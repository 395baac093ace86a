#include "probes/module/module_eeprom.h"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "core/text.h"

namespace fabdiag {
namespace {

constexpr uint8_t kA0 = kModuleI2cA0;
constexpr uint8_t kA2 = kModuleI2cA2;
// Divisors from raw LSBs to the unit (a division by an exact integer keeps 832 -> 0.0832 exact
// to the printed digit, where a multiplication by 1e-4 would give 0.08320000000000001).
constexpr double kPowerLsbPerMw = 10000;  // 0.1 uW
constexpr double kBiasLsbPerMa = 500;     // 2 uA
constexpr double kVccLsbPerV = 10000;     // 100 uV

// Reads of one address/bank/page; every value is optional because pages may be missing.
struct View {
  const ModuleMemory& mem;
  uint8_t i2c;
  uint8_t bank;
  uint8_t page;
  std::optional<uint16_t> u16(unsigned off) const { return mem.be16(i2c, bank, page, off); }
  std::optional<double> s16(unsigned off) const {
    auto v = u16(off);
    if (!v) return std::nullopt;
    return static_cast<double>(static_cast<int16_t>(*v));
  }
  std::optional<uint8_t> u8(unsigned off) const { return mem.byte(i2c, bank, page, off); }
  std::string text(unsigned off, unsigned len) const {
    std::string s;
    for (unsigned i = 0; i < len; ++i) {
      auto b = u8(off + i);
      if (!b) return {};
      s.push_back((*b >= 0x20 && *b < 0x7F) ? static_cast<char>(*b) : ' ');
    }
    return trim(s);
  }
};

std::optional<double> scaled(std::optional<uint16_t> raw, double lsb_per_unit, unsigned mult = 1) {
  if (!raw) return std::nullopt;
  return static_cast<double>(*raw) * mult / lsb_per_unit;
}
std::optional<double> temp_c(std::optional<double> raw) {
  if (!raw) return std::nullopt;
  return *raw / 256.0;
}

// Four consecutive thresholds (high alarm, low alarm, high warning, low warning), 2 bytes each.
template <typename F>
ModuleThresholds thresholds(F value_at, unsigned first, std::string where) {
  ModuleThresholds t;
  t.high_alarm = value_at(first);
  t.low_alarm = value_at(first + 2);
  t.high_warning = value_at(first + 4);
  t.low_warning = value_at(first + 6);
  t.where = std::move(where);
  return t;
}

std::string hex2(unsigned v) {
  char b[8];
  std::snprintf(b, sizeof b, "%02Xh", v);
  return b;
}

void decode_sff8636(const ModuleMemory& mem, ModuleDiagnostics& d) {
  View lo{mem, kA0, 0, 0}, p3{mem, kA0, 0, 3};
  d.flat_memory = lo.u8(2) && (*lo.u8(2) & 0x04);
  d.temperature_c = temp_c(lo.s16(22));
  d.vcc_v = scaled(lo.u16(26), kVccLsbPerV);
  d.vendor = lo.text(148, 16);
  d.part_number = lo.text(168, 16);
  d.serial = lo.text(196, 16);
  auto diag_type = lo.u8(220);  // upper page 00h: diagnostic monitoring type
  bool tx_power_supported = true;
  if (diag_type) {
    d.rx_power_is_average = (*diag_type & 0x08) != 0;
    tx_power_supported = (*diag_type & 0x04) != 0;
  } else {
    d.notes.push_back("upper page 00h not read: rx power type (OMA/average) and tx power support unknown");
  }
  for (int i = 0; i < 4; ++i) {
    ModuleLane l;
    l.lane = i + 1;
    l.rx_power_mw = scaled(lo.u16(34 + 2 * i), kPowerLsbPerMw);
    l.tx_bias_ma = scaled(lo.u16(42 + 2 * i), kBiasLsbPerMa);
    if (tx_power_supported) l.tx_power_mw = scaled(lo.u16(50 + 2 * i), kPowerLsbPerMw);
    d.lanes.push_back(l);
  }
  if (!tx_power_supported) d.notes.push_back("module does not monitor tx power (page 00h byte 220 bit 2)");
  if (d.flat_memory) {
    d.notes.push_back("flat memory (byte 2 bit 2): no page 03h, so no module thresholds");
    return;
  }
  if (!mem.has(kA0, 0, 3, 128, 72)) {
    d.notes.push_back("page 03h not read: no module thresholds");
    return;
  }
  auto t = [&](unsigned o) { return temp_c(p3.s16(o)); };
  auto v = [&](unsigned o) { return scaled(p3.u16(o), kVccLsbPerV); };
  auto p = [&](unsigned o) { return scaled(p3.u16(o), kPowerLsbPerMw); };
  auto b = [&](unsigned o) { return scaled(p3.u16(o), kBiasLsbPerMa); };
  d.temperature_limits_c = thresholds(t, 128, "page 03h bytes 128-135");
  d.vcc_limits_v = thresholds(v, 144, "page 03h bytes 144-151");
  d.rx_power_limits_mw = thresholds(p, 176, "page 03h bytes 176-183");
  d.tx_bias_limits_ma = thresholds(b, 184, "page 03h bytes 184-191");
  if (tx_power_supported) d.tx_power_limits_mw = thresholds(p, 192, "page 03h bytes 192-199");
}

const char* cmis_state_name(unsigned s) {
  switch (s) {
    case 1: return "ModuleLowPwr";
    case 2: return "ModulePwrUp";
    case 3: return "ModuleReady";
    case 4: return "ModulePwrDn";
    case 5: return "ModuleFault";
    default: return "reserved";
  }
}

void decode_cmis(const ModuleMemory& mem, ModuleDiagnostics& d) {
  View lo{mem, kA0, 0, 0}, p1{mem, kA0, 0, 0x01}, p2{mem, kA0, 0, 0x02}, p11{mem, kA0, 0, 0x11};
  d.flat_memory = lo.u8(2) && (*lo.u8(2) & 0x80);
  if (auto st = lo.u8(3)) d.module_state = cmis_state_name((*st >> 1) & 0x07);
  d.temperature_c = temp_c(lo.s16(14));
  d.vcc_v = scaled(lo.u16(16), kVccLsbPerV);
  d.vendor = lo.text(129, 16);
  d.part_number = lo.text(148, 16);
  d.serial = lo.text(166, 16);
  if (d.flat_memory) {
    d.notes.push_back("flat memory (byte 2 bit 7): no pages 01h/02h/11h, so no lane monitors or thresholds");
    return;
  }
  // Media lanes of the first application descriptor (bytes 86-89; byte 88 bits 3:0); 8 when
  // unknown. Without it an 8-lane bank would report the unused lanes of a 4-lane module as dark.
  int lanes = 8;
  auto app_host = lo.u8(86), app_counts = lo.u8(88);
  if (app_host && *app_host != 0xFF && app_counts && (*app_counts & 0x0F) >= 1 &&
      (*app_counts & 0x0F) <= 8)
    lanes = *app_counts & 0x0F;
  bool bias_mon = true, tx_mon = true, rx_mon = true;
  unsigned bias_mult = 1;
  if (auto adv = p1.u8(160)) {
    bias_mon = *adv & 0x01;
    tx_mon = *adv & 0x02;
    rx_mon = *adv & 0x04;
    bias_mult = 1u << ((*adv >> 3) & 0x03);
  } else {
    d.notes.push_back("page 01h not read: monitor support assumed");
  }
  if (!mem.has(kA0, 0, 0x11, 154, 48)) {
    d.notes.push_back("page 11h not read: no lane monitors");
  } else {
    for (int i = 0; i < lanes; ++i) {
      ModuleLane l;
      l.lane = i + 1;
      if (tx_mon) l.tx_power_mw = scaled(p11.u16(154 + 2 * i), kPowerLsbPerMw);
      if (bias_mon) l.tx_bias_ma = scaled(p11.u16(170 + 2 * i), kBiasLsbPerMa, bias_mult);
      if (rx_mon) l.rx_power_mw = scaled(p11.u16(186 + 2 * i), kPowerLsbPerMw);
      d.lanes.push_back(l);
    }
  }
  if (!mem.has(kA0, 0, 0x02, 128, 72)) {
    d.notes.push_back("page 02h not read: no module thresholds");
    return;
  }
  auto t = [&](unsigned o) { return temp_c(p2.s16(o)); };
  auto v = [&](unsigned o) { return scaled(p2.u16(o), kVccLsbPerV); };
  auto p = [&](unsigned o) { return scaled(p2.u16(o), kPowerLsbPerMw); };
  auto b = [&](unsigned o) { return scaled(p2.u16(o), kBiasLsbPerMa, bias_mult); };
  d.temperature_limits_c = thresholds(t, 128, "page 02h bytes 128-135");
  d.vcc_limits_v = thresholds(v, 136, "page 02h bytes 136-143");
  if (tx_mon) d.tx_power_limits_mw = thresholds(p, 176, "page 02h bytes 176-183");
  if (bias_mon) d.tx_bias_limits_ma = thresholds(b, 184, "page 02h bytes 184-191");
  if (rx_mon) d.rx_power_limits_mw = thresholds(p, 192, "page 02h bytes 192-199");
}

// SFF-8472 external calibration constants (A2h bytes 56-91).
struct Calibration {
  double rx_pwr[5] = {0, 1, 0, 0, 0};  // coefficient of raw^i
  double bias_slope = 1, bias_offset = 0, tx_slope = 1, tx_offset = 0;
  double t_slope = 1, t_offset = 0, v_slope = 1, v_offset = 0;
};

std::optional<double> be_float(const View& v, unsigned off) {
  uint32_t bits = 0;
  for (unsigned i = 0; i < 4; ++i) {
    auto b = v.u8(off + i);
    if (!b) return std::nullopt;
    bits = (bits << 8) | *b;
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return static_cast<double>(f);
}

std::optional<Calibration> read_calibration(const View& a2) {
  Calibration c;
  // Rx_PWR(4) at 56 down to Rx_PWR(0) at 72.
  for (int i = 0; i < 5; ++i) {
    auto f = be_float(a2, 56 + 4 * static_cast<unsigned>(i));
    if (!f) return std::nullopt;
    c.rx_pwr[4 - i] = *f;
  }
  auto slope = [&](unsigned o) -> std::optional<double> {
    auto v = a2.u16(o);
    if (!v) return std::nullopt;
    return *v / 256.0;  // unsigned fixed point 8.8
  };
  auto offset = [&](unsigned o) -> std::optional<double> { return a2.s16(o); };
  auto bs = slope(76), bo = offset(78), ts = slope(80), to = offset(82), tts = slope(84),
       tto = offset(86), vs = slope(88), vo = offset(90);
  if (!bs || !bo || !ts || !to || !tts || !tto || !vs || !vo) return std::nullopt;
  c.bias_slope = *bs, c.bias_offset = *bo, c.tx_slope = *ts, c.tx_offset = *to;
  c.t_slope = *tts, c.t_offset = *tto, c.v_slope = *vs, c.v_offset = *vo;
  return c;
}

void decode_sff8472(const ModuleMemory& mem, ModuleDiagnostics& d) {
  View a0{mem, kA0, 0, 0}, a2{mem, kA2, 0, 0};
  d.vendor = a0.text(20, 16);
  d.part_number = a0.text(40, 16);
  d.serial = a0.text(68, 16);
  auto diag = a0.u8(92);
  if (!diag || !(*diag & 0x40)) {
    d.notes.push_back("module implements no digital diagnostics (A0h byte 92 bit 6)");
    return;
  }
  d.rx_power_is_average = (*diag & 0x08) != 0;
  if (!mem.has(kA2, 0, 0, 0, 40) || !mem.has(kA2, 0, 0, 96, 10)) {
    d.notes.push_back("A2h (I2C 0x51) not read: no diagnostics");
    return;
  }
  Calibration cal;
  if (*diag & 0x10) {  // externally calibrated
    auto c = read_calibration(a2);
    if (!c) {
      d.notes.push_back("externally calibrated module without readable calibration (A2h 56-91)");
      return;
    }
    cal = *c;
    d.notes.push_back("externally calibrated (A2h byte 92 bit 4): calibration constants applied");
  }
  // Raw readings and thresholds share units, so one converter per quantity serves both.
  auto temp = [&](unsigned o) -> std::optional<double> {
    auto r = a2.s16(o);
    if (!r) return std::nullopt;
    return (cal.t_slope * *r + cal.t_offset) / 256.0;
  };
  auto vcc = [&](unsigned o) -> std::optional<double> {
    auto r = a2.u16(o);
    if (!r) return std::nullopt;
    return (cal.v_slope * *r + cal.v_offset) / kVccLsbPerV;
  };
  auto bias = [&](unsigned o) -> std::optional<double> {
    auto r = a2.u16(o);
    if (!r) return std::nullopt;
    return (cal.bias_slope * *r + cal.bias_offset) / kBiasLsbPerMa;
  };
  auto txp = [&](unsigned o) -> std::optional<double> {
    auto r = a2.u16(o);
    if (!r) return std::nullopt;
    return std::max(0.0, cal.tx_slope * *r + cal.tx_offset) / kPowerLsbPerMw;
  };
  auto rxp = [&](unsigned o) -> std::optional<double> {
    auto r = a2.u16(o);
    if (!r) return std::nullopt;
    double x = *r, sum = 0, pw = 1;
    for (double coef : cal.rx_pwr) {
      sum += coef * pw;
      pw *= x;
    }
    return std::max(0.0, sum) / kPowerLsbPerMw;
  };
  d.temperature_c = temp(96);
  d.vcc_v = vcc(98);
  ModuleLane l;
  l.lane = 1;
  l.tx_bias_ma = bias(100);
  l.tx_power_mw = txp(102);
  l.rx_power_mw = rxp(104);
  d.lanes.push_back(l);
  d.temperature_limits_c = thresholds(temp, 0, "A2h bytes 0-7");
  d.vcc_limits_v = thresholds(vcc, 8, "A2h bytes 8-15");
  d.tx_bias_limits_ma = thresholds(bias, 16, "A2h bytes 16-23");
  d.tx_power_limits_mw = thresholds(txp, 24, "A2h bytes 24-31");
  d.rx_power_limits_mw = thresholds(rxp, 32, "A2h bytes 32-39");
}

}  // namespace

std::string module_identifier_name(uint8_t id) {
  switch (id) {
    case 0x03: return "SFP/SFP+/SFP28";
    case 0x0C: return "QSFP";
    case 0x0D: return "QSFP+";
    case 0x11: return "QSFP28";
    case 0x18: return "QSFP-DD";
    case 0x19: return "OSFP";
    case 0x1B: return "DSFP";
    case 0x1E: return "QSFP+ (CMIS)";
    case 0x1F: return "SFP-DD";
    case 0x20: return "SFP+ (CMIS)";
    default: return "0x" + hex2(id).substr(0, 2);
  }
}

Result<ModuleDiagnostics> decode_module_eeprom(const ModuleMemory& mem) {
  auto id = mem.byte(kA0, 0, 0, 0);
  if (!id)
    return make_error(ErrorCode::kNotFound, "module EEPROM lower page not read (no module?)");
  ModuleDiagnostics d;
  d.identifier = *id;
  d.identifier_name = module_identifier_name(*id);
  switch (*id) {
    case 0x0C:
    case 0x0D:
    case 0x11:
      d.standard = ModuleStandard::kSff8636;
      decode_sff8636(mem, d);
      break;
    case 0x18:
    case 0x19:
    case 0x1B:
    case 0x1E:
    case 0x1F:
    case 0x20:
      d.standard = ModuleStandard::kCmis;
      decode_cmis(mem, d);
      break;
    case 0x03:
      d.standard = ModuleStandard::kSff8472;
      decode_sff8472(mem, d);
      break;
    default:
      d.notes.push_back("identifier " + d.identifier_name +
                        " is not a module type decoded here (SFF-8636, CMIS, SFF-8472)");
      break;
  }
  return d;
}

}  // namespace fabdiag
