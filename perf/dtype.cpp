#include "perf/dtype.h"

namespace fabdiag::perf {

size_t dtype_size_bytes(DataType t) {
  switch (t) {
    case DataType::kUint8: return 1;
    case DataType::kInt32: return 4;
    case DataType::kInt64: return 8;
    case DataType::kFloat: return 4;
    case DataType::kDouble: return 8;
  }
  return 1;
}

const char* to_string(DataType t) {
  switch (t) {
    case DataType::kUint8: return "uint8";
    case DataType::kInt32: return "int32";
    case DataType::kInt64: return "int64";
    case DataType::kFloat: return "float";
    case DataType::kDouble: return "double";
  }
  return "?";
}

std::optional<DataType> parse_dtype(std::string_view s) {
  if (s == "uint8" || s == "char") return DataType::kUint8;
  if (s == "int32" || s == "int") return DataType::kInt32;
  if (s == "int64") return DataType::kInt64;
  if (s == "float" || s == "float32") return DataType::kFloat;
  if (s == "double" || s == "float64") return DataType::kDouble;
  return std::nullopt;
}

std::vector<std::string> dtype_names() { return {"float", "double", "int32", "int64", "uint8"}; }

}  // namespace fabdiag::perf
