#include "cmd/input.h"

#include <iostream>
#include <sstream>

#include "cmd/common.h"
#include "core/atomic_file.h"
#include "core/exit_codes.h"
#include "core/text_encoding.h"

namespace fabdiag::cmd {

namespace {

// The text without a leading UTF-8 byte-order mark, as the line readers see it (core/line_source.cpp).
std::string without_bom(std::string text) {
  if (text.compare(0, kUtf8Bom.size(), kUtf8Bom) == 0) text.erase(0, kUtf8Bom.size());
  return text;
}

}  // namespace

Result<std::string> read_input(const std::string& file) {
  if (file != "-") {
    auto text = read_file(file);
    if (!text) return text.error();
    return without_bom(std::move(*text));
  }
  std::ostringstream ss;
  ss << std::cin.rdbuf();
  if (std::cin.bad()) return make_error(ErrorCode::kIo, "cannot read standard input", "-");
  return without_bom(ss.str());
}

Result<std::unique_ptr<LineSource>> open_input_lines(const std::string& file) {
  if (file == "-") return fd_line_source(0, "-");
  return open_line_source(file);
}

int fail_input(const Error& e) {
  print_error(e.to_string());
  switch (e.code) {
    case ErrorCode::kNotFound:
    case ErrorCode::kInvalidArgument:
    case ErrorCode::kParse:
    case ErrorCode::kUnsupported:
    case ErrorCode::kPermission:  // a file or store the user cannot read or write: theirs to fix
      return kExitUsage;
    case ErrorCode::kInternal:
      return kExitInternal;
    default:  // kIo, kTimeout, kUnavailable: the disk or a peer failed, not fabdiag
      return kExitPartial;
  }
}

}  // namespace fabdiag::cmd
