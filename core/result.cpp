#include "core/result.h"

namespace fabdiag {

const char* to_string(ErrorCode code) {
  switch (code) {
    case ErrorCode::kNotFound: return "not_found";
    case ErrorCode::kUnsupported: return "unsupported";
    case ErrorCode::kPermission: return "permission";
    case ErrorCode::kIo: return "io";
    case ErrorCode::kParse: return "parse";
    case ErrorCode::kInvalidArgument: return "invalid_argument";
    case ErrorCode::kTimeout: return "timeout";
    case ErrorCode::kUnavailable: return "unavailable";
    case ErrorCode::kInterrupted: return "interrupted";
    case ErrorCode::kInternal: return "internal";
  }
  return "internal";
}

ErrorCode parse_error_code(const std::string& name) {
  for (auto c : {ErrorCode::kNotFound, ErrorCode::kUnsupported, ErrorCode::kPermission, ErrorCode::kIo,
                 ErrorCode::kParse, ErrorCode::kInvalidArgument, ErrorCode::kTimeout, ErrorCode::kUnavailable, ErrorCode::kInterrupted})
    if (name == fabdiag::to_string(c)) return c;
  return ErrorCode::kInternal;
}

std::string Error::to_string() const {
  std::string out;
  if (!source.empty()) out += source + ": ";
  out += message;
  if (!context.empty()) {
    out += " (while ";
    for (size_t i = 0; i < context.size(); ++i) {
      if (i) out += "; while ";
      out += context[i];
    }
    out += ")";
  }
  return out;
}

}  // namespace fabdiag
