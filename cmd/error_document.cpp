#include "cmd/error_document.h"

#include <cctype>

#include "cmd/common.h"
#include "core/exit_codes.h"
#include "core/text.h"

namespace fabdiag::cmd {

namespace {

// What this process printed with print_error() and whether a result went to stdout. One run per
// process: main() reads them once, at its end.
std::vector<std::string>& noted_errors() {
  static std::vector<std::string> errors;
  return errors;
}
bool stdout_written = false;

}  // namespace

std::string format_in_argv(int argc, const char* const* argv) {
  std::string format;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") break;
    if (arg == "--format" && i + 1 < argc) format = argv[++i];
    else if (arg.rfind("--format=", 0) == 0) format = arg.substr(9);
  }
  return format;
}

std::string option_named(const std::string& message) {
  for (auto word : split_ws(message)) {
    size_t dashes = word.find_first_not_of('-');
    if (dashes == 0 || dashes > 2 || dashes == std::string::npos ||
        !std::isalpha(static_cast<unsigned char>(word[dashes])))
      continue;
    size_t end = dashes;
    while (end < word.size() && (std::isalnum(static_cast<unsigned char>(word[end])) || word[end] == '-' ||
                                 word[end] == '_'))
      ++end;
    while (end > dashes && word[end - 1] == '-') --end;
    return word.substr(0, end);
  }
  return "";
}

void note_error(const std::string& text) { noted_errors().push_back(text); }

void note_stdout_written() { stdout_written = true; }

Envelope error_document(int exit_code, const std::vector<std::string>& argv) {
  const bool capability = exit_code == kExitMissingCapability;
  const ErrorCode code = capability ? ErrorCode::kUnsupported : ErrorCode::kInvalidArgument;
  const char* where = capability ? "this host" : "command line";
  Envelope env = make_envelope("fabdiag.error/1");
  env.params = {{"argv", argv}};
  env.data = {{"exit_code", exit_code},
              {"help", capability ? "fabdiag doctor (what this host and build can run)"
                                  : "fabdiag --help; fabdiag <subcommand> --help"}};
  for (const auto& text : noted_errors()) {
    std::string option = option_named(text);
    env.errors.push_back(make_error(code, text, option.empty() ? where : option));
  }
  if (env.errors.empty())
    env.errors.push_back(make_error(code, capability ? "a capability this run needs is missing" : "usage error", where));
  return env;
}

int finish_run(int exit_code, const std::string& format, int argc, const char* const* argv) {
  if (exit_code != kExitUsage && exit_code != kExitMissingCapability) return exit_code;
  if (format != "json" || stdout_written) return exit_code;
  std::vector<std::string> args(argv, argv + argc);
  write_stdout(render(Format::kJson, error_document(exit_code, args), Document{}));
  return exit_code;
}

}  // namespace fabdiag::cmd
