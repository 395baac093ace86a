#include "cmd/common.h"

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <iostream>

#include "cmd/error_document.h"
#include "core/atomic_file.h"
#include "core/escape_line.h"
#include "core/exit_codes.h"
#include "core/text.h"

namespace fabdiag::cmd {

Result<FsRoot> make_fs_root(const GlobalOptions& g) {
  FsRoot fs(g.sysfs_root, g.procfs_root);
  auto st = fs.validate();
  if (!st) return st.error();
  return fs;
}

Format resolve_format(const GlobalOptions& g) {
  if (!g.format.empty()) {
    if (auto f = parse_format(g.format)) return *f;
  }
  return isatty(STDOUT_FILENO) ? Format::kTable : Format::kJson;
}

Progress stderr_progress(const GlobalOptions& g) {
  if (g.quiet) return no_progress();
  return [](const std::string& line) { std::cerr << "fabdiag: " << escape_line(line) << std::endl; };
}

void print_error(const std::string& text) {
  std::cerr << "fabdiag: error: " << escape_line(text) << std::endl;
  note_error(text);
}

int exit_code_for(const Envelope& env) {
  auto worst = worst_severity(env.findings);
  if (worst && *worst >= Severity::kWarn) return kExitProblems;
  if (!env.errors.empty()) return kExitPartial;
  return kExitOk;
}

int write_rendered(const GlobalOptions& g, const Envelope& env, const Document& doc) {
  if (g.format == "prometheus") {  // `counters` and `baseline diff` render their metric families themselves (they never get here)
    print_error("--format prometheus is supported by `fabdiag counters` and `fabdiag baseline diff` only; use table, json or md");
    return kExitUsage;
  }
  return write_result_text(g, render(resolve_format(g), env, doc));
}

int write_result_text(const GlobalOptions& g, const std::string& text) {
  if (!g.output.empty() && g.output != "-") {
    auto st = write_file_atomic(g.output, text);
    if (!st) {
      // A bad --output path is the user's to fix (exit 2); a failing disk is not (exit 4: the
      // result exists but could not be kept).
      const auto code = st.error().code;
      print_error("cannot write the result to --output: " + st.error().to_string());
      return code == ErrorCode::kNotFound || code == ErrorCode::kPermission || code == ErrorCode::kInvalidArgument
                 ? kExitUsage
                 : kExitPartial;
    }
    return kExitOk;
  }
  return write_stdout(text);
}

int write_stdout(const std::string& text) {
  // EPIPE, not a silent death by SIGPIPE, when the reader has gone (`fabdiag ... | head`).
  std::signal(SIGPIPE, SIG_IGN);
  note_stdout_written();
  std::fflush(stdout);
  auto st = write_all(STDOUT_FILENO, text, "stdout");
  if (st) return kExitOk;
  if (st.error().code == ErrorCode::kUnavailable) return kExitOk;  // the reader stopped reading: quiet
  print_error("cannot write the result: " + st.error().to_string());
  return kExitPartial;
}

int emit(const GlobalOptions& g, const Envelope& env, const Document& doc) {
  int rc = write_rendered(g, env, doc);
  return rc != kExitOk ? rc : exit_code_for(env);
}

}  // namespace fabdiag::cmd
