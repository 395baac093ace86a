// Plug-in module (transceiver) memory as pages: what ethtool netlink MODULE_EEPROM_GET (or the
// legacy ETHTOOL_GMODULEEEPROM ioctl) returns, which pages the decoder needs, and the fixture
// text format that stores them. Pure data; decoding is probes/module/module_eeprom.h.
//
// Addressing (docs/domain.md#module-eeprom-over-netlink,
// linux:Documentation/networking/ethtool-netlink.rst): I2C address 0x50 (A0h) or 0x51 (A2h,
// SFF-8472 diagnostics), bank, page, offset 0-255. Offsets 0-127 are the lower page, the same for
// every page and bank (stored once, as page 0 bank 0); offsets 128-255 are the upper half of the
// selected page.
#pragma once

#include <array>
#include <bitset>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace fabdiag {

/// I2C address of the module's main memory (A0h).
constexpr uint8_t kModuleI2cA0 = 0x50;
/// I2C address of SFF-8472 diagnostics (A2h).
constexpr uint8_t kModuleI2cA2 = 0x51;

/// One read of module memory: at most 128 bytes, never crossing offset 128 (the kernel's rule).
struct EepromRead {
  uint8_t i2c_address = kModuleI2cA0;
  uint8_t bank = 0;
  uint8_t page = 0;
  uint8_t offset = 0;   ///< 0-255.
  uint8_t length = 128; ///< 1-128.
};

/// The bytes of a module read so far, by (I2C address, bank, page, offset).
class ModuleMemory {
 public:
  /// Stores `bytes` read at `offset` of (i2c_address, bank, page). Bytes below offset 128 of
  /// address 0x50 go to the shared lower page whatever the page and bank; bytes past offset
  /// 255 are dropped.
  void store(uint8_t i2c_address, uint8_t bank, uint8_t page, unsigned offset,
             const std::vector<uint8_t>& bytes);
  /// One byte, or nullopt when it was not read.
  std::optional<uint8_t> byte(uint8_t i2c_address, uint8_t bank, uint8_t page, unsigned offset) const;
  /// Big-endian u16 at offset (SFF/CMIS monitors and thresholds); nullopt unless both bytes were read.
  std::optional<uint16_t> be16(uint8_t i2c_address, uint8_t bank, uint8_t page, unsigned offset) const;
  /// True when every byte of [offset, offset + length) was read.
  bool has(uint8_t i2c_address, uint8_t bank, uint8_t page, unsigned offset, unsigned length) const;
  /// True when nothing was stored.
  bool empty() const { return pages_.empty(); }

  /// One stored page: which bytes are present.
  struct Page {
    uint8_t i2c_address = kModuleI2cA0;
    uint8_t bank = 0;
    uint8_t page = 0;
    std::array<uint8_t, 256> bytes{};
    std::bitset<256> present;
  };
  /// Every stored page, ordered by (I2C address, bank, page).
  std::vector<Page> pages() const;

 private:
  static uint32_t key(uint8_t i2c_address, uint8_t bank, uint8_t page, unsigned offset);
  std::map<uint32_t, Page> pages_;
};

/// The reads every module needs first: lower page and upper page 00h at 0x50 (identifier,
/// flat-memory bit, vendor, monitor support bits).
std::vector<EepromRead> module_base_reads();

/// The further reads the decoder needs, decided from the base pages (byte 0 identifier, SFF-8024):
/// SFF-8636 (0x0C/0x0D/0x11): upper page 03h (thresholds) unless byte 2 bit 2 (flat memory);
/// CMIS (0x18/0x19/0x1B/0x1E/0x1F/0x20): upper pages 01h (monitor support), 02h (thresholds)
/// and 11h bank 0 (lane monitors) unless byte 2 bit 7 (flat memory);
/// SFF-8472 (0x03): 0x51 offsets 0-127 (A2h thresholds, calibration, monitors) when A0h byte 92
/// bit 6 (digital diagnostics implemented). Nothing for other identifiers or without byte 0.
std::vector<EepromRead> module_extra_reads(const ModuleMemory& base);

/// Parses the fixture text of a module's pages (written by format_module_pages_text):
///   # comment
///   i2c 0x50 bank 0 page 0x00 offset 0
///   11 07 06 00 ...            (hex bytes, any number per line)
/// A header line starts a block; the bytes that follow are stored from its offset on.
/// Errors: kParse naming `source` and the line (bad header, bad hex, bytes before any header,
/// a block past offset 255).
Result<ModuleMemory> parse_module_pages_text(std::string_view text, const std::string& source);

/// The fixture text of `mem`: one block per contiguous run of present bytes, 16 bytes a line.
std::string format_module_pages_text(const ModuleMemory& mem);

/// Pages of a flat image from the legacy ioctl (ETHTOOL_GMODULEINFO type, ETHTOOL_GMODULEEEPROM
/// data, linux:include/uapi/linux/ethtool.h): SFF-8079 (type 1, 256 bytes: A0h), SFF-8472
/// (type 2, 512 bytes: A0h then A2h), SFF-8636/8436 (types 3/4, 256 bytes: lower + upper 00h,
/// 640 bytes: then upper pages 01h-03h). Unknown types keep the first 256 bytes as A0h.
ModuleMemory module_memory_from_flat(uint32_t ioctl_type, const std::vector<uint8_t>& image);

}  // namespace fabdiag
