#include "core/text.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdlib>

#include "core/escape_line.h"

namespace fabdiag {

namespace {
// isspace() of the "C" locale, the only one fabdiag runs in (it never calls setlocale), inline.
bool is_c_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
}  // namespace

std::string_view trim_view(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && is_c_space(s[b])) ++b;
  while (e > b && is_c_space(s[e - 1])) --e;
  return s.substr(b, e - b);
}

std::string trim(std::string_view s) { return std::string(trim_view(s)); }

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t pos = s.find(sep, start);
    if (pos == std::string_view::npos) {
      out.emplace_back(s.substr(start));
      return out;
    }
    out.emplace_back(s.substr(start, pos - start));
    start = pos + 1;
  }
}

std::vector<std::string> split_ws(std::string_view s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    size_t j = i;
    while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j]))) ++j;
    if (j > i) out.emplace_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view x) {
  return s.size() >= x.size() && s.substr(s.size() - x.size()) == x;
}

namespace {

// `s` with each byte for which `keep` is false written as \xNN.
// `keep` is tabulated once per predicate: one load per byte of a 600 KB table output.
template <typename Keep>
std::string escape_bytes(std::string_view s, Keep) {
  static constexpr char kHex[] = "0123456789abcdef";
  static constexpr auto kKept = [] {
    Keep keep{};  // a captureless lambda: default-constructible, usable at compile time
    std::array<bool, 256> t{};
    for (unsigned c = 0; c < 256; ++c) t[c] = keep(static_cast<unsigned char>(c));
    return t;
  }();
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    size_t run = i;  // the kept bytes up to the next escaped one, copied at once
    while (run < s.size() && kKept[static_cast<unsigned char>(s[run])]) ++run;
    out.append(s, i, run - i);
    if (run == s.size()) break;
    auto c = static_cast<unsigned char>(s[run]);
    out += "\\x";
    out += kHex[c >> 4];
    out += kHex[c & 15];
    i = run;
  }
  return out;
}

}  // namespace

std::string escape_nonprintable(std::string_view s) {
  return escape_bytes(s, [](unsigned char c) { return c >= 0x20 && c < 0x7f; });
}

std::string escape_controls(std::string_view s) {
  return escape_bytes(s, [](unsigned char c) { return c == '\n' || c == '\t' || (c >= 0x20 && c != 0x7f); });
}

std::string escape_line(std::string_view s) {
  return escape_bytes(s, [](unsigned char c) { return c == '\t' || (c >= 0x20 && c != 0x7f); });
}

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  return join_first(items, items.size(), sep, "");
}

std::string join_first(const std::vector<std::string>& items, size_t max_items, std::string_view sep,
                       std::string_view more) {
  std::string out;
  for (size_t i = 0; i < items.size() && i < max_items; ++i) {
    if (i) out += sep;
    out += items[i];
  }
  if (items.size() > max_items) {
    if (max_items > 0) out += sep;
    out += more;
  }
  return out;
}

std::string join_prose(const std::vector<std::string>& items, std::string_view last_sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += i + 1 == items.size() ? last_sep : std::string_view(", ");
    out += items[i];
  }
  return out;
}

std::optional<uint64_t> parse_u64(std::string_view raw) {
  std::string_view s = trim_view(raw);
  if (s.empty()) return std::nullopt;
  int base = 10;
  const char* b = s.data();
  const char* e = s.data() + s.size();
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    b += 2;
  }
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(b, e, v, base);
  if (ec != std::errc() || ptr != e) return std::nullopt;
  return v;
}

std::optional<int64_t> parse_i64(std::string_view raw) {
  std::string_view s = trim_view(raw);
  if (s.empty()) return std::nullopt;
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 10);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<double> parse_leading_double(std::string_view raw) {
  std::string s = trim(raw);
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str()) return std::nullopt;
  return v;
}

std::optional<double> parse_double(std::string_view raw) {
  std::string s = trim(raw);
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return std::nullopt;
  return v;
}

std::optional<std::vector<int>> parse_cpulist(std::string_view raw) {
  std::string s = trim(raw);
  std::vector<int> cpus;
  if (s.empty()) return cpus;
  for (const auto& part : split(s, ',')) {
    auto dash = part.find('-');
    if (dash == std::string::npos) {
      auto v = parse_i64(part);
      if (!v || *v < 0) return std::nullopt;
      cpus.push_back(static_cast<int>(*v));
    } else {
      auto a = parse_i64(part.substr(0, dash));
      auto b = parse_i64(part.substr(dash + 1));
      if (!a || !b || *a < 0 || *b < *a || *b - *a > 1 << 20) return std::nullopt;
      for (int64_t c = *a; c <= *b; ++c) cpus.push_back(static_cast<int>(c));
    }
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

std::string format_cpulist(const std::vector<int>& cpus_in) {
  std::vector<int> cpus = cpus_in;
  std::sort(cpus.begin(), cpus.end());
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += std::to_string(cpus[i]);
    if (j > i) out += "-" + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

std::optional<std::vector<int>> parse_cpumask(std::string_view raw) {
  std::string s = trim(raw);
  if (s.empty()) return std::nullopt;
  std::string hex;
  for (char c : s)
    if (c != ',') hex.push_back(c);
  std::vector<int> cpus;
  int bit = 0;
  for (auto it = hex.rbegin(); it != hex.rend(); ++it, bit += 4) {
    int v;
    if (*it >= '0' && *it <= '9') v = *it - '0';
    else if (*it >= 'a' && *it <= 'f') v = *it - 'a' + 10;
    else if (*it >= 'A' && *it <= 'F') v = *it - 'A' + 10;
    else return std::nullopt;
    for (int k = 0; k < 4; ++k)
      if (v & (1 << k)) cpus.push_back(bit + k);
  }
  std::sort(cpus.begin(), cpus.end());
  return cpus;
}

}  // namespace fabdiag
