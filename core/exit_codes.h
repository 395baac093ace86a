// Process exit codes of every fabdiag subcommand (documented in README.md, tested in
// tests/cli/cli_table.txt).
#pragma once

namespace fabdiag {

inline constexpr int kExitOk = 0;              ///< Ran, nothing wrong found.
inline constexpr int kExitProblems = 1;        ///< Ran, found warn/error/critical findings or suspects.
inline constexpr int kExitUsage = 2;           ///< Bad command line (unknown subcommand or flag, bad value).
inline constexpr int kExitMissingCapability = 3;  ///< A required capability (MPI, NCCL, ...) is absent.
inline constexpr int kExitPartial = 4;         ///< Ran, but part of the input could not be read.
inline constexpr int kExitInternal = 70;       ///< Bug or unexpected failure (EX_SOFTWARE).
/// Stopped by SIGINT (Ctrl-C) before the end: 128 + 2, the shell's convention; what finished is
/// printed, marked partial (SIGTERM gives 128 + 15 = 143, core/run_cut.h).
inline constexpr int kExitInterrupted = 130;

}  // namespace fabdiag
