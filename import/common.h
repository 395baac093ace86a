// What every counter importer (probes/import_*.h) shares: the result type (snapshots of the
// counter model, in time order per device), "###" sections (import/text_sections.h), and `path:value` sysfs lines as
// `grep "" /sys/class/infiniband/.../hw_counters/*` prints them.
#pragma once

#include "core/line_source.h"

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "probes/counters/counter_model.h"
#include "import/snapshot_series.h"
#include "import/text_sections.h"

namespace fabdiag {

/// Counters read from another tool's output, in the model of probes/counters/counter_model.h.
struct CounterImport {
  std::string format;  ///< "ethtool-s", "ethtool-m", "perfquery", "ibqueryerrors", "rdma-statistic", "syslog".
  std::string source;  ///< The file ("-" = stdin).
  std::vector<PortInfo> ports;
  /// One time series per device stream (for example the `ethtool -S` sections of one netdev,
  /// or one block of sysfs lines): snapshots in time order. One snapshot = cumulative readings;
  /// two or more = a delta from the first to the second (the latest is kept for the record,
  /// those in between only counted: import/snapshot_series.h).
  std::vector<SnapshotSeries> series;
  std::vector<ModuleDiagnostics> optics;  ///< Optical modules (ethtool -m).
  std::vector<Error> gaps;   ///< What could not be read (lines, truncated sections).
  nlohmann::json facts = nlohmann::json::object();  ///< Format-specific facts (tool summaries, aggregates).
  std::vector<std::string> notes;  ///< Assumptions made while reading ("port ALL is not a port").
};

/// True when most non-blank lines of `text` are sysfs "path:value" lines under
/// class/infiniband or class/net (with or without a leading /sys/).
bool looks_like_sysfs_lines(std::string_view text);

/// True when `line` is a sysfs "path:value" line under class/infiniband or class/net.
bool is_sysfs_line(std::string_view line);

/// Reads one sysfs "path:value" line (as read_sysfs_lines() below) numbered `line_no` into
/// `snap` and `ports`; false when it is not such a line (nothing is read).
bool read_sysfs_line(std::string_view line, const std::string& source, size_t line_no, Snapshot& snap,
                     std::vector<PortInfo>& ports);

/// Reads sysfs "path:value" lines into `snap` (counters and port attributes) and `ports`:
///   [/sys/]class/infiniband/<ibdev>/ports/<n>/counters/<name>     ib_port_counters
///   [/sys/]class/infiniband/<ibdev>/ports/<n>/hw_counters/<name>  ib_hw_counters ("lifespan" skipped)
///   [/sys/]class/infiniband/<ibdev>/hw_counters/<name>            ib_hw_counters, device <ibdev>
///   [/sys/]class/infiniband/<ibdev>/ports/<n>/{state,phys_state,rate,link_layer}
///   [/sys/]class/net/<if>/statistics/<name>, class/net/<if>/carrier_*  netdev_stats
/// The driver is guessed from the ibdev name ("mlx5_0" -> mlx5 widths). Other paths are
/// ignored; a value that is not a number is a kParse gap naming the line.
void read_sysfs_lines(const TextSection& section, const std::string& source, Snapshot& snap,
                      std::vector<PortInfo>& ports);

/// Adds `p` to `ports` unless a port with the same device is there; fills empty attributes of
/// the one that is.
void merge_port(std::vector<PortInfo>& ports, const PortInfo& p);

/// `line` without the tags Open MPI's `mpirun --tag-output` writes ("[1,0]<stdout>:",
/// "[1,12]<stderr>:"), wherever they are: at the start, and inside a line where the output of
/// two ranks was interleaved.
std::string strip_launcher_tags(std::string_view line);

/// "file:line" for evidence and errors.
std::string line_source(const std::string& source, size_t line);

/// Appends to `gaps` the lines `lines` cut at kMaxLineBytes (core/line_source.h), if any: "N
/// line(s) longer than 4 MiB were cut: the rest of each was not read" (kParse naming `source`).
/// Every streaming reader calls it once its input ends, so a runaway line is never silent.
void add_cut_lines_gap(const LineSource& lines, const std::string& source, std::vector<Error>& gaps);

/// Lines of one kind counted while streaming: how many, and the first (number and text).
struct LineTally {
  size_t count = 0;
  size_t first = 0;         ///< 1-based line number of the first; 0 when none.
  std::string first_text;   ///< That line, quoted and cut (quote_line()).
  void add(size_t line, std::string_view text = {});
};

/// The error of an input that is not the named format: kParse naming "SOURCE:LINE" of the first
/// line that is not `expected` ("expected perfquery output (...), found none; the first line:
/// \"...\""), or SOURCE alone for an empty input.
Error not_this_format(const std::string& expected, const std::string& source, const LineTally& other);

}  // namespace fabdiag
