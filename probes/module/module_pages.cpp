#include "probes/module/module_pages.h"

#include <algorithm>
#include <cstdio>

#include "core/text.h"

namespace fabdiag {
namespace {

bool is_sff8636(uint8_t id) { return id == 0x0C || id == 0x0D || id == 0x11; }
bool is_cmis(uint8_t id) {
  return id == 0x18 || id == 0x19 || id == 0x1B || id == 0x1E || id == 0x1F || id == 0x20;
}

std::optional<unsigned> parse_number(const std::string& s) {
  auto v = parse_u64(s);  // decimal or 0x-hex
  if (!v || *v > 0xFFFF) return std::nullopt;
  return static_cast<unsigned>(*v);
}

std::optional<uint8_t> parse_hex_byte(const std::string& s) {
  if (s.empty() || s.size() > 2) return std::nullopt;
  unsigned v = 0;
  for (char c : s) {
    v <<= 4;
    if (c >= '0' && c <= '9') v |= static_cast<unsigned>(c - '0');
    else if (c >= 'a' && c <= 'f') v |= static_cast<unsigned>(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') v |= static_cast<unsigned>(c - 'A' + 10);
    else return std::nullopt;
  }
  return static_cast<uint8_t>(v);
}

}  // namespace

uint32_t ModuleMemory::key(uint8_t i2c_address, uint8_t bank, uint8_t page, unsigned offset) {
  if (offset < 128 && i2c_address == kModuleI2cA0) bank = page = 0;  // the shared lower page
  return (uint32_t{i2c_address} << 16) | (uint32_t{bank} << 8) | page;
}

void ModuleMemory::store(uint8_t i2c_address, uint8_t bank, uint8_t page, unsigned offset,
                         const std::vector<uint8_t>& bytes) {
  for (size_t i = 0; i < bytes.size(); ++i) {
    unsigned o = offset + static_cast<unsigned>(i);
    if (o > 255) break;
    uint32_t k = key(i2c_address, bank, page, o);
    Page& p = pages_[k];
    p.i2c_address = static_cast<uint8_t>(k >> 16);
    p.bank = static_cast<uint8_t>(k >> 8);
    p.page = static_cast<uint8_t>(k);
    p.bytes[o] = bytes[i];
    p.present.set(o);
  }
}

std::optional<uint8_t> ModuleMemory::byte(uint8_t i2c_address, uint8_t bank, uint8_t page,
                                          unsigned offset) const {
  if (offset > 255) return std::nullopt;
  auto it = pages_.find(key(i2c_address, bank, page, offset));
  if (it == pages_.end() || !it->second.present.test(offset)) return std::nullopt;
  return it->second.bytes[offset];
}

std::optional<uint16_t> ModuleMemory::be16(uint8_t i2c_address, uint8_t bank, uint8_t page,
                                           unsigned offset) const {
  auto hi = byte(i2c_address, bank, page, offset);
  auto lo = byte(i2c_address, bank, page, offset + 1);
  if (!hi || !lo) return std::nullopt;
  return static_cast<uint16_t>((*hi << 8) | *lo);
}

bool ModuleMemory::has(uint8_t i2c_address, uint8_t bank, uint8_t page, unsigned offset,
                       unsigned length) const {
  for (unsigned o = offset; o < offset + length; ++o)
    if (!byte(i2c_address, bank, page, o)) return false;
  return length > 0;
}

std::vector<ModuleMemory::Page> ModuleMemory::pages() const {
  std::vector<Page> out;
  for (const auto& [k, p] : pages_) out.push_back(p);
  return out;
}

std::vector<EepromRead> module_base_reads() {
  return {EepromRead{kModuleI2cA0, 0, 0, 0, 128}, EepromRead{kModuleI2cA0, 0, 0, 128, 128}};
}

std::vector<EepromRead> module_extra_reads(const ModuleMemory& base) {
  std::vector<EepromRead> out;
  auto id = base.byte(kModuleI2cA0, 0, 0, 0);
  if (!id) return out;
  auto status = base.byte(kModuleI2cA0, 0, 0, 2);
  if (is_sff8636(*id)) {
    if (status && !(*status & 0x04)) out.push_back(EepromRead{kModuleI2cA0, 0, 3, 128, 128});
  } else if (is_cmis(*id)) {
    if (status && !(*status & 0x80)) {
      out.push_back(EepromRead{kModuleI2cA0, 0, 0x01, 128, 128});
      out.push_back(EepromRead{kModuleI2cA0, 0, 0x02, 128, 128});
      out.push_back(EepromRead{kModuleI2cA0, 0, 0x11, 128, 128});
    }
  } else if (*id == 0x03) {
    auto diag = base.byte(kModuleI2cA0, 0, 0, 92);
    if (diag && (*diag & 0x40)) out.push_back(EepromRead{kModuleI2cA2, 0, 0, 0, 128});
  }
  return out;
}

Result<ModuleMemory> parse_module_pages_text(std::string_view text, const std::string& source) {
  ModuleMemory mem;
  bool in_block = false;
  unsigned i2c = 0, bank = 0, page = 0, offset = 0;
  size_t line_no = 0;
  auto fail = [&](const std::string& why) {
    return make_error(ErrorCode::kParse, "line " + std::to_string(line_no) + ": " + why, source);
  };
  for (const auto& raw : split(text, '\n')) {
    ++line_no;
    std::string line = trim(raw.substr(0, raw.find('#')));
    if (line.empty()) continue;
    auto words = split_ws(line);
    if (words[0] == "i2c") {
      // i2c <addr> bank <n> page <n> offset <n>
      if (words.size() != 8 || words[2] != "bank" || words[4] != "page" || words[6] != "offset")
        return fail("expected \"i2c ADDR bank N page N offset N\": " + line);
      auto a = parse_number(words[1]), b = parse_number(words[3]), p = parse_number(words[5]),
           o = parse_number(words[7]);
      if (!a || !b || !p || !o || *a > 0x7F || *b > 255 || *p > 255 || *o > 255)
        return fail("bad number in block header: " + line);
      i2c = *a, bank = *b, page = *p, offset = *o;
      in_block = true;
      continue;
    }
    if (!in_block) return fail("bytes before any \"i2c ... offset N\" header");
    std::vector<uint8_t> bytes;
    for (const auto& w : words) {
      auto b = parse_hex_byte(w);
      if (!b) return fail("not a hex byte: \"" + w + "\"");
      bytes.push_back(*b);
    }
    if (offset + bytes.size() > 256) return fail("block runs past offset 255");
    mem.store(static_cast<uint8_t>(i2c), static_cast<uint8_t>(bank), static_cast<uint8_t>(page),
              offset, bytes);
    offset += static_cast<unsigned>(bytes.size());
  }
  return mem;
}

std::string format_module_pages_text(const ModuleMemory& mem) {
  std::string out = "# module EEPROM pages (fabdiag fixture format; hex bytes)\n";
  char buf[80];
  for (const auto& p : mem.pages()) {
    unsigned o = 0;
    while (o < 256) {
      if (!p.present.test(o)) {
        ++o;
        continue;
      }
      std::snprintf(buf, sizeof buf, "i2c 0x%02x bank %u page 0x%02x offset %u\n", p.i2c_address,
                    p.bank, p.page, o);
      out += buf;
      unsigned n = 0;
      while (o < 256 && p.present.test(o)) {
        std::snprintf(buf, sizeof buf, "%s%02x", n % 16 ? " " : "", p.bytes[o]);
        out += buf;
        ++o;
        if (++n % 16 == 0) out += "\n";
      }
      if (n % 16) out += "\n";
    }
  }
  return out;
}

ModuleMemory module_memory_from_flat(uint32_t ioctl_type, const std::vector<uint8_t>& image) {
  ModuleMemory mem;
  auto slice = [&](size_t from, size_t len) {
    if (from >= image.size()) return std::vector<uint8_t>{};
    size_t n = std::min(len, image.size() - from);
    return std::vector<uint8_t>(image.begin() + static_cast<long>(from),
                                image.begin() + static_cast<long>(from + n));
  };
  mem.store(kModuleI2cA0, 0, 0, 0, slice(0, 256));
  if (ioctl_type == 2) {  // ETH_MODULE_SFF_8472: A0h then A2h
    mem.store(kModuleI2cA2, 0, 0, 0, slice(256, 256));
  } else if (ioctl_type == 3 || ioctl_type == 4) {  // SFF-8636 / 8436: upper pages 01h-03h
    for (uint8_t page = 1; page <= 3; ++page)
      mem.store(kModuleI2cA0, 0, page, 128, slice(128u + 128u * page, 128));
  }
  return mem;
}

}  // namespace fabdiag
