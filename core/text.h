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
/// The same as a view into `s` (no copy).
std::string_view trim_view(std::string_view s);
/// Splits on `sep`; keeps empty fields.
std::vector<std::string> split(std::string_view s, char sep);
/// Splits on runs of whitespace; no empty fields.
std::vector<std::string> split_ws(std::string_view s);
bool starts_with(std::string_view s, std::string_view prefix);
bool ends_with(std::string_view s, std::string_view suffix);
/// True when `s` is one or more ASCII digits ("042"); false for "", "-1", "4e1", " 7".
bool all_digits(std::string_view s);

/// `s` safe to print in a message: bytes other than printable ASCII (control characters, NUL,
/// escape sequences, UTF-8) written as \xNN: "n\xe9ud" for the bytes 6e e9 75 64.
std::string escape_nonprintable(std::string_view s);
/// Text for a terminal: C0 control characters other than newline and tab (ESC, CR, BEL, NUL,
/// ...) and DEL written as \xNN; UTF-8 and the rest kept. "a\x1b[2Jb" stays visible as text
/// instead of clearing the screen: file names and log lines from a collection can hold anything.
std::string escape_controls(std::string_view s);

/// `items` with `sep` between them: {"a", "b", "c"} -> "a, b, c"; {} -> "".
std::string join(const std::vector<std::string>& items, std::string_view sep = ", ");
/// The first `max_items` of `items` joined with `sep`; when some are left out, `more` follows
/// (after `sep` when an item was written): ({"a", "b", "c"}, 2, ", ", "...") -> "a, b, ...".
std::string join_first(const std::vector<std::string>& items, size_t max_items, std::string_view sep,
                       std::string_view more);
/// `items` as a list in prose, `last_sep` before the last one: "a", "a and b", "a, b and c".
std::string join_prose(const std::vector<std::string>& items, std::string_view last_sep = " and ");

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
