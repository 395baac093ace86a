// Result<T> and Error: the error model of every library below cmd/.
//
// Library code returns Result<T> (a value or an Error); it never throws its own exceptions.
// Exceptions from libraries we do not own (CLI11, nlohmann::json, std::filesystem) are converted
// into Error at one boundary. "Not applicable" (kUnsupported, kNotFound) is distinct from "failed"
// (kIo, kParse, kPermission, ...), so callers can tell a missing counter from a broken one.
#pragma once

#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace fabdiag {

/// Why an operation did not produce a value.
enum class ErrorCode {
  kNotFound,         ///< The file, device, host or key does not exist (often "not applicable").
  kUnsupported,      ///< The device/kernel/build lacks the capability (e.g. "N/A (no PMA)").
  kPermission,       ///< EACCES/EPERM; usually "needs root" or CAP_NET_ADMIN.
  kIo,               ///< A read or write failed for another reason (errno in the message).
  kParse,            ///< Input exists but is not in the expected format.
  kInvalidArgument,  ///< A caller or user supplied a bad value.
  kTimeout,          ///< A host or rank did not answer within the deadline.
  kUnavailable,      ///< A peer, rank or service is gone (dead rank, unreachable host).
  kInterrupted,      ///< SIGINT/SIGTERM stopped the run before its end (the rest is partial).
  kInternal,         ///< A bug in fabdiag.
};

/// Stable lower-case name of an ErrorCode ("not_found", "unsupported", ...), used in JSON.
const char* to_string(ErrorCode code);
/// Inverse of to_string(ErrorCode); kInternal for an unknown name (a newer tool's code).
ErrorCode parse_error_code(const std::string& name);

/// An error with its origin: `source` names the file, device or host it is about.
struct Error {
  ErrorCode code = ErrorCode::kInternal;
  std::string message;               ///< Human sentence, no trailing period needed.
  std::string source;                ///< Path, device (mlx5_0/1), host or command it is about.
  std::vector<std::string> context;  ///< Outer operations, innermost first ("reading topology").

  /// Returns a copy with one more outer context line.
  Error with_context(std::string what) const {
    Error e = *this;
    e.context.push_back(std::move(what));
    return e;
  }
  /// "source: message (while a; while b)".
  std::string to_string() const;
};

/// Convenience constructor.
inline Error make_error(ErrorCode code, std::string message, std::string source = {}) {
  return Error{code, std::move(message), std::move(source), {}};
}

/// A value of type T or an Error. Minimal std::expected-like type (C++20 has none).
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}          // NOLINT(google-explicit-constructor)
  Result(Error error) : v_(std::move(error)) {}      // NOLINT(google-explicit-constructor)

  bool ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return ok(); }

  /// The value; precondition ok().
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &std::get<T>(v_); }
  const T* operator->() const { return &std::get<T>(v_); }
  T& operator*() & { return std::get<T>(v_); }
  const T& operator*() const& { return std::get<T>(v_); }

  /// The error; precondition !ok().
  const Error& error() const { return std::get<Error>(v_); }

  /// The value, or `fallback` when this holds an error.
  T value_or(T fallback) const { return ok() ? std::get<T>(v_) : std::move(fallback); }

 private:
  std::variant<T, Error> v_;
};

/// Result of an operation without a value.
struct Ok {};
using Status = Result<Ok>;

}  // namespace fabdiag
