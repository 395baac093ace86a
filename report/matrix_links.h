// The link verdicts of a report, stored (ReportModel::links) and made from pairwise matrices
// (ReportModel::matrix_links) when they are visited: a 1500-host pairwise result has 1.1
// million links, which as stored verdicts took gigabytes (docs/report.md#memory). Every
// renderer reads links through these functions, in one order: the stored ones with each
// matrix's links at its place.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "report/result_model.h"

namespace fabdiag {

/// Where a link verdict comes from: a stored one (`block` == kStored, `i` its index in
/// ReportModel::links) or the pair hosts[i] <-> hosts[j] (i < j) of matrix_links[block].
struct LinkRef {
  static constexpr size_t kStored = static_cast<size_t>(-1);
  size_t block = kStored;
  size_t i = 0, j = 0;
};

/// What selecting and counting links needs, without the verdict's texts: its place, status
/// and margin (as Verdict::margin_pct).
struct LinkOutline {
  LinkRef ref;
  Outcome status = Outcome::kPass;
  std::optional<double> margin_pct;
};

/// Calls `fn` with the outline of every link of `m` in order. Cost: a few comparisons per
/// matrix pair, no allocation.
void for_each_link_outline(const ReportModel& m, const std::function<void(const LinkOutline&)>& fn);

/// The whole verdicts of `refs` (from for_each_link_outline or links_to_list), in their order:
/// a matrix's link has subject "a<->b", both directions as evidence, the slower one as the
/// measure against the fleet median, and the reason of its status.
std::vector<Verdict> link_verdicts(const ReportModel& m, const std::vector<LinkRef>& refs);

/// Calls `fn` with every link verdict of `m` in order; each lives during its call only.
void for_each_link(const ReportModel& m, const std::function<void(const Verdict&)>& fn);

/// How many links for_each_link() visits.
size_t link_count(const ReportModel& m);

/// Every link verdict of `m` in order, stored: for small models and tests (a 1500-host matrix
/// gives 1.1 million).
std::vector<Verdict> all_links(const ReportModel& m);

/// Whether matrix `b` of `m` makes a link whose subject is exactly `subject` ("a<->b" with a
/// before b in the matrix's host order, measured in at least one direction).
bool matrix_makes_link(const ReportModel& m, const MatrixLinks& b, const std::string& subject);

/// Whether matrix `b` of `m` makes the link of hosts `x` and `y` (in either order).
bool matrix_has_pair(const ReportModel& m, const MatrixLinks& b, const std::string& x, const std::string& y);

/// The most links a table lists (the HTML page, the table and Markdown views); the JSON report
/// lists every one.
inline constexpr size_t kMaxListedLinks = 2000;

/// At most `limit` links for a table that cannot list them all: every link when there are at
/// most `limit`, else those that did not pass (in order), then the passing ones with the least
/// margin (ties in order), up to `limit`; what a stable sort on (passed, margin) would list
/// first, found in one pass that keeps `limit` outlines.
std::vector<LinkRef> links_to_list(const ReportModel& m, size_t limit);

}  // namespace fabdiag
