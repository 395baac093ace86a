#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "tests/support/module_page_builder.h"
#include "probes/module/module_eeprom.h"
#include "probes/module/module_pages.h"

using namespace fabdiag;
using namespace fabdiag::testing;

TEST_CASE("mw_to_dbm: 1 mW = 0 dBm, 0.1 mW = -10 dBm, no light has no dBm") {
  CHECK(*mw_to_dbm(1.0) == doctest::Approx(0.0));
  CHECK(*mw_to_dbm(0.1) == doctest::Approx(-10.0));
  CHECK(*mw_to_dbm(2.0) == doctest::Approx(3.0103).epsilon(1e-4));
  CHECK_FALSE(mw_to_dbm(0.0).has_value());
  CHECK_FALSE(mw_to_dbm(-1.0).has_value());
}

TEST_CASE("ModuleMemory: the lower page is shared by every page, upper halves are per page") {
  ModuleMemory m;
  m.store(kModuleI2cA0, 0, 3, 0, {0x11, 0x22});  // lower page written "through" page 3
  m.store(kModuleI2cA0, 0, 3, 128, {0xAB, 0xCD});
  CHECK(*m.byte(kModuleI2cA0, 0, 0, 0) == 0x11);
  CHECK(*m.byte(kModuleI2cA0, 1, 0x11, 1) == 0x22);
  CHECK(*m.be16(kModuleI2cA0, 0, 3, 128) == 0xABCD);
  CHECK_FALSE(m.byte(kModuleI2cA0, 0, 0, 128).has_value());  // page 00h upper not read
  CHECK_FALSE(m.byte(kModuleI2cA2, 0, 0, 0).has_value());    // A2h is another device
  CHECK(m.has(kModuleI2cA0, 0, 3, 128, 2));
  CHECK_FALSE(m.has(kModuleI2cA0, 0, 3, 128, 3));
}

TEST_CASE("module_extra_reads follows the identifier and the flat-memory bits") {
  auto sff = sff8636_pages(OpticsSpec{});
  auto r = module_extra_reads(sff);
  REQUIRE(r.size() == 1);
  CHECK(r[0].page == 3);
  CHECK(r[0].offset == 128);
  OpticsSpec flat;
  flat.flat = true;
  CHECK(module_extra_reads(sff8636_pages(flat)).empty());

  auto cmis = module_extra_reads(cmis_pages(OpticsSpec{}, 4));
  REQUIRE(cmis.size() == 3);
  CHECK(cmis[0].page == 0x01);
  CHECK(cmis[1].page == 0x02);
  CHECK(cmis[2].page == 0x11);
  CHECK(module_extra_reads(cmis_pages(flat, 4)).empty());

  auto sfp = module_extra_reads(sff8472_pages(OpticsSpec{}));
  REQUIRE(sfp.size() == 1);
  CHECK(sfp[0].i2c_address == kModuleI2cA2);
  CHECK(module_extra_reads(ModuleMemory{}).empty());
}

TEST_CASE("SFF-8636: temperature, Vcc, 4 lanes and page 03h thresholds") {
  OpticsSpec s;
  s.temperature_c = 41.5;
  s.rx_mw = {0.5, 0.6123, 0.0, 1.0};
  auto d = decode_module_eeprom(sff8636_pages(s));
  REQUIRE(d.ok());
  CHECK(d->standard == ModuleStandard::kSff8636);
  CHECK(d->identifier == 0x11);
  CHECK(d->identifier_name == "QSFP28");
  CHECK(d->vendor == "Mellanox");
  CHECK(d->part_number == "MMA1B00-C100D");
  CHECK(d->serial == "SN0001");
  CHECK_FALSE(d->flat_memory);
  CHECK(d->rx_power_is_average);
  CHECK(*d->temperature_c == doctest::Approx(41.5));
  CHECK(*d->vcc_v == doctest::Approx(3.3));
  REQUIRE(d->lanes.size() == 4);
  CHECK(d->lanes[0].lane == 1);
  CHECK(*d->lanes[0].rx_power_mw == doctest::Approx(0.5));
  CHECK(*d->lanes[1].rx_power_mw == doctest::Approx(0.6123));
  CHECK(*d->lanes[2].rx_power_mw == 0.0);  // no light
  CHECK(*d->lanes[3].tx_power_mw == doctest::Approx(dbm_mw(-1.1)).epsilon(1e-3));
  CHECK(*d->lanes[1].tx_bias_ma == doctest::Approx(7.6));
  CHECK(*d->temperature_limits_c.high_warning == doctest::Approx(75));
  CHECK(*d->temperature_limits_c.high_alarm == doctest::Approx(80));
  CHECK(*d->temperature_limits_c.low_warning == doctest::Approx(-5));
  CHECK(*d->vcc_limits_v.low_alarm == doctest::Approx(3.0));
  CHECK(*d->rx_power_limits_mw.low_warning == doctest::Approx(dbm_mw(-10.3)).epsilon(1e-3));
  CHECK(*d->rx_power_limits_mw.low_alarm == doctest::Approx(dbm_mw(-13.3)).epsilon(1e-3));
  CHECK(*d->tx_bias_limits_ma.high_alarm == doctest::Approx(15));
  CHECK(d->rx_power_limits_mw.where == "page 03h bytes 176-183");
  CHECK(d->notes.empty());

  nlohmann::json j = *d;
  CHECK(j["standard"] == "sff8636");
  CHECK(j["lanes"][2]["rx_power_mw"] == 0.0);
  CHECK(j["lanes"][2]["rx_power_dbm"].is_null());  // no light: no dBm
  CHECK(j["lanes"][0]["rx_power_dbm"].get<double>() == doctest::Approx(-3.0103).epsilon(1e-3));
  CHECK(j["thresholds"]["temperature_c"]["high_warning"].get<double>() == doctest::Approx(75));
}

TEST_CASE("SFF-8636 with flat memory has no thresholds and says so, tx power unsupported is honoured") {
  OpticsSpec s;
  s.flat = true;
  auto m = sff8636_pages(s);
  auto d = decode_module_eeprom(m);
  REQUIRE(d.ok());
  CHECK(d->flat_memory);
  CHECK_FALSE(d->rx_power_limits_mw.any());
  REQUIRE(d->notes.size() == 1);
  CHECK(d->notes[0].find("flat memory") != std::string::npos);

  // Byte 220 bit 2 clear: no tx power monitor, so no tx power values (not "0 mW").
  m.store(kModuleI2cA0, 0, 0, 220, {0x08});
  d = decode_module_eeprom(m);
  REQUIRE(d.ok());
  CHECK_FALSE(d->lanes[0].tx_power_mw.has_value());
  CHECK(d->lanes[0].rx_power_mw.has_value());
}

TEST_CASE("SFF-8636 without page 03h read: values, no thresholds, a note") {
  auto full = sff8636_pages(OpticsSpec{});
  ModuleMemory base;
  for (const auto& p : full.pages())
    if (p.page == 0) {
      std::vector<uint8_t> bytes(p.bytes.begin(), p.bytes.end());
      base.store(kModuleI2cA0, 0, 0, 0, bytes);
    }
  auto d = decode_module_eeprom(base);
  REQUIRE(d.ok());
  CHECK(d->lanes.size() == 4);
  CHECK_FALSE(d->temperature_limits_c.any());
  REQUIRE(d->notes.size() == 1);
  CHECK(d->notes[0] == "page 03h not read: no module thresholds");
}

TEST_CASE("CMIS: module state, lane count from the first application, page 11h lanes, page 02h thresholds") {
  OpticsSpec s;
  s.temperature_c = 55.25;
  s.rx_mw = {0.8, 0.7, 0.9, 0.75, 0.0, 0.0, 0.0, 0.0};
  s.tx_mw = {1.0, 1.1, 1.2, 1.3, 0.0, 0.0, 0.0, 0.0};
  s.bias_ma = {8.0, 8.0, 8.0, 8.0, 0, 0, 0, 0};
  auto d = decode_module_eeprom(cmis_pages(s, 4, /*bias x2*/ 1));
  REQUIRE(d.ok());
  CHECK(d->standard == ModuleStandard::kCmis);
  CHECK(d->identifier_name == "QSFP-DD");
  CHECK(d->module_state == "ModuleReady");
  CHECK(*d->temperature_c == doctest::Approx(55.25));
  REQUIRE(d->lanes.size() == 4);  // 4 media lanes: the 4 unused ones are not reported as dark
  CHECK(*d->lanes[3].rx_power_mw == doctest::Approx(0.75));
  CHECK(*d->lanes[2].tx_power_mw == doctest::Approx(1.2));
  CHECK(*d->lanes[0].tx_bias_ma == doctest::Approx(8.0));  // raw x 2 uA x multiplier 2
  CHECK(*d->rx_power_limits_mw.low_warning == doctest::Approx(dbm_mw(-10.3)).epsilon(1e-3));
  CHECK(*d->tx_power_limits_mw.low_alarm == doctest::Approx(dbm_mw(-10.5)).epsilon(1e-3));
  CHECK(*d->tx_bias_limits_ma.high_alarm == doctest::Approx(15));
  CHECK(d->rx_power_limits_mw.where == "page 02h bytes 192-199");
  CHECK(d->notes.empty());
}

TEST_CASE("CMIS: OSFP with 8 lanes, flat memory module has no lanes and a note") {
  OpticsSpec s;
  s.identifier = 0x19;
  s.rx_mw = {1, 1, 1, 1, 1, 1, 1, 0.5};
  s.tx_mw = s.rx_mw;
  s.bias_ma = {5, 5, 5, 5, 5, 5, 5, 5};
  auto d = decode_module_eeprom(cmis_pages(s, 8));
  REQUIRE(d.ok());
  CHECK(d->identifier_name == "OSFP");
  REQUIRE(d->lanes.size() == 8);
  CHECK(*d->lanes[7].rx_power_mw == doctest::Approx(0.5));

  s.flat = true;
  d = decode_module_eeprom(cmis_pages(s, 8));
  REQUIRE(d.ok());
  CHECK(d->flat_memory);
  CHECK(d->lanes.empty());
  CHECK(d->temperature_c.has_value());
  REQUIRE(d->notes.size() == 1);
  CHECK(d->notes[0].find("flat memory") != std::string::npos);
}

TEST_CASE("SFF-8472: internally calibrated A2h values and thresholds") {
  OpticsSpec s;
  s.rx_mw = {0.3};
  s.tx_mw = {0.6};
  s.bias_ma = {6.0};
  s.temperature_c = 30.0;
  auto d = decode_module_eeprom(sff8472_pages(s));
  REQUIRE(d.ok());
  CHECK(d->standard == ModuleStandard::kSff8472);
  CHECK(d->identifier_name == "SFP/SFP+/SFP28");
  REQUIRE(d->lanes.size() == 1);
  CHECK(*d->lanes[0].rx_power_mw == doctest::Approx(0.3));
  CHECK(*d->lanes[0].tx_power_mw == doctest::Approx(0.6));
  CHECK(*d->lanes[0].tx_bias_ma == doctest::Approx(6.0));
  CHECK(*d->temperature_c == doctest::Approx(30.0));
  CHECK(*d->rx_power_limits_mw.low_warning == doctest::Approx(dbm_mw(-10.3)).epsilon(1e-3));
  CHECK(d->rx_power_limits_mw.where == "A2h bytes 32-39");
}

TEST_CASE("SFF-8472: external calibration applies slopes, offsets and the rx power polynomial") {
  OpticsSpec s;
  s.rx_mw = {0.1};  // raw 1000
  s.tx_mw = {0.5};  // raw 5000
  s.bias_ma = {4.0};
  s.temperature_c = 20.0;
  auto m = sff8472_pages(s, /*external=*/true);
  std::vector<uint8_t> a2(128, 0);
  for (unsigned o = 0; o < 128; ++o) a2[o] = *m.byte(kModuleI2cA2, 0, 0, o);
  // rx power = 2 * raw + 100 (Rx_PWR(1) = 2, Rx_PWR(0) = 100), others: slope 2.0, offset 0.
  put_float(a2, 56, 0.0f);   // Rx_PWR(4)
  put_float(a2, 60, 0.0f);   // Rx_PWR(3)
  put_float(a2, 64, 0.0f);   // Rx_PWR(2)
  put_float(a2, 68, 2.0f);   // Rx_PWR(1)
  put_float(a2, 72, 100.0f); // Rx_PWR(0)
  put16(a2, 76, 512);        // Tx_I slope 2.0 (8.8 fixed point)
  put16(a2, 78, 0);
  put16(a2, 80, 256);        // Tx_PWR slope 1.0
  put16(a2, 82, 10);         // Tx_PWR offset +10 LSB
  put16(a2, 84, 256);        // T slope 1.0
  put16(a2, 86, static_cast<uint16_t>(-256));  // T offset -1 C
  put16(a2, 88, 256);        // V slope 1.0
  put16(a2, 90, 0);
  m.store(kModuleI2cA2, 0, 0, 0, a2);
  auto d = decode_module_eeprom(m);
  REQUIRE(d.ok());
  REQUIRE(d->lanes.size() == 1);
  CHECK(*d->lanes[0].rx_power_mw == doctest::Approx((2 * 1000 + 100) * 1e-4));
  CHECK(*d->lanes[0].tx_power_mw == doctest::Approx((5000 + 10) * 1e-4));
  CHECK(*d->lanes[0].tx_bias_ma == doctest::Approx(8.0));
  CHECK(*d->temperature_c == doctest::Approx(19.0));
  CHECK(*d->vcc_v == doctest::Approx(3.3));
  REQUIRE_FALSE(d->notes.empty());
  CHECK(d->notes[0].find("externally calibrated") != std::string::npos);
}

TEST_CASE("SFF-8472 without digital diagnostics: identity only, a note") {
  auto m = sff8472_pages(OpticsSpec{});
  m.store(kModuleI2cA0, 0, 0, 92, {0x00});
  auto d = decode_module_eeprom(m);
  REQUIRE(d.ok());
  CHECK(d->lanes.empty());
  CHECK_FALSE(d->temperature_c.has_value());
  CHECK(d->vendor == "Mellanox");
  REQUIRE(d->notes.size() == 1);
  CHECK(d->notes[0].find("no digital diagnostics") != std::string::npos);
}

TEST_CASE("unknown identifier: decoded as unknown with a note, no lower page: kNotFound") {
  ModuleMemory m;
  m.store(kModuleI2cA0, 0, 0, 0, {0x1A});
  auto d = decode_module_eeprom(m);
  REQUIRE(d.ok());
  CHECK(d->standard == ModuleStandard::kUnknown);
  CHECK(d->identifier_name == "0x1A");
  CHECK(d->lanes.empty());
  CHECK(d->notes.size() == 1);
  auto none = decode_module_eeprom(ModuleMemory{});
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().code == ErrorCode::kNotFound);
}

TEST_CASE("module pages text: round trip, comments, and errors naming the line") {
  auto m = cmis_pages(OpticsSpec{}, 4);
  std::string text = format_module_pages_text(m);
  CHECK(text.find("i2c 0x50 bank 0 page 0x11 offset 128") != std::string::npos);
  auto back = parse_module_pages_text(text, "x");
  REQUIRE(back.ok());
  CHECK(format_module_pages_text(*back) == text);
  auto d1 = decode_module_eeprom(m), d2 = decode_module_eeprom(*back);
  REQUIRE(d1.ok());
  REQUIRE(d2.ok());
  CHECK(*d2->lanes[1].rx_power_mw == *d1->lanes[1].rx_power_mw);

  auto ok = parse_module_pages_text("# c\ni2c 0x51 bank 0 page 0 offset 96\n00 1e  # comment\n", "f");
  REQUIRE(ok.ok());
  CHECK(*ok->byte(kModuleI2cA2, 0, 0, 97) == 0x1E);

  auto e1 = parse_module_pages_text("00 11\n", "fixture.txt");
  REQUIRE_FALSE(e1.ok());
  CHECK(e1.error().code == ErrorCode::kParse);
  CHECK(e1.error().source == "fixture.txt");
  CHECK(e1.error().message.find("line 1") != std::string::npos);
  auto e2 = parse_module_pages_text("i2c 0x50 bank 0 page 0 offset 0\n00 zz\n", "f");
  REQUIRE_FALSE(e2.ok());
  CHECK(e2.error().message.find("line 2") != std::string::npos);
  CHECK_FALSE(parse_module_pages_text("i2c 0x50 bank 0 page 0\n", "f").ok());
  CHECK_FALSE(parse_module_pages_text("i2c 0x50 bank 0 page 0 offset 255\n00 00\n", "f").ok());
}

TEST_CASE("flat ioctl images become pages: SFF-8636 640 bytes, SFF-8472 512 bytes") {
  auto paged = sff8636_pages(OpticsSpec{});
  std::vector<uint8_t> image(640, 0);
  for (unsigned o = 0; o < 256; ++o) image[o] = paged.byte(kModuleI2cA0, 0, 0, o).value_or(0);
  for (unsigned o = 128; o < 256; ++o) image[512 + o - 128] = paged.byte(kModuleI2cA0, 0, 3, o).value_or(0);
  auto m = module_memory_from_flat(3, image);
  auto d = decode_module_eeprom(m);
  REQUIRE(d.ok());
  CHECK(*d->rx_power_limits_mw.low_warning == doctest::Approx(dbm_mw(-10.3)).epsilon(1e-3));

  auto sfp = sff8472_pages(OpticsSpec{});
  std::vector<uint8_t> img2(512, 0);
  for (unsigned o = 0; o < 256; ++o) img2[o] = sfp.byte(kModuleI2cA0, 0, 0, o).value_or(0);
  for (unsigned o = 0; o < 128; ++o) img2[256 + o] = sfp.byte(kModuleI2cA2, 0, 0, o).value_or(0);
  auto d2 = decode_module_eeprom(module_memory_from_flat(2, img2));
  REQUIRE(d2.ok());
  REQUIRE(d2->lanes.size() == 1);
  CHECK(*d2->lanes[0].rx_power_mw == doctest::Approx(dbm_mw(-2)).epsilon(1e-3));
}
