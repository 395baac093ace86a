// What the MPI benchmark readers (OSU micro-benchmarks, import/osu.h; Intel MPI Benchmarks,
// import/imb.h) share: the text of a line once launcher decorations are dropped, a table
// header split into its column names, and the judgement of a bandwidth-per-size sweep (the
// line rate, a drop at some size). Thresholds and their sources: docs/fabric.md#mpi-benchmarks.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/finding.h"

namespace fabdiag {

/// Share of the line rate under which the best bandwidth of a sweep is a warning: the 90% that
/// `import nccl-tests --line-rate` judges busbw by (import/nccl_tests.h).
inline constexpr double kMpiBenchBelowLineRateShare = 0.9;
/// Sizes from which a sweep is judged against the line rate: 1 MiB (OSU and IMB stop at 4 MiB by
/// default; below about 1 MiB a point-to-point sweep is latency-bound on 100-400 Gb/s links).
inline constexpr uint64_t kMpiBenchMinLineRateSizeBytes = uint64_t{1} << 20;
/// A size from 64 KiB up whose bandwidth is under half of the best of the smaller sizes is a drop
/// (the eager/rendezvous switch and cache effects sit below 64 KiB and are not judged).
inline constexpr uint64_t kMpiBenchMinDropSizeBytes = uint64_t{64} << 10;
inline constexpr double kMpiBenchDropShare = 0.5;

/// The text of one benchmark output line without what launchers and CI logs put around it:
/// Open MPI tags ("[1,0]<stdout>:"), a "[0] " rank tag, a Jenkins "00:55:22 " clock and a
/// pdsh/clush "host: " prefix; trimmed. `host` gets the prefix's host ("" when none).
std::string mpi_bench_line_text(std::string_view raw, std::string* host = nullptr);

/// A column header split where two or more blanks (or a tab) separate names:
/// "# Size       Avg Latency(us)   Min Latency(us)" after "# " -> {"Size", "Avg Latency(us)",
/// "Min Latency(us)"}. `text` is given without its leading '#'.
std::vector<std::string> split_header_columns(std::string_view text);

/// A count or size read as a double (IMB prints all columns alike) as an integer: clamped to
/// [0, 2^63) so that no input makes the conversion undefined.
inline uint64_t mpi_bench_count(double v) {
  return v > 0 ? (v < 9.2e18 ? static_cast<uint64_t>(v) : uint64_t{9200000000000000000u}) : 0;
}

/// One point of a sweep: a message size and its bandwidth.
struct BandwidthPoint {
  uint64_t size_bytes = 0;
  double bytes_per_s = 0;
  size_t line = 0;  ///< 1-based input line, for evidence.
};

/// What a sweep is, for messages and findings.
struct SweepSubject {
  std::string code_prefix;  ///< "osu" or "imb": codes are <prefix>_bandwidth_below_line_rate, <prefix>_bandwidth_drop.
  std::string subject;      ///< "osu_bw (OSU MPI-CUDA Bandwidth Test v7.2)".
  std::string source;       ///< The input file.
  /// Line rates the sweep can reach: 1 for one direction (osu_bw, PingPong), 2 for both
  /// directions at once (osu_bibw, Sendrecv, Exchange count both).
  double directions = 1;
};

/// A warn <prefix>_bandwidth_below_line_rate (L1) when the best bandwidth at sizes >= 1 MiB is
/// below 90% of `directions` x `line_rate_gbit_per_s` (Gb/s = 1e9 bit/s); nullopt when the rate
/// is not given, the sweep has no such size, or it reaches 90%.
std::optional<Finding> sweep_below_line_rate(const std::vector<BandwidthPoint>& sweep, const SweepSubject& s,
                                             std::optional<double> line_rate_gbit_per_s);

/// A warn <prefix>_bandwidth_drop (L1) at the first size >= 64 KiB whose bandwidth is under half
/// of the best bandwidth of the smaller sizes (a path that stalls past some size: a NIC or
/// switch buffer, a rendezvous protocol failing over, a flapping link); nullopt when none.
std::optional<Finding> sweep_drop(const std::vector<BandwidthPoint>& sweep, const SweepSubject& s);

/// Both sweep judgements above, in that order, appended to `out` (each only when it fires).
void add_sweep_findings(const std::vector<BandwidthPoint>& sweep, const SweepSubject& s,
                        std::optional<double> line_rate_gbit_per_s, std::vector<Finding>& out);

/// One message size of the tests past the listing bound (OSU tests, IMB blocks): one column's
/// values (as printed: MB/s, us) over the runs of that title and size.
struct BenchRepeat {
  std::string title;
  std::string column;
  uint64_t size_bytes = 0;
  size_t runs = 0;
  double min = 0, max = 0, sum = 0;
};

/// The tests past the listing bound (ReadLimits::max_listed: a benchmark run in a loop, a log of
/// many runs), summarised as they finish: counted, each title and size as min/mean/max. Memory
/// follows the distinct titles and sizes, not the runs.
struct BenchNotListed {
  size_t tests = 0;
  size_t first_line = 0, last_line = 0;  ///< Title lines of the first and last test summarised.
  std::vector<BenchRepeat> sizes;        ///< In first-seen order.

  /// Counts one test more (its title at `line`).
  void add_test(size_t line);
  /// Adds one value of `title`'s `column` at `size_bytes`.
  void add(const std::string& title, const std::string& column, uint64_t size_bytes, double v);
  /// {tests, first_title_line, last_title_line, sizes[] {title, column, size_bytes, runs, min, mean, max}}.
  nlohmann::json to_json() const;

 private:
  std::map<std::string, size_t> at_;  // "title|column|size" -> sizes
};

/// Which finished entries (OSU tests, IMB blocks, perftest runs) a reader keeps listed under
/// ReadLimits::max_listed: the first max_listed, then those with a finding of their own up to as
/// many more; the others are summarised (BenchNotListed) and dropped. 0 = keep all.
class ListingBound {
 public:
  explicit ListingBound(size_t max_listed = 0) : max_(max_listed) {}
  /// True when the entry just finished, the `listed`-th listed counting itself, stays listed;
  /// `has_finding()` (-> bool) is asked only past the bound.
  template <class HasFinding>
  bool keeps(size_t listed, HasFinding has_finding) {
    if (max_ == 0 || listed <= max_) return true;
    if (kept_late_ < max_ && has_finding()) {
      ++kept_late_;
      return true;
    }
    return false;
  }

 private:
  size_t max_;
  size_t kept_late_ = 0;  // entries past the bound kept for a finding of their own
};

}  // namespace fabdiag
