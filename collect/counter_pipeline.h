// The counter pipeline: every source of a node's counters wired once (RDMA and netdev sysfs,
// driver statistics through SIOCETHTOOL or fixture files, ethtool netlink link facts and
// statistics, module EEPROM), snapshots, the window between two of them, and the
// interpretation. `fabdiag counters`, `fabdiag check`, `--watch` and every triage rank read
// through here, so they all see the same facts: a triage rank gets the pause, FEC, link-state
// and optics facts that `fabdiag counters` shows for the same node.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/fs_root.h"
#include "probes/counters/counter_delta.h"
#include "probes/counters/counter_model.h"
#include "probes/counters/sysfs_counters.h"
#include "probes/ethtool/ethtool_ioctl.h"
#include "probes/ethtool/ethtool_netlink.h"
#include "rules/counter_interpret.h"

namespace fabdiag {

/// Which sources a pipeline reads (all of them by default).
struct CounterSources {
  bool rdma = true;           ///< class/infiniband/<ibdev>/ports/<n>/{counters,hw_counters}.
  bool netdev = true;         ///< class/net/<netdev>/statistics and carrier counters.
  bool ethtool = true;        ///< Driver statistics and link facts (ioctl/netlink, or fixture files).
  bool link_stats = true;     ///< With `ethtool`: PAUSE/FEC/LINKSTATE statistics and STATS_GET.
  bool module_eeprom = true;  ///< With `ethtool`: module EEPROM (slow I2C reads: off for --watch).
  /// Only these devices (an ibdev "mlx5_0", a port "mlx5_0/1" or a netdev); empty = all.
  std::vector<std::string> devices;
};

/// The kernel transports a live read uses; tests pass fakes. Not owned; nullptr = the real one
/// (an AF_INET SIOCETHTOOL socket, libnl-genl), opened by the pipeline.
struct CounterTransports {
  const EthtoolIoctl* ioctl = nullptr;
  const EthtoolNetlinkTransport* netlink = nullptr;
};

/// Reads counter snapshots of the host (or fixture tree) behind an FsRoot. A live /sys is
/// read through the transports; a fixture tree through its ethtool/ files, never the live host.
/// Snapshots are stamped and windows waited on `clock` (nullptr = real_clock(); not owned).
/// Cheap to construct; each snapshot() reads every counter file once (see
/// read_counter_snapshot() for costs and sources).
class CounterPipeline {
 public:
  explicit CounterPipeline(CounterSources sources, CounterTransports transports = {},
                           const Clock* clock = nullptr);
  ~CounterPipeline();
  CounterPipeline(const CounterPipeline&) = delete;
  CounterPipeline& operator=(const CounterPipeline&) = delete;

  /// One snapshot of `fs`. Never fails as a whole: unreadable parts are Snapshot::gaps.
  Snapshot snapshot(const FsRoot& fs) const;
  /// The options read_counter_snapshot() gets for `fs`, and the sources behind them; valid
  /// while this pipeline lives. Used by the --watch loop, which snapshots repeatedly.
  struct Bound {
    CounterReadOptions options;
    std::unique_ptr<EthtoolStatsSource> stats;
    std::unique_ptr<EthtoolLinkSource> link;
  };
  Bound bind(const FsRoot& fs) const;
  /// Where driver statistics of `fs` come from ("SIOCETHTOOL ioctl", "fixture files <dir>",
  /// "not read (--no-ethtool)").
  std::string describe_stats(const FsRoot& fs) const;
  /// Where link facts and module pages of `fs` come from.
  std::string describe_link(const FsRoot& fs) const;
  /// The clock snapshots are stamped with; an --interval window is waited on it.
  const Clock& clock() const { return *clock_; }

 private:
  CounterSources sources_;
  CounterTransports transports_;
  const Clock* clock_;
  std::unique_ptr<EthtoolIoctl> own_ioctl_;
  std::unique_ptr<EthtoolNetlinkTransport> own_netlink_;
};

/// What one snapshot, or the window between two, says: the input of the interpretation and
/// of every counters view, whatever the source (live host, fixture tree, triage rank).
struct CounterObservation {
  std::vector<PortInfo> ports;          ///< Of the later snapshot.
  std::vector<CounterChange> changes;   ///< Deltas over the window, or single readings.
  std::optional<double> window_s;       ///< Seconds the deltas cover; empty = a single snapshot.
  std::vector<Error> gaps;              ///< Both snapshots' gaps, each line once.
  std::vector<LinkFacts> links;         ///< ethtool link facts of the later snapshot.
  std::vector<ModuleDiagnostics> optics;  ///< Module diagnostics of the later snapshot.
};

/// The observation of `first` alone (`second` null: readings, no window) or of the window from
/// `first` to `second` lasting `window_s` seconds (deltas and rates; compute_delta()). `first`
/// is taken by value: a caller done with it moves it in, and its counters are not copied.
CounterObservation observe_counters(Snapshot first, const Snapshot* second,
                                    std::optional<double> window_s);

/// The interpretation of an observation (rules/counter_interpret.h): one finding per symptom
/// and link, with the optics judged too.
CounterInterpretation interpret_observation(const CounterObservation& obs);

}  // namespace fabdiag
