#include "report/result_json.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace fabdiag {

namespace {

constexpr std::uint64_t kPackedRowSubtype = 0xfd;  // "fabdiag double row"
constexpr const char* kMatrixKey = "matrix_bytes_per_s";
constexpr const char* kElement = "[]";  // a container that is an array's element, not a member

// The row as doubles (NaN for null); false when an item is neither a number nor null.
bool pack(const nlohmann::json& row, std::vector<std::uint8_t>& bytes) {
  bytes.resize(row.size() * sizeof(double));
  size_t at = 0;
  for (const auto& cell : row) {
    double v;
    if (cell.is_number()) v = cell.get<double>();
    else if (cell.is_null()) v = std::numeric_limits<double>::quiet_NaN();
    else return false;
    std::memcpy(bytes.data() + at, &v, sizeof v);
    at += sizeof v;
  }
  return true;
}

}  // namespace

nlohmann::json parse_result_json(std::string_view text) {
  // Where each open container sits: the member name it is the value of, or kElement.
  std::vector<std::string> path;
  std::string key;
  std::vector<std::uint8_t> bytes;
  auto callback = [&](int /*depth*/, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    switch (event) {
      case E::key:
        key = parsed.get<std::string>();
        break;
      case E::object_start:
      case E::array_start:
        // The value of the last key when the parent is an object (key set), else an element.
        path.push_back(key.empty() ? kElement : std::move(key));
        key.clear();
        break;
      case E::object_end:
        path.pop_back();
        break;
      case E::array_end: {
        const bool row = path.size() >= 2 && path.back() == kElement && path[path.size() - 2] == kMatrixKey;
        path.pop_back();
        if (row && pack(parsed, bytes)) parsed = nlohmann::json::binary(std::move(bytes), kPackedRowSubtype);
        bytes.clear();
        break;
      }
      case E::value:
        key.clear();
        break;
    }
    return true;
  };
  return nlohmann::json::parse(text.begin(), text.end(), callback, /*allow_exceptions=*/false);
}

bool is_packed_row(const nlohmann::json& row) {
  return row.is_binary() && row.get_binary().has_subtype() && row.get_binary().subtype() == kPackedRowSubtype;
}

size_t packed_row_size(const nlohmann::json& row) {
  return is_packed_row(row) ? row.get_binary().size() / sizeof(double) : 0;
}

std::optional<double> packed_row_at(const nlohmann::json& row, size_t j) {
  if (j >= packed_row_size(row)) return std::nullopt;
  double v;
  std::memcpy(&v, row.get_binary().data() + j * sizeof v, sizeof v);
  return std::isnan(v) ? std::nullopt : std::optional<double>(v);
}

}  // namespace fabdiag
