// Small, strict text helpers shared by the sysfs readers and the importers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fabdiag {

/// Copy without leading/trailing ASCII whitespace.
std::string trim(std::string_view s);
/// Splits on `sep`; keeps empty fields.
std::vector<std::string> split(std::string_view s, char sep);
/// Splits on runs of whitespace; no empty fields.
std::vector<std::string> split_ws(std::string_view s);
bool starts_with(std::string_view s, std::string_view prefix);
bool ends_with(std::string_view s, std::string_view suffix);

/// Whole string (after trim) as an unsigned decimal, or 0x-prefixed hex. nullopt on anything
/// else ("N/A", "-1", "12abc", overflow).
std::optional<uint64_t> parse_u64(std::string_view s);
/// Whole string (after trim) as a signed decimal.
std::optional<int64_t> parse_i64(std::string_view s);
/// Leading floating-point number of `s` ("16.0 GT/s PCIe" -> 16.0); nullopt if none.
std::optional<double> parse_leading_double(std::string_view s);
/// Whole string (after trim) as a floating-point number.
std::optional<double> parse_double(std::string_view s);

/// Parses a Linux cpulist ("0-31,64-95") into sorted CPU ids; nullopt on a syntax error.
std::optional<std::vector<int>> parse_cpulist(std::string_view s);
/// Formats CPU ids as a cpulist with ranges ("0-31,64-95").
std::string format_cpulist(const std::vector<int>& cpus);
/// Parses a sysfs cpumask ("ffff,00000000,0000ffff") into CPU ids.
std::optional<std::vector<int>> parse_cpumask(std::string_view s);

}  // namespace fabdiag
