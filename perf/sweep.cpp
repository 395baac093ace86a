#include "perf/sweep.h"

#include <algorithm>
#include <cctype>
#include <limits>

namespace fabdiag::perf {

namespace {
Error bad_size(std::string_view text, const std::string& why) {
  return make_error(ErrorCode::kInvalidArgument,
                    "invalid size \"" + std::string(text) + "\": " + why +
                        " (use bytes with an optional binary suffix K, M, G or T, any case, B or iB after it allowed: 8, 1K, 4M, 1G, 2TiB)");
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}
}  // namespace

Result<uint64_t> parse_size_bytes(std::string_view text) {
  size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  size_t end = text.size();
  while (end > i && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  std::string_view s = text.substr(i, end - i);
  if (s.empty()) return bad_size(text, "empty");
  size_t digits = 0;
  uint64_t value = 0;
  while (digits < s.size() && std::isdigit(static_cast<unsigned char>(s[digits]))) {
    uint64_t d = static_cast<uint64_t>(s[digits] - '0');
    if (value > (std::numeric_limits<uint64_t>::max() - d) / 10) return bad_size(text, "too large");
    value = value * 10 + d;
    ++digits;
  }
  if (digits == 0) return bad_size(text, "not a non-negative integer");
  std::string suffix = lower(s.substr(digits));
  uint64_t mult = 1;
  if (!suffix.empty()) {
    char unit = suffix[0];
    std::string rest = suffix.substr(1);
    if (rest != "" && rest != "b" && rest != "ib") return bad_size(text, "unknown suffix");
    switch (unit) {
      case 'k': mult = 1ull << 10; break;
      case 'm': mult = 1ull << 20; break;
      case 'g': mult = 1ull << 30; break;
      case 't': mult = 1ull << 40; break;
      case 'b':
        if (!rest.empty()) return bad_size(text, "unknown suffix");
        break;
      default: return bad_size(text, "unknown suffix");
    }
  }
  if (value > std::numeric_limits<uint64_t>::max() / mult) return bad_size(text, "too large");
  return value * mult;
}

std::string format_size_bytes(uint64_t bytes) {
  static const char* const kSuffix[] = {"T", "G", "M", "K"};
  static const int kShift[] = {40, 30, 20, 10};
  for (int i = 0; i < 4; ++i) {
    uint64_t unit = 1ull << kShift[i];
    if (bytes >= unit && bytes % unit == 0) return std::to_string(bytes / unit) + kSuffix[i];
  }
  return std::to_string(bytes);
}

Status validate_sweep(const SweepSpec& spec) {
  if (spec.min_bytes == 0)
    return make_error(ErrorCode::kInvalidArgument, "min size (-b) must be at least 1 byte");
  if (spec.min_bytes > spec.max_bytes)
    return make_error(ErrorCode::kInvalidArgument,
                      "min size (-b) " + format_size_bytes(spec.min_bytes) +
                          " is larger than max size (-e) " + format_size_bytes(spec.max_bytes));
  if (spec.factor < 2)
    return make_error(ErrorCode::kInvalidArgument,
                      "size factor (-f) must be at least 2, got " + std::to_string(spec.factor));
  return Ok{};
}

std::vector<uint64_t> sweep_sizes(const SweepSpec& spec) {
  std::vector<uint64_t> out;
  if (!validate_sweep(spec)) return out;
  for (uint64_t s = spec.min_bytes; s <= spec.max_bytes;) {
    out.push_back(s);
    if (s > spec.max_bytes / spec.factor) break;  // next step exceeds max (or overflows)
    s *= spec.factor;
  }
  return out;
}

CollectiveShape collective_shape(Collective c, uint64_t requested_bytes, DataType dtype,
                                 int n_ranks) {
  const uint64_t ws = dtype_size_bytes(dtype);
  const uint64_t n = n_ranks < 1 ? 1 : static_cast<uint64_t>(n_ranks);
  const uint64_t count = requested_bytes / ws;
  CollectiveShape s;
  switch (c) {
    case Collective::kAllGather:
    case Collective::kGather:
    case Collective::kHypercube: {
      // hypercube_perf aligns each rank's block to 4 elements (HyperCubeGetCollByteCount).
      uint64_t per_rank = c == Collective::kHypercube ? count / (4 * n) * 4 : count / n;
      s.count = per_rank;
      s.send_count = per_rank;
      s.recv_count = per_rank * n;
      s.send_in_place_offset = per_rank;  // AllGather/Gather/HyperCubeGetCollByteCount
      break;
    }
    case Collective::kReduceScatter:
    case Collective::kScatter: {
      uint64_t per_rank = count / n;
      s.count = per_rank;
      s.send_count = per_rank * n;
      s.recv_count = per_rank;
      s.recv_in_place_offset = per_rank;  // ReduceScatter/ScatterGetCollByteCount
      break;
    }
    case Collective::kAlltoall: {
      uint64_t per_peer = count / n;
      s.count = per_peer;
      s.send_count = per_peer * n;
      s.recv_count = per_peer * n;
      break;
    }
    case Collective::kAllReduce:
    case Collective::kBroadcast:
    case Collective::kReduce:
    case Collective::kSendrecv:
      s.count = count;
      s.send_count = count;
      s.recv_count = count;
      break;
  }
  s.size_bytes = std::max(s.send_count, s.recv_count) * ws;
  return s;
}

}  // namespace fabdiag::perf
