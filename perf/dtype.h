// Element types of benchmark buffers (host memory). Names follow nccl-tests' -d flag.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fabdiag::perf {

/// Element type of a collective's buffers. Reductions are sums in this type (uint8 wraps
/// modulo 256, as MPI_UINT8_T and ncclUint8 do).
enum class DataType { kUint8, kInt32, kInt64, kFloat, kDouble };

/// Size of one element in bytes: 1, 4, 8, 4, 8.
size_t dtype_size_bytes(DataType t);
/// "uint8", "int32", "int64", "float", "double".
const char* to_string(DataType t);
/// Parses the names above (also "float32", "float64", "int", "char"); nullopt otherwise.
std::optional<DataType> parse_dtype(std::string_view s);
/// Every accepted canonical name, for --help and error messages.
std::vector<std::string> dtype_names();

/// Calls f(T{}) with the C++ type of `t` (uint8_t, int32_t, int64_t, float, double), so typed
/// code is written once: visit_dtype(t, [&](auto zero) { using T = decltype(zero); ... }).
template <typename F>
decltype(auto) visit_dtype(DataType t, F&& f) {
  switch (t) {
    case DataType::kUint8: return f(uint8_t{});
    case DataType::kInt32: return f(int32_t{});
    case DataType::kInt64: return f(int64_t{});
    case DataType::kFloat: return f(float{});
    case DataType::kDouble: break;
  }
  return f(double{});
}

}  // namespace fabdiag::perf
