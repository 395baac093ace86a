// One entry point for the counter importers (probes/import_*.h): format names, detection from
// the text, and the merge of several imports into the interpretation's input.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rules/counter_interpret.h"
#include "import/common.h"

namespace fabdiag {

/// The formats `fabdiag import` and `fabdiag counters --from` read.
enum class CounterImportFormat { kEthtoolS, kEthtoolM, kPerfquery, kIbqueryerrors, kRdmaStatistic, kSyslog };

/// "ethtool-s", "ethtool-m", "perfquery", "ibqueryerrors", "rdma-statistic", "syslog".
const char* to_string(CounterImportFormat f);
/// Parses the names above; nullopt for anything else.
std::optional<CounterImportFormat> parse_counter_import_format(std::string_view name);
/// Every format, in the order above.
std::vector<CounterImportFormat> all_counter_import_formats();

/// Guesses the format from the text: ibqueryerrors ("Errors for", "## Summary"), perfquery
/// ("# ... counters: Lid N port N"), rdma statistic (a record starting with "link", or a JSON
/// array of {"ifname"}), ethtool -m ("mW / ... dBm", "Module temperature"), a log with
/// carrier-loss lines (timestamped lines), ethtool -S ("name: number" lines or sysfs lines).
/// nullopt when none fits.
std::optional<CounterImportFormat> detect_counter_import_format(std::string_view text);

/// Runs the importer of `format`. `device` names the netdev for formats whose text may not
/// (ethtool -S, ethtool -m); empty = from the text. Errors: those of the importer.
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
/// time between the snapshots; else deltas without rates). When the input holds exactly one
/// RDMA port without a netdev and exactly one netdev with counters, they are paired (and a
/// note says so) so that the port's loss is judged with its netdev's PFC counters.
CombinedImport combine_imports(const std::vector<CounterImport>& imports, std::optional<double> window_s);

}  // namespace fabdiag
