// Errors that end a run before it has a result (usage errors: an unknown flag, a bad value, a
// missing argument, a --from file in no known format; a missing capability: no MPI, NCCL or
// GPU, exit 3): a human line on stderr always, and when
// `--format json` is on the command line also one `fabdiag.error/1` document on stdout
// (docs/SCHEMA.md#error-documents), so a script that parses stdout gets a document either way.
// No CLI11 here: cmd/main.cpp feeds it argv and CLI11's messages.
#pragma once

#include <string>
#include <vector>

#include "core/envelope.h"

namespace fabdiag::cmd {

/// The value of the last `--format X` / `--format=X` in argv[1..argc) before a `--`; "" when
/// none. Read before parsing, so a usage error still knows what output was asked for.
std::string format_in_argv(int argc, const char* const* argv);

/// The option a message names: its first word that starts with "-" then a letter ("--timeout"
/// of "--timeout: Value nan not in range", "--output" of "cannot write ... --output: ..."),
/// without trailing punctuation; "" when it names none.
std::string option_named(const std::string& message);

/// Remembers `text` as one of this run's errors (print_error() calls it for every message).
void note_error(const std::string& text);
/// Marks stdout as holding a result (write_stdout() calls it): no error document follows then.
void note_stdout_written();

/// The fabdiag.error/1 envelope for a run that ended with `exit_code` after the messages
/// noted so far: params.argv = the command line, data = {exit_code, help}; one errors[] entry
/// per message, code invalid_argument, source = option_named(message) or "command line"; for
/// kExitMissingCapability (no MPI, NCCL, GPU) code unsupported, source the option or "this host".
Envelope error_document(int exit_code, const std::vector<std::string>& argv);

/// Ends a run: when `exit_code` is kExitUsage or kExitMissingCapability, `format` is "json" and
/// nothing was written to stdout, prints error_document() as JSON on stdout (every write
/// checked, like a result). Returns `exit_code`.
int finish_run(int exit_code, const std::string& format, int argc, const char* const* argv);

}  // namespace fabdiag::cmd
