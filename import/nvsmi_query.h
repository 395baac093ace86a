// Import of `nvidia-smi -q` text (the full query, any `-d` subset, a `-l` loop of it, pdsh
// "host: " prefixes, and `grep -A` fragments of its sections). Per GPU block ("GPU
// 00000000:18:00.0") the reader keeps what says whether the GPU and its host link are healthy:
// PCI > GPU Link Info (PCIe generation and width, max and current; replays), ECC mode and the
// volatile / aggregate ECC counters (SRAM/DRAM correctable and uncorrectable, the older Single /
// Double Bit form), Retired Pages, Remapped Rows, Clocks Event Reasons (Clocks Throttle Reasons
// before driver 530) and their counters, Fabric (state, status, health on HGX / NVL systems),
// GPU Reset Status and the temperatures. docs/gpu_readers.md#nvidia-smi--q.
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

/// A value as nvidia-smi printed it ("16x", "N/A", "Not Active") and the line it came from.
struct NvsmiField {
  std::string text;
  size_t line = 0;
  /// The leading integer ("16x" -> 16, "5" -> 5, "2560 bank(s)" -> 2560); nullopt for "N/A",
  /// a negative, more than 18 digits, or digits run into other characters ("1e30", "4e1x", "3.5").
  std::optional<uint64_t> number() const;
  /// Printed, not "N/A", and still no number(): a value this reader cannot trust.
  bool unreadable() const;
  bool yes() const { return text == "Yes"; }
};

/// One GPU block of the output. Fields nvidia-smi did not print stay empty (text "").
struct NvsmiQueryGpu {
  std::string host;     ///< From a "host: " prefix; "" when none.
  std::string bus_id;   ///< As printed: "00000000:18:00.0"; "" for a fragment without a GPU header.
  std::string pci_bdf;  ///< "0000:18:00.0" (4-digit domain, lower case); "" when bus_id is.
  /// nvidia-smi's GPU index: the block's position on its host when the output lists every
  /// attached GPU ("Attached GPUs : 8" and 8 blocks, NVML order = PCI bus order); nullopt for
  /// `-i N` subsets and fragments.
  std::optional<int> index;
  size_t line = 0;     ///< The GPU header line (or the fragment's first line).
  size_t samples = 0;  ///< Blocks of this GPU read (`nvidia-smi -q -l N` repeats them; the last wins).

  NvsmiField product_name, uuid, serial, minor_number, module_id, performance_state;
  // PCI > GPU Link Info.
  NvsmiField gen_max, gen_current, gen_device_max, gen_host_max, gen_device_current;
  NvsmiField width_max, width_current;
  NvsmiField replays, replay_rollovers;
  // ECC.
  NvsmiField ecc_mode_current, ecc_mode_pending, sram_threshold_exceeded;
  /// ECC counters per scope ("volatile", "aggregate"), by snake_case name: "sram_correctable",
  /// "sram_uncorrectable_parity", "dram_uncorrectable", "double_bit/total" (pre-Ampere form).
  std::map<std::string, std::map<std::string, NvsmiField>> ecc;
  // Retired Pages (pre-Ampere) and Remapped Rows (Ampere and later).
  NvsmiField retired_sbe, retired_dbe, retired_pending;
  NvsmiField remap_correctable, remap_uncorrectable, remap_pending, remap_failure;
  /// "Clocks Event Reasons" / "Clocks Throttle Reasons" flags: "HW Slowdown" -> "Active".
  std::map<std::string, NvsmiField> clock_reasons;
  std::string clock_reasons_title;  ///< Which of the two names the driver printed.
  /// "Clocks Event Reasons Counters" (driver 550+): "HW Thermal Slowdown" -> "0 us".
  std::map<std::string, NvsmiField> clock_reason_counters;
  // Fabric (HGX / NVL: the GPU's registration with Fabric Manager / NVLink fabric).
  NvsmiField fabric_state, fabric_status;
  std::map<std::string, NvsmiField> fabric_health;  ///< "Bandwidth" -> "Full", ...
  NvsmiField reset_required, drain_and_reset;
  NvsmiField temp_current, temp_slowdown, temp_shutdown, temp_max_operating;

  /// Sum of the uncorrectable ECC counters of `scope` ("volatile", "aggregate"): every
  /// "*uncorrectable*" counter, else "double_bit/total"; nullopt when none is a number.
  std::optional<uint64_t> uncorrectable(const std::string& scope) const;
  /// "GPU 3 (0000:18:00.0, NVIDIA H100 80GB HBM3)" on host: for messages.
  std::string label() const;
  /// "[host ]pci_bdf" (or "[host ]GPU ?" for a fragment): the finding subject.
  std::string subject() const;
};

/// Everything read from one file.
struct NvsmiQueryImport {
  std::string source;
  std::string driver_version, cuda_version;  ///< Of the first log header.
  std::vector<NvsmiQueryGpu> gpus;           ///< In order of first appearance (per host, NVML order).
  size_t logs = 0;                           ///< "==============NVSMI LOG==============" headers.
  std::vector<Error> gaps;                   ///< A cut last line or GPU block, lines not understood.
};

/// Reads the output, streamed: one GPU block's fields at a time (a `-l` loop of the same GPUs
/// keeps memory flat). Lines are "Key : Value" or section titles, nested by indentation.
/// Errors: kParse naming "SOURCE:LINE" when no GPU header, NVSMI LOG header or known section
/// (PCI link, ECC, Retired Pages, Remapped Rows, Clocks reasons, Fabric) is found; kIo of the
/// line source.
Result<NvsmiQueryImport> import_nvsmi_query(LineSource& lines, const std::string& source, const ReadLimits& limits);

/// The same over a text held in memory.
Result<NvsmiQueryImport> import_nvsmi_query(std::string_view text, const std::string& source);

/// "00000000:18:00.0" -> "0000:18:00.0"; "" when `bus_id` is not a PCI address.
std::string nvsmi_pci_bdf(std::string_view bus_id);

/// True for a line (trimmed, a pdsh "host: " prefix allowed) only `nvidia-smi -q` prints: "==============NVSMI LOG==============",
/// a GPU block header "GPU 00000000:18:00.0", "Attached GPUs : 8", or the section titles
/// "Clocks Event Reasons" / "Clocks Throttle Reasons" (for `grep -A` fragments).
bool is_nvsmi_query_marker(std::string_view t);

/// The findings (docs/gpu_readers.md#nvidia-smi--q), each naming the GPU (index, pci_bdf, host):
/// PCIe width below max (error, pcie_width_downgraded), generation below max (info at idle,
/// pcie_speed_low_at_idle; warn when the GPU is busy, pcie_speed_downgraded), uncorrectable ECC
/// (error volatile, warn aggregate only), a row remap failure (error) or pending (warn), pending
/// page retirement (warn), HW slowdown / thermal slowdown active (warn), Fabric not registered or
/// degraded (error / warn), a GPU reset required (error).
std::vector<Finding> nvsmi_query_findings(const NvsmiQueryImport& imp);

/// The `data` of the fabdiag.gpuquery/1 envelope (docs/SCHEMA.md).
nlohmann::json nvsmi_query_data(const NvsmiQueryImport& imp);

}  // namespace fabdiag
