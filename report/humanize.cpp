#include "report/humanize.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace fabdiag {

std::string format_sig(double v, int digits) {
  if (std::isnan(v)) return "n/a";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  // std::to_chars writes what printf("%.*g") / ("%.0f") writes, without its format parsing.
  char buf[400];  // "%.0f" of a large double has up to 309 digits
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, digits);
  // %g may print 1e+06 for large values; prefer plain digits for counts below 1e15.
  if (std::find(buf, r.ptr, 'e') != r.ptr && std::fabs(v) >= 1 && std::fabs(v) < 1e15)
    r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, 0);
  return std::string(buf, r.ptr);
}

static std::string scaled(double v, const char* const* units, int n, double base) {
  int i = 0;
  double x = v;
  while (std::fabs(x) >= base && i < n - 1) {
    x /= base;
    ++i;
  }
  return format_sig(x, 3) + " " + units[i];
}

std::string format_bytes_si(double bytes) {
  static const char* const u[] = {"B", "KB", "MB", "GB", "TB", "PB"};
  return scaled(bytes, u, 6, 1000.0);
}

std::string format_bytes_iec(double bytes) {
  static const char* const u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  return scaled(bytes, u, 5, 1024.0);
}

std::string format_gbytes_per_s(double bytes_per_s) {
  if (std::isnan(bytes_per_s)) return "n/a";
  // Two decimals as nccl-tests prints them; below 1 GB/s (emulated or degraded links) three
  // significant digits, so 0.0081 GB/s does not read as 0.01.
  double gb = bytes_per_s / 1e9;
  if (gb != 0 && std::fabs(gb) < 1) return format_sig(gb, 3) + " GB/s";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f GB/s", gb);
  return buf;
}

std::string format_bytes_per_s(double bytes_per_s) {
  if (!std::isfinite(bytes_per_s) || std::fabs(bytes_per_s) >= 1e9) return format_gbytes_per_s(bytes_per_s);
  return format_bytes_si(bytes_per_s) + "/s";
}

std::string format_bits_per_s(double bits_per_s) {
  static const char* const u[] = {"b/s", "Kb/s", "Mb/s", "Gb/s", "Tb/s"};
  return scaled(bits_per_s, u, 5, 1000.0);
}

std::string format_count(uint64_t n) {
  char digits[24];
  const size_t len = static_cast<size_t>(std::to_chars(digits, digits + sizeof digits, n).ptr - digits);
  std::string out(len + (len - 1) / 3, ',');  // the digits in groups of three from the right
  for (size_t i = 0, o = 0; i < len; ++i) {
    if (i > 0 && (len - i) % 3 == 0) ++o;  // past the ',' already there
    out[o++] = digits[i];
  }
  return out;
}

std::string format_rate_per_s(double per_s) { return format_sig(per_s, 3) + "/s"; }

std::string format_seconds(double s) {
  if (std::isnan(s)) return "n/a";
  if (s < 1e-3) return format_sig(s * 1e6, 3) + " us";
  if (s < 1) return format_sig(s * 1e3, 3) + " ms";
  return format_sig(s, 3) + " s";
}

}  // namespace fabdiag
