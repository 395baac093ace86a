// `ethtool -S <netdev>` text (driver statistics as ethtool prints them): the one parser, used
// for the fixture files next to a sysfs tree (probes/ethtool/ethtool_ioctl.h, strict) and for
// captures a user imports (import/ethtool_s.h, lenient).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "probes/counters/counter_sources.h"

namespace fabdiag {

/// What a line that is not "name: number" does.
enum class EthtoolSStrictness {
  kStrict,   ///< Fails the parse (kParse): fixture files are written by tools, not pasted.
  kLenient,  ///< Is listed in EthtoolSText::bad_lines and skipped (a terminal capture).
};

/// One `ethtool -S` text, line by line.
struct EthtoolSText {
  std::vector<EthtoolStat> stats;  ///< In input order.
  std::vector<size_t> stat_lines;  ///< Line number (as counted from `first_line`) of each stats[i].
  std::vector<size_t> bad_lines;   ///< Lines that are not "name: number" (kLenient only).
};

/// What one line of `ethtool -S` output is.
enum class EthtoolSLineKind {
  kSkip,    ///< Blank, or a '#' comment.
  kHeader,  ///< "NIC statistics:" (any "... statistics:") or "Standard stats for <if>:".
  kStat,    ///< "<name>: <u64>", split at the last ':'.
  kBad,     ///< Anything else.
};

/// One line, classified; `stat` is set for kStat; `has_name` tells a kBad line with a ':' (a
/// value that is not an unsigned number) from one without.
struct EthtoolSLine {
  EthtoolSLineKind kind = EthtoolSLineKind::kSkip;
  EthtoolStat stat;
  bool has_name = false;
};

/// Classifies one line of `ethtool -S` output (the rules of parse_ethtool_s_text() below; a
/// header is kHeader wherever it stands: the caller decides what a header after counters means).
EthtoolSLine parse_ethtool_s_line(std::string_view line);

/// Parses `ethtool -S` output: an optional header as the first line that is neither blank nor a
/// '#' comment ("NIC statistics:", or "Standard stats for <if>:"), then "<name>: <u64>" lines,
/// split at the last ':' (names may hold '.', '[', ']', so `ethtool -S <if> | grep prio` works
/// too). Blank lines and '#' comments are skipped. `first_line` is the number of the text's
/// first line in its file (a section of a larger capture starts further down).
/// Errors (kStrict only): kParse naming `source` and the line number; kLenient never fails.
Result<EthtoolSText> parse_ethtool_s_text(std::string_view text, const std::string& source,
                                          EthtoolSStrictness strictness, size_t first_line = 1);

}  // namespace fabdiag
