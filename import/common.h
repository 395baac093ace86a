// What every counter importer (probes/import_*.h) shares: the result type (snapshots of the
// counter model, in time order per device), "###" sections (import/text_sections.h), and `path:value` sysfs lines as
// `grep "" /sys/class/infiniband/.../hw_counters/*` prints them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "probes/counters/counter_model.h"
#include "import/text_sections.h"

namespace fabdiag {

/// Counters read from another tool's output, in the model of probes/counters/counter_model.h.
struct CounterImport {
  std::string format;  ///< "ethtool-s", "ethtool-m", "perfquery", "ibqueryerrors", "rdma-statistic", "syslog".
  std::string source;  ///< The file ("-" = stdin).
  std::vector<PortInfo> ports;
  /// One time series per device stream (for example the `ethtool -S` sections of one netdev,
  /// or one block of sysfs lines): snapshots in time order. One snapshot = cumulative readings;
  /// two or more = a delta from the first to the second (later ones are kept for the record).
  std::vector<std::vector<Snapshot>> series;
  std::vector<ModuleDiagnostics> optics;  ///< Optical modules (ethtool -m).
  std::vector<Error> gaps;   ///< What could not be read (lines, truncated sections).
  nlohmann::json facts = nlohmann::json::object();  ///< Format-specific facts (tool summaries, aggregates).
  std::vector<std::string> notes;  ///< Assumptions made while reading ("port ALL is not a port").
};

/// True when most non-blank lines of `text` are sysfs "path:value" lines under
/// class/infiniband or class/net (with or without a leading /sys/).
bool looks_like_sysfs_lines(std::string_view text);

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

/// "file:line" for evidence and errors.
std::string line_source(const std::string& source, size_t line);

}  // namespace fabdiag
