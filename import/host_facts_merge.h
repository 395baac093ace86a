// Host facts of several captures merged into one host's facts: the "###" sections of one input
// (a capture repeated by a loop, pdsh pastes of one host, a case file) and the files of
// `fabdiag check --from a.txt b.txt`. A record read again under the same key (a later capture of
// the same link, port or counter) replaces the earlier one in its place, so memory and output
// follow the distinct things the inputs name, not how often they name them
// (docs/ARCHITECTURE.md#import-memory).
#pragma once

#include <cstddef>
#include <string>
#include <unordered_set>
#include <vector>

#include "core/repeats.h"
#include "import/latest_records.h"
#include "probes/check/check_model.h"

namespace fabdiag {

/// The merge of HostFacts added in reading order (later = newer). Keys:
///  - pcie_links, acs_ports, aer: the function's BDF ("0000:17:00.0");
///  - rdma_ports: (ibdev, port) ("mlx5_0/1"), else `device`; a later record takes what it does
///    not report (an empty field, nullopt) from the earlier one: ibv_devinfo without -v prints
///    no rate, ibstat no MTU, so ibstat then ibv_devinfo of one port keeps both;
///  - counters: (device, group, name), as compute_delta() matches them;
///  - a record without its key (an lspci grep without headers: a LnkCap/LnkSta fragment, a loose
///    ACSCtl line): its position among the key-less records of its kind in the added facts,
///    within the `scope` given to add(), so the same grep captured again under the same section
///    title replaces the earlier one, and different titles or files are all kept.
/// Records of different keys are all kept, in the order first read. gdr, iommu and each
/// not_read entry: the first read is kept. wc_errors (events, not states) are appended. gaps:
/// appended, at most `max_gaps_per_kind` of each kind (core/repeats.h; 0 = all). origin: the
/// distinct origins joined with "; ", the first kMaxOrigins, then "... and N more".
class HostFactsMerge {
 public:
  /// Distinct origins listed before the rest is counted.
  static constexpr size_t kMaxOrigins = 8;

  explicit HostFactsMerge(size_t max_gaps_per_kind = 0) : gaps_(max_gaps_per_kind) {}

  /// Merges `more` (the facts of one section or file). `scope` names where it was read (a
  /// section title, a file name) for the key-less records only.
  void add(HostFacts more, const std::string& scope);

  /// The merged facts (the merge is left empty).
  HostFacts take();

  /// Records that replaced an earlier one of the same key, of every kind.
  size_t replaced() const;

 private:
  void add_origin(std::string origin);

  HostFacts facts_;
  LatestRecords links_, acs_, aer_, ports_, counters_;
  std::vector<std::string> origins_;
  std::unordered_set<std::string> origins_not_listed_;  // bounded by the inputs' tools and files
  BoundedErrors gaps_;
};

}  // namespace fabdiag
