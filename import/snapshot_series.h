// The snapshots of one device stream (one netdev's `ethtool -S` sections, one perfquery port),
// held in bounded memory however many the input repeats.
#pragma once

#include <cstddef>
#include <vector>

#include "probes/counters/counter_model.h"

namespace fabdiag {

/// Snapshots in time order, of which the first two (the window's before and after: the delta)
/// and the latest (the last absolute values) are kept; those in between are counted, not kept.
/// So a capture of 10,000 snapshots of a NIC costs three.
class SnapshotSeries {
 public:
  /// The number kept (at most 3: first, second, latest).
  static constexpr size_t kKept = 3;

  /// Adds `s` as the newest snapshot (replacing the latest kept one past the second).
  void push(Snapshot s) {
    ++read_;
    if (kept_.size() < kKept) kept_.push_back(std::move(s));
    else kept_.back() = std::move(s);
  }
  /// Adds an empty snapshot and returns it, to be filled.
  Snapshot& push_empty() {
    push(Snapshot{});
    return kept_.back();
  }
  /// Snapshots read in all (kept and counted).
  size_t read() const { return read_; }
  /// Kept snapshots: [first], [first, second] or [first, second, latest].
  size_t size() const { return kept_.size(); }
  bool empty() const { return kept_.empty(); }
  const Snapshot& operator[](size_t i) const { return kept_[i]; }
  Snapshot& operator[](size_t i) { return kept_[i]; }
  /// Bounds-checked (std::out_of_range).
  const Snapshot& at(size_t i) const { return kept_.at(i); }
  const Snapshot& back() const { return kept_.back(); }
  Snapshot& back() { return kept_.back(); }
  auto begin() const { return kept_.begin(); }
  auto end() const { return kept_.end(); }

 private:
  std::vector<Snapshot> kept_;
  size_t read_ = 0;
};

}  // namespace fabdiag
