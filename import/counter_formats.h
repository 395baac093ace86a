// One entry point for the counter importers (probes/import_*.h): format names, detection from
// the text, and the merge of several imports into the interpretation's input.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/line_source.h"
#include "rules/counter_interpret.h"
#include "import/common.h"
#include "import/format_detect.h"
#include "import/input_reader.h"

namespace fabdiag {

/// The formats `fabdiag import` and `fabdiag counters --from` read.
enum class CounterImportFormat {
  kEthtoolS, kEthtoolM, kEthtoolFec, kPerfquery, kIbqueryerrors, kRdmaStatistic, kSyslog
};

/// "ethtool-s", "ethtool-m", "ethtool-fec", "perfquery", "ibqueryerrors", "rdma-statistic", "syslog".
const char* to_string(CounterImportFormat f);
/// Parses the names above; nullopt for anything else.
std::optional<CounterImportFormat> parse_counter_import_format(std::string_view name);
/// Every format, in the order above.
std::vector<CounterImportFormat> all_counter_import_formats();

/// The tool of a counter format (import/format_detect.h).
ToolText tool_of(CounterImportFormat f);

/// Guesses the format from the text (detect_tool() of import/format_detect.h over its first
/// lines): a marker line of perfquery, ibqueryerrors, rdma statistic, ethtool -m, ethtool
/// --show-fec or ethtool -S ("NIC statistics:"), else most lines timestamped (syslog) or
/// "name: integer" / sysfs lines (ethtool -S). nullopt when none fits, or when the text is
/// another tool's (ibstat, ibv_devinfo, lspci, ... are not counters).
std::optional<CounterImportFormat> detect_counter_import_format(std::string_view text);

/// The format of an input from its first lines: `named` when given (checked against the
/// markers: check_named_tool()), else detected as above.
/// Errors: kParse naming "SOURCE:LINE" when `named` is refuted by another tool's marker;
/// kInvalidArgument naming the source when nothing fits, saying what the text looks like
/// (another tool's output, binary data, or nothing known).
Result<CounterImportFormat> counter_format_of(std::optional<CounterImportFormat> named,
                                              const std::vector<std::string>& head, const std::string& source);

/// Runs the importer of `format` over `lines` (streamed). `device` names the netdev for
/// formats whose text may not (ethtool -S, -m, --show-fec); empty = from the text. `limits`
/// bounds the repeats listed. Errors: those of the importer.
Result<CounterImport> import_counters(CounterImportFormat format, LineSource& lines, const std::string& source,
                                      const std::string& device, const ReadLimits& limits = {});

/// The same over a text held in memory (tests).
Result<CounterImport> import_counters(CounterImportFormat format, std::string_view text,
                                      const std::string& source, const std::string& device);

/// Several imports merged for the interpretation.
struct CombinedImport {
  InterpretInput input;        ///< Ports, changes, window, optics.
  std::vector<Error> gaps;     ///< Of every import.
  std::vector<std::string> notes;  ///< Assumptions made (pairing, later snapshots not used, ...).
  size_t snapshots = 0;        ///< Snapshots read in all.
  bool has_deltas = false;     ///< Some series had two snapshots or more.
};

/// Merges `imports`: ports by device; each series of one snapshot becomes readings, a series of
/// two or more a delta from its first to its second snapshot (over `window_s` when given: the
/// time between the snapshots; else deltas without rates); a note counts the later ones. When the input holds exactly one
/// RDMA port without a netdev and exactly one netdev with counters, they are paired (and a
/// note says so) so that the port's loss is judged with its netdev's PFC counters.
CombinedImport combine_imports(const std::vector<CounterImport>& imports, std::optional<double> window_s);

}  // namespace fabdiag
