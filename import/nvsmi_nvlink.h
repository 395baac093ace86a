// Import of `nvidia-smi nvlink -s` / `nvidia-smi nvlink --status` (per GPU, per link: "Link 3:
// 25 GB/s" or "Link 3: <inactive>", or NVML's "Unable to retrieve NVLink information as all links
// are inactive") and `nvidia-smi nvlink -e` (per link error counters: "Link 0: Replay Errors: 0",
// "Recovery Errors", "CRC Errors"; any "<name> Errors: N" a driver prints is kept under its own
// name). Several captures in one file ("###" titles, two hosts' GPUs, -s and -e of the same GPUs)
// are merged per GPU index and UUID. docs/gpu_readers.md#nvidia-smi-nvlink.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/finding.h"
#include "core/line_source.h"
#include "core/result.h"
#include "import/input_reader.h"

namespace fabdiag {

/// One NVLink of one GPU.
struct NvlinkLink {
  int link = 0;                             ///< "Link 3" -> 3.
  std::string state;                        ///< As printed: "25 GB/s", "<inactive>"; empty when -s was not read.
  std::optional<double> speed_bytes_per_s;  ///< Per direction, 1 GB/s = 1e9 bytes/s; nullopt when not up.
  std::map<std::string, uint64_t> errors;   ///< "replay_errors", "recovery_errors", "crc_errors", ... (-e).
  size_t line = 0;                          ///< First line about this link.
};

/// One GPU of the output: "GPU 7: NVIDIA A100-SXM4-80GB (UUID: GPU-...)".
struct NvlinkGpu {
  int index = 0;
  std::string name;  ///< "NVIDIA A100-SXM4-80GB".
  std::string uuid;  ///< "GPU-..."; empty when not printed.
  bool all_inactive = false;  ///< NVML's "Unable to retrieve NVLink information as all links are inactive".
  std::vector<NvlinkLink> links;  ///< In link order.
  size_t line = 0;

  /// True when the status (-s) of this GPU was read: NVML's sentence or a link state.
  bool status_known() const;
  /// Links with a speed.
  size_t active_links() const;
  /// The sum of the active links' speeds, bytes/s (per direction).
  double total_bytes_per_s() const;
};

/// Everything read from one file.
struct NvsmiNvlinkImport {
  std::string source;
  std::vector<NvlinkGpu> gpus;  ///< In order of first appearance.
  bool status_read = false;     ///< Some "Link N: <speed>|<inactive>" line or the NVML sentence.
  bool errors_read = false;     ///< Some "Link N: <name> Errors: N" line.
  std::vector<Error> gaps;      ///< A cut last line, lines of a link before any "GPU N:" line.
};

/// Reads the output, streamed. Other lines ("###" titles, shell prompts) are skipped.
/// Errors: kParse naming "SOURCE:LINE" (the first line that is not one) when there is no "GPU N:"
/// header followed by a link line or NVML's sentence; kIo of the line source.
Result<NvsmiNvlinkImport> import_nvsmi_nvlink(LineSource& lines, const std::string& source, const ReadLimits& limits);

/// The same over a text held in memory.
Result<NvsmiNvlinkImport> import_nvsmi_nvlink(std::string_view text, const std::string& source);

/// The findings (docs/gpu_readers.md#nvidia-smi-nvlink): a GPU without any active NVLink (error
/// when it is an SXM part or another GPU of the input has links up; info on a PCIe or lone GPU),
/// some links inactive (error), active links slower than the GPU's fastest (warn), non-zero
/// error counters (warn), each naming the GPU (subject "GPU <index>") and its links.
std::vector<Finding> nvsmi_nvlink_findings(const NvsmiNvlinkImport& imp);

/// The `data` of the fabdiag.gpulinks/1 envelope: {"tool": "nvidia-smi nvlink", "gpus": [{gpu_index,
/// name, uuid, links_listed, links_active, all_links_inactive, link_speed_bytes_per_s (fastest),
/// total_bytes_per_s, error_counters, links: [{link, state, speed_bytes_per_s, errors}]}]}.
nlohmann::json nvsmi_nvlink_data(const NvsmiNvlinkImport& imp);

}  // namespace fabdiag
