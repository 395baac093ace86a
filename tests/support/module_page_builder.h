// Test helper: hand-built module EEPROM pages (SFF-8636, CMIS, SFF-8472) with chosen temperature,
// supply voltage, per-lane power/bias and thresholds, at the offsets of
// docs/domain.md#module-eeprom-pages-and-units. Values are encoded the way a module stores them
// (big-endian u16).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "probes/module/module_pages.h"

namespace fabdiag::testing {

inline void put16(std::vector<uint8_t>& b, size_t off, uint16_t v) {
  b[off] = static_cast<uint8_t>(v >> 8);
  b[off + 1] = static_cast<uint8_t>(v & 0xFF);
}
inline uint16_t mw_raw(double mw) { return static_cast<uint16_t>(std::lround(mw * 10000.0)); }
inline uint16_t temp_raw(double c) {
  return static_cast<uint16_t>(static_cast<int16_t>(std::lround(c * 256.0)));
}
inline uint16_t vcc_raw(double v) { return static_cast<uint16_t>(std::lround(v * 10000.0)); }
inline uint16_t bias_raw(double ma, unsigned mult = 1) {
  return static_cast<uint16_t>(std::lround(ma / (0.002 * mult)));
}
inline void put_text(std::vector<uint8_t>& b, size_t off, size_t len, const std::string& s) {
  for (size_t i = 0; i < len; ++i) b[off + i] = i < s.size() ? static_cast<uint8_t>(s[i]) : ' ';
}
/// 10^(dBm/10) mW.
inline double dbm_mw(double dbm) { return std::pow(10.0, dbm / 10.0); }

/// What a hand-built module reports.
struct OpticsSpec {
  uint8_t identifier = 0x11;  // QSFP28
  double temperature_c = 35.0;
  double vcc_v = 3.3;
  std::vector<double> rx_mw = {dbm_mw(-2), dbm_mw(-2.5), dbm_mw(-2.2), dbm_mw(-2.8)};
  std::vector<double> tx_mw = {dbm_mw(-1), dbm_mw(-1), dbm_mw(-1.2), dbm_mw(-1.1)};
  std::vector<double> bias_ma = {7.5, 7.6, 7.4, 7.5};
  bool flat = false;          // no threshold page (and for CMIS no lane page)
  // Thresholds (high alarm, low alarm, high warning, low warning).
  double temp_ha = 80, temp_la = -10, temp_hw = 75, temp_lw = -5;
  double vcc_ha = 3.6, vcc_la = 3.0, vcc_hw = 3.5, vcc_lw = 3.1;
  double rx_ha = dbm_mw(5.4), rx_la = dbm_mw(-13.3), rx_hw = dbm_mw(2.4), rx_lw = dbm_mw(-10.3);
  double tx_ha = dbm_mw(5), tx_la = dbm_mw(-10.5), tx_hw = dbm_mw(3), tx_lw = dbm_mw(-8.5);
  double bias_ha = 15, bias_la = 2, bias_hw = 13, bias_lw = 3;
  std::string vendor = "Mellanox";
  std::string part = "MMA1B00-C100D";
};

inline void put_limits(std::vector<uint8_t>& b, size_t off, uint16_t ha, uint16_t la, uint16_t hw,
                       uint16_t lw) {
  put16(b, off, ha);
  put16(b, off + 2, la);
  put16(b, off + 4, hw);
  put16(b, off + 6, lw);
}

/// SFF-8636 (QSFP28): lower page + upper page 00h, and page 03h unless flat.
inline ModuleMemory sff8636_pages(const OpticsSpec& s) {
  std::vector<uint8_t> p0(256, 0);
  p0[0] = s.identifier;
  p0[2] = s.flat ? 0x04 : 0x00;
  put16(p0, 22, temp_raw(s.temperature_c));
  put16(p0, 26, vcc_raw(s.vcc_v));
  for (size_t i = 0; i < 4; ++i) {
    put16(p0, 34 + 2 * i, mw_raw(s.rx_mw.at(i)));
    put16(p0, 42 + 2 * i, bias_raw(s.bias_ma.at(i)));
    put16(p0, 50 + 2 * i, mw_raw(s.tx_mw.at(i)));
  }
  p0[128] = s.identifier;
  put_text(p0, 148, 16, s.vendor);
  put_text(p0, 168, 16, s.part);
  put_text(p0, 196, 16, "SN0001");
  p0[220] = 0x0C;  // rx power = average, tx power monitored
  ModuleMemory m;
  m.store(kModuleI2cA0, 0, 0, 0, p0);
  if (!s.flat) {
    std::vector<uint8_t> p3(128, 0);  // offsets 128..255
    auto at = [](size_t off) { return off - 128; };
    put_limits(p3, at(128), temp_raw(s.temp_ha), temp_raw(s.temp_la), temp_raw(s.temp_hw), temp_raw(s.temp_lw));
    put_limits(p3, at(144), vcc_raw(s.vcc_ha), vcc_raw(s.vcc_la), vcc_raw(s.vcc_hw), vcc_raw(s.vcc_lw));
    put_limits(p3, at(176), mw_raw(s.rx_ha), mw_raw(s.rx_la), mw_raw(s.rx_hw), mw_raw(s.rx_lw));
    put_limits(p3, at(184), bias_raw(s.bias_ha), bias_raw(s.bias_la), bias_raw(s.bias_hw), bias_raw(s.bias_lw));
    put_limits(p3, at(192), mw_raw(s.tx_ha), mw_raw(s.tx_la), mw_raw(s.tx_hw), mw_raw(s.tx_lw));
    m.store(kModuleI2cA0, 0, 3, 128, p3);
  }
  return m;
}

/// CMIS (QSFP-DD 0x18 by default use identifier 0x18): lower page with the first application's
/// media lane count, upper 00h, and pages 01h/02h/11h unless flat. `bias_mult_code` = page 01h
/// byte 160 bits 4:3.
inline ModuleMemory cmis_pages(OpticsSpec s, int media_lanes, unsigned bias_mult_code = 0) {
  if (s.identifier == 0x11) s.identifier = 0x18;
  const unsigned mult = 1u << bias_mult_code;
  std::vector<uint8_t> p0(256, 0);
  p0[0] = s.identifier;
  p0[1] = 0x50;  // CMIS 5.0
  p0[2] = s.flat ? 0x80 : 0x00;
  p0[3] = 3 << 1;  // ModuleReady
  put16(p0, 14, temp_raw(s.temperature_c));
  put16(p0, 16, vcc_raw(s.vcc_v));
  p0[86] = 0x11;  // host interface id (any but 0xFF)
  p0[87] = 0x09;
  p0[88] = static_cast<uint8_t>((media_lanes << 4) | media_lanes);
  p0[128] = s.identifier;
  put_text(p0, 129, 16, s.vendor);
  put_text(p0, 148, 16, s.part);
  put_text(p0, 166, 16, "SN0002");
  ModuleMemory m;
  m.store(kModuleI2cA0, 0, 0, 0, p0);
  if (s.flat) return m;
  std::vector<uint8_t> p1(128, 0), p2(128, 0), p11(128, 0);
  auto at = [](size_t off) { return off - 128; };
  p1[at(160)] = static_cast<uint8_t>(0x07 | (bias_mult_code << 3));
  put_limits(p2, at(128), temp_raw(s.temp_ha), temp_raw(s.temp_la), temp_raw(s.temp_hw), temp_raw(s.temp_lw));
  put_limits(p2, at(136), vcc_raw(s.vcc_ha), vcc_raw(s.vcc_la), vcc_raw(s.vcc_hw), vcc_raw(s.vcc_lw));
  put_limits(p2, at(176), mw_raw(s.tx_ha), mw_raw(s.tx_la), mw_raw(s.tx_hw), mw_raw(s.tx_lw));
  put_limits(p2, at(184), bias_raw(s.bias_ha, mult), bias_raw(s.bias_la, mult), bias_raw(s.bias_hw, mult),
             bias_raw(s.bias_lw, mult));
  put_limits(p2, at(192), mw_raw(s.rx_ha), mw_raw(s.rx_la), mw_raw(s.rx_hw), mw_raw(s.rx_lw));
  for (size_t i = 0; i < s.rx_mw.size() && i < 8; ++i) {
    put16(p11, at(154 + 2 * i), mw_raw(s.tx_mw.at(i)));
    put16(p11, at(170 + 2 * i), bias_raw(s.bias_ma.at(i), mult));
    put16(p11, at(186 + 2 * i), mw_raw(s.rx_mw.at(i)));
  }
  m.store(kModuleI2cA0, 0, 0x01, 128, p1);
  m.store(kModuleI2cA0, 0, 0x02, 128, p2);
  m.store(kModuleI2cA0, 0, 0x11, 128, p11);
  return m;
}

/// SFF-8472 SFP: A0h (256 bytes, DDM implemented, internally calibrated unless `external`) and
/// A2h (128 bytes: thresholds, calibration constants, monitors of lane 1).
inline ModuleMemory sff8472_pages(const OpticsSpec& s, bool external = false) {
  std::vector<uint8_t> a0(256, 0), a2(128, 0);
  a0[0] = 0x03;
  put_text(a0, 20, 16, s.vendor);
  put_text(a0, 40, 16, s.part);
  put_text(a0, 68, 16, "SN0003");
  a0[92] = static_cast<uint8_t>(0x40 | 0x08 | (external ? 0x10 : 0x20));
  put_limits(a2, 0, temp_raw(s.temp_ha), temp_raw(s.temp_la), temp_raw(s.temp_hw), temp_raw(s.temp_lw));
  put_limits(a2, 8, vcc_raw(s.vcc_ha), vcc_raw(s.vcc_la), vcc_raw(s.vcc_hw), vcc_raw(s.vcc_lw));
  put_limits(a2, 16, bias_raw(s.bias_ha), bias_raw(s.bias_la), bias_raw(s.bias_hw), bias_raw(s.bias_lw));
  put_limits(a2, 24, mw_raw(s.tx_ha), mw_raw(s.tx_la), mw_raw(s.tx_hw), mw_raw(s.tx_lw));
  put_limits(a2, 32, mw_raw(s.rx_ha), mw_raw(s.rx_la), mw_raw(s.rx_hw), mw_raw(s.rx_lw));
  put16(a2, 96, temp_raw(s.temperature_c));
  put16(a2, 98, vcc_raw(s.vcc_v));
  put16(a2, 100, bias_raw(s.bias_ma.at(0)));
  put16(a2, 102, mw_raw(s.tx_mw.at(0)));
  put16(a2, 104, mw_raw(s.rx_mw.at(0)));
  ModuleMemory m;
  m.store(kModuleI2cA0, 0, 0, 0, a0);
  m.store(kModuleI2cA2, 0, 0, 0, a2);
  return m;
}

/// Writes a big-endian IEEE float at `off` (SFF-8472 calibration constants).
inline void put_float(std::vector<uint8_t>& b, size_t off, float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  for (int i = 0; i < 4; ++i) b[off + static_cast<size_t>(i)] = static_cast<uint8_t>(bits >> (24 - 8 * i));
}

}  // namespace fabdiag::testing
