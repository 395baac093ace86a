// Internal to `fabdiag counters` (cmd/counters*.cpp): cell formatting, the link and optics
// sections and the --watch loop. The Prometheus metric families are metrics/counter_metrics.h.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cmd/commands.h"
#include "probes/counters/counter_delta.h"
#include "probes/counters/counter_model.h"
#include "probes/counters/sysfs_counters.h"
#include "report/document.h"

namespace fabdiag::cmd {

/// "port", "hw", "netdev", "ethtool": the SRC column.
const char* counter_short_group(CounterGroup g);
/// A value in its unit for people ("1.23 MB", "12.3 ms", "1,234").
std::string fmt_counter_amount(double v, const std::string& unit);
/// Cumulative value; ">= " for a saturated counter.
std::string fmt_counter_value(const CounterChange& ch);
/// "+1,234", ">= +5", "new", "gone", "reset", "(wrap)" suffix.
std::string fmt_counter_delta(const CounterChange& ch);
/// Per-second rate in the counter's unit ("1.2 GB/s", "3.4/s", "0.5 % paused"); empty without.
std::string fmt_counter_rate(const CounterChange& ch);

/// "links" section: one row per netdev with ethtool link facts; nullopt when there are none.
std::optional<Section> links_section(const std::vector<LinkFacts>& links);
/// "optics" section: one table per module (lanes with rx/tx power in dBm and bias), the
/// module's thresholds as notes; nullopt when there are none. `indent` prefixes rows (table).
std::optional<Section> optics_section(const std::vector<ModuleDiagnostics>& optics,
                                      const std::string& indent);

/// `fabdiag counters --watch`: reads a snapshot every interval (module EEPROM not re-read),
/// prints per-second rates of the top movers and the findings of the last window; on a
/// terminal it clears and redraws (cursor hidden, restored on exit), otherwise it appends
/// plain blocks. SIGINT/SIGTERM end it cleanly. Returns 0, or 2 for unusable options.
/// `first` is the snapshot already read (the start of the first window).
int run_counters_watch(const GlobalOptions& g, const CountersOptions& o, const FsRoot& fs,
                       const CounterReadOptions& ro, std::optional<CounterCategory> only,
                       Snapshot first);

}  // namespace fabdiag::cmd
