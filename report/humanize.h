// Number formatting for people. Data stays in raw base units everywhere else; only renderers
// call these. GB/s means 1e9 bytes/s, as nccl-tests prints; Gb/s is for link rates.
#pragma once

#include <cstdint>
#include <string>

namespace fabdiag {

/// 1234567 -> "1.23 MB"; decimal units (B, KB, MB, GB, TB, PB), 3 significant digits.
std::string format_bytes_si(double bytes);
/// 1048576 -> "1 MiB"; binary units for message sizes (B, KiB, MiB, GiB).
std::string format_bytes_iec(double bytes);
/// Bytes/s as "12.34 GB/s" (1e9) with two decimals, the nccl-tests convention.
std::string format_gbytes_per_s(double bytes_per_s);
/// Bytes/s for evidence lines: from 1 GB/s up as format_gbytes_per_s ("18.94 GB/s"), below it
/// decimal units with 3 significant digits ("6.12 MB/s", "512 KB/s"), so an emulated or dying
/// link does not read as "0.00612 GB/s" or as a 7-digit raw number.
std::string format_bytes_per_s(double bytes_per_s);
/// Bits/s as "400 Gb/s" / "100 Mb/s".
std::string format_bits_per_s(double bits_per_s);
/// Counts with thousands separators: 1234567 -> "1,234,567".
std::string format_count(uint64_t n);
/// Per-second rate with 3 significant digits: "12.3/s", "0.00512/s".
std::string format_rate_per_s(double per_s);
/// Seconds as "850 us", "12.3 ms", "4.21 s".
std::string format_seconds(double s);
/// A double with `digits` significant digits, no trailing zeros ("0.5", "12.3").
std::string format_sig(double v, int digits = 3);

}  // namespace fabdiag
