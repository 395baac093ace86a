// What `fabdiag counters` reads from a host or fixture tree: the first snapshot, checked against
// the --device selection, and either that snapshot alone or the window to a second one (taken
// after a wait, or read from a second tree at once). The caller parses flags and renders.
#pragma once

#include <functional>
#include <string>

#include "collect/counter_pipeline.h"
#include "core/result.h"

namespace fabdiag {

/// Waits between the two snapshots of a live window. Gets the window in seconds and the first
/// snapshot (for saying what was read); returns when the second snapshot may be taken. cmd/
/// sleeps and reports on stderr; tests return at once.
using CounterWindowWait = std::function<void(double interval_s, const Snapshot& first)>;

/// One snapshot, or the window between two.
struct CounterWindowSpec {
  /// 0 = one snapshot (cumulative values, no rates); > 0 = two snapshots this many seconds apart.
  double interval_s = 0;
  /// With interval_s > 0: read the second snapshot from this tree at once (fixtures, saved
  /// captures) and take interval_s as the window; nullptr = wait, then read the same tree again.
  /// Not owned.
  const FsRoot* after = nullptr;
  /// Called before the second read of the same tree; empty = no wait.
  CounterWindowWait wait;
};

/// An observation and where its driver statistics and link facts came from.
struct CounterReading {
  CounterObservation observation;
  std::string stats_source;  ///< CounterPipeline::describe_stats() of the first tree.
  std::string link_source;   ///< CounterPipeline::describe_link() of the first tree.
};

/// One snapshot of `fs` read with `options` (read_counter_snapshot()), refused when a name of
/// options.devices picks no port or netdev of it (probes/counters/device_filter.h).
/// Errors: kNotFound "no RDMA port or netdev named "NAME" under <root>/class (...)", the first
/// such name; nothing else fails (unreadable parts are Snapshot::gaps).
Result<Snapshot> read_selected_snapshot(const FsRoot& fs, const CounterReadOptions& options);

/// Reads `fs` through `pipeline`: the first snapshot (read_selected_snapshot()), then for
/// spec.interval_s > 0 the second (from spec.after, or from `fs` after spec.wait), and observes
/// them (observe_counters(): window = spec.interval_s with spec.after, else the time between
/// the two reads). Cost: one or two full counter reads (see read_counter_snapshot()).
/// Errors: those of read_selected_snapshot().
Result<CounterReading> read_counter_window(const CounterPipeline& pipeline, const FsRoot& fs,
                                           const CounterWindowSpec& spec);

}  // namespace fabdiag
