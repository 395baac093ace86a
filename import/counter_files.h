// `fabdiag counters --from FILE...` and `fabdiag import ethtool-s|... FILE`: saved tool outputs
// read, detected, imported and merged into what the counter interpretation takes, keeping only
// the --device selection.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "import/counter_formats.h"
#include "import/input_reader.h"

namespace fabdiag {

/// Which saved outputs to read and how.
struct CounterFilesSpec {
  std::vector<std::string> files;            ///< In order; "###" sections are snapshots.
  std::optional<CounterImportFormat> format; ///< Every file's format; nullopt = detected per file.
  std::string netdev;      ///< The netdev of ethtool -S / -m text that does not name it.
  double interval_s = 0;   ///< Seconds between "###" sections; 0 = unknown (deltas, no rates).
  /// Only these devices (an ibdev, a port "mlx5_0/1" or a netdev); empty = all.
  std::vector<std::string> devices;
  ReadLimits limits;       ///< Repeats listed per kind (--max-findings).
};

/// The merged imports, ready for the interpretation.
struct ImportedCounters {
  InterpretInput input;              ///< Ports, changes and optics of the selected devices.
  std::vector<Error> gaps;           ///< What could not be read, of every file.
  std::vector<std::string> notes;    ///< Assumptions made (combine_imports() and --interval).
  /// One object per file: {"file", "format", "snapshots" (count), "facts" (format-specific)}.
  nlohmann::json files = nlohmann::json::array();
};

/// Reads each of spec.files through `read`, streamed: its format from its first lines
/// (counter_format_of(): spec.format checked against other tools' markers, else detected),
/// then the importer over all its lines (import_counters()); merges all (combine_imports(),
/// window = spec.interval_s when > 0; a note when there is no delta for it to apply to) and
/// keeps the devices spec.devices picks (device_filter.h: a port by its name, ibdev or netdev;
/// a counter by its device's port; a module by its netdev).
/// Errors, at the first file or name that fails: those of `read`; those of counter_format_of()
/// (another tool's output, nothing known); the importer's error, with context "importing FORMAT";
/// kNotFound "no device named "NAME" in the imported files" for a name that picks no port.
Result<ImportedCounters> import_counter_files(const CounterFilesSpec& spec, const InputLineReader& read);

}  // namespace fabdiag
