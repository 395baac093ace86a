// What `fabdiag counters` interprets, wherever it comes from: the live host or a fixture tree
// (cmd/counters.cpp), or saved tool outputs given with --from (cmd/counters_from.cpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cmd/commands.h"
#include "collect/counter_pipeline.h"

namespace fabdiag::cmd {

/// Counters ready for the interpretation and the document.
struct CountersInput : CounterObservation {
  std::string ethtool_desc;            ///< Where driver statistics came from (sysfs path).
  std::string link_desc;               ///< Where link facts and module pages came from.
  bool imported = false;               ///< Read from --from files.
  nlohmann::json imports = nlohmann::json::array();  ///< Per file: {file, format, snapshots, facts}.
  std::vector<std::string> notes;      ///< Assumptions made while importing.
};

/// Reads o.from with import_counter_files() (import/counter_files.h: format o.from_format, else
/// detected per file; o.netdev names the netdev of ethtool -S / -m text; o.interval_s > 0 is
/// the time between "###" sections) into `in`, keeping only o.devices when given. Returns the
/// exit code when it cannot (2: a file is missing or not in a format we read, an unknown
/// --from-format or --device; 70: a file cannot be read), nullopt when `in` is ready.
std::optional<int> read_counters_from_files(const CountersOptions& o, CountersInput& in);

}  // namespace fabdiag::cmd
