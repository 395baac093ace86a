#include "cmd/common.h"

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <iostream>
#include <optional>

#include "cmd/error_document.h"
#include "cmd/result_pieces.h"
#include "core/atomic_file.h"
#include "core/atomic_pieces.h"
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
  const Format format = resolve_format(g);
  if (format == Format::kTable)  // in pieces: a table of thousands of rows is never one string
    return write_result_pieces(g, [&](const TextDrain& drain) { render_table_escaped_to(env, doc, drain); });
  return write_result_text(g, render(format, env, doc));
}

namespace {

// The exit code of a result that could not be written to --output: a bad path is the user's
// to fix (exit 2); a failing disk is not (exit 4: the result exists but could not be kept).
int output_failure(const Error& e) {
  print_error("cannot write the result to --output: " + e.to_string());
  const auto code = e.code;
  return code == ErrorCode::kNotFound || code == ErrorCode::kPermission || code == ErrorCode::kInvalidArgument
             ? kExitUsage
             : kExitPartial;
}

// stdout's status after a failed write: EPIPE (the reader stopped reading) is quiet.
int stdout_failure(const Error& e) {
  if (e.code == ErrorCode::kUnavailable) return kExitOk;
  print_error("cannot write the result: " + e.to_string());
  return kExitPartial;
}

void prepare_stdout() {
  // EPIPE, not a silent death by SIGPIPE, when the reader has gone (`fabdiag ... | head`).
  std::signal(SIGPIPE, SIG_IGN);
  note_stdout_written();
  std::fflush(stdout);
}

}  // namespace

int write_result_text(const GlobalOptions& g, const std::string& text) {
  if (!g.output.empty() && g.output != "-") {
    auto st = write_file_atomic(g.output, text);
    return st ? kExitOk : output_failure(st.error());
  }
  return write_stdout(text);
}

int write_stdout(const std::string& text) {
  prepare_stdout();
  auto st = write_all(STDOUT_FILENO, text, "stdout");
  return st ? kExitOk : stdout_failure(st.error());
}

int write_result_pieces(const GlobalOptions& g, const std::function<void(const TextDrain&)>& produce) {
  std::optional<Error> failed;  // the first failed write; the pieces after it are dropped
  if (!g.output.empty() && g.output != "-") {
    auto file = open_atomic_file(g.output);
    if (!file) return output_failure(file.error());
    produce([&](std::string& piece) {
      if (!failed)
        if (auto st = (*file)->write(piece); !st) failed = st.error();
      piece.clear();
    });
    if (!failed)
      if (auto st = (*file)->commit(); !st) failed = st.error();
    return failed ? output_failure(*failed) : kExitOk;
  }
  prepare_stdout();
  produce([&](std::string& piece) {
    if (!failed)
      if (auto st = write_all(STDOUT_FILENO, piece, "stdout"); !st) failed = st.error();
    piece.clear();
  });
  return failed ? stdout_failure(*failed) : kExitOk;
}

int emit(const GlobalOptions& g, const Envelope& env, const Document& doc) {
  int rc = write_rendered(g, env, doc);
  return rc != kExitOk ? rc : exit_code_for(env);
}

}  // namespace fabdiag::cmd
