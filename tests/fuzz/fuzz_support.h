// What the libFuzzer targets of tests/fuzz share: each target feeds its input to the library
// entry point the CLI calls for that input, then renders what came back the way the CLI does
// (the envelope as JSON, the Prometheus text for counters), so a crash, hang, leak or undefined
// behaviour anywhere between reading and rendering is found. scripts/test-sanitize.sh builds and
// runs them (README "Tests"); a fuzz target never judges the answer, only that nothing breaks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/fs_root.h"
#include "import/counter_formats.h"
#include "import/host_formats.h"

namespace fabdiag::fuzz {

/// The fuzzer's bytes as text (readers take any bytes, NULs and invalid UTF-8 included).
inline std::string_view as_text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// Renders an envelope-like JSON document as the CLI's `--format json` does (invalid UTF-8
/// replaced) and discards it.
void render(const nlohmann::json& doc);

/// `fabdiag import FORMAT FILE` / `counters --from FILE [--from-format FORMAT]`:
/// import_counter_files() over one file holding `text` (format nullopt = detected, as
/// `--from-format auto`), then the interpretation (interpret_observation()), the metric
/// families (`--format prometheus`) and the JSON of what was read.
void fuzz_counter_import(std::optional<CounterImportFormat> format, std::string_view text);

/// `fabdiag import lspci|ibstat|ibstatus|ibv-devinfo FILE` and `check --from FILE`:
/// import_host_facts() (kAuto = detected per section), host_facts_data(), run_checks().
void fuzz_host_import(InputFormat format, std::string_view text);

/// A throw-away sysfs/procfs tree built from "path:value" lines, the format of
/// scripts/sysfs-from-lines.sh and of the sysfs case files:
///   /sys/class/infiniband/mlx5_0/ports/1/state:4: ACTIVE       a file and its content
///   /sys/class/net/eth0/device -> ../../devices/pci0000:00/...  a relative symbolic link
///   /proc/cmdline:BOOT_IMAGE=... iommu=pt                       a procfs file
/// A path without "/sys/" or "/proc/" is under the sysfs root. Unlike the script, a path that
/// appears again gets the value as a further line (so `ethtool/<netdev>` files of `ethtool -S`
/// text and `ethtool-module/<netdev>` page dumps can be written), and what the script refuses
/// (an absolute or ".." path, a link out of the tree, more than 2048 lines) is skipped: a fuzz
/// input is never an error. Files end with a newline, like sysfs attributes.
class ScratchTree {
 public:
  /// Creates an empty tree in a fresh directory under $TMPDIR (or /tmp).
  ScratchTree();
  ~ScratchTree();
  ScratchTree(const ScratchTree&) = delete;
  ScratchTree& operator=(const ScratchTree&) = delete;

  /// Empties the tree and builds it from `lines`.
  void build(std::string_view lines);
  /// The tree as FsRoot: sysfs root <dir>/sys, procfs root <dir>/proc.
  FsRoot fs() const;

 private:
  std::string dir_;
};

}  // namespace fabdiag::fuzz
