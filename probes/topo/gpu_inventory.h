// GPU inventory: what the GPU driver (NVML) says about this node's GPUs: name, UUID, PCI bus
// id, and the state and far end of every NVLink. One interface, three implementations
// (docs/ARCHITECTURE.md#vendor-libraries):
//   - NoGpuInventory: the fallback when NVML is not loaded; topology stays sysfs-only and says
//     why NVLink is unknown;
//   - NvmlGpuInventory (probes/topo/nvml_loader.h): libnvidia-ml.so.1 through dlopen;
//   - FakeGpuInventory: a fixed answer for unit tests.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/result.h"

namespace fabdiag {

/// Device at the far end of an NVLink (nvmlIntNvLinkDeviceType_t: GPU 0x00, IBMNPU 0x01,
/// SWITCH 0x02, UNKNOWN 0xFF).
enum class NvlinkRemote { kGpu, kIbmNpu, kSwitch, kUnknown };
/// "gpu", "ibmnpu", "switch", "unknown".
const char* to_string(NvlinkRemote r);
/// Maps an nvmlIntNvLinkDeviceType_t value; anything not listed above is kUnknown.
NvlinkRemote nvlink_remote_from_nvml(unsigned int value);

/// One NVLink of a GPU as NVML reports it.
struct NvlinkInfo {
  unsigned int link = 0;      ///< Link index, 0..NVML_NVLINK_MAX_LINKS-1.
  bool active = false;        ///< nvmlDeviceGetNvLinkState == NVML_FEATURE_ENABLED.
  NvlinkRemote remote = NvlinkRemote::kUnknown;  ///< nvmlDeviceGetNvLinkRemoteDeviceType.
  /// nvmlDeviceGetNvLinkRemotePciInfo_v2 busId in sysfs form ("0000:3b:00.0"); "" unknown
  /// (link down, or the call failed).
  std::string remote_pci_bdf;
};

/// One GPU as NVML reports it.
struct GpuInfo {
  unsigned int nvml_index = 0;  ///< nvmlDeviceGetHandleByIndex_v2 index.
  std::string name;             ///< nvmlDeviceGetName, e.g. "NVIDIA H100 80GB HBM3".
  std::string uuid;             ///< nvmlDeviceGetUUID, e.g. "GPU-5f2a...".
  std::string pci_bdf;          ///< nvmlDeviceGetPciInfo_v3 busId normalised to sysfs form.
  /// Every link index NVML knows for this GPU (absent links, answered INVALID_ARGUMENT or
  /// NOT_SUPPORTED, are not listed). Empty for a GPU without NVLink (PCIe cards).
  std::vector<NvlinkInfo> nvlinks;
};

/// The answer of an inventory source.
struct GpuInventory {
  bool available = false;  ///< The source answered (NVML initialised); gpus may still be empty.
  std::string source;      ///< What answered: "NVML libnvidia-ml.so.1, driver 550.54.15".
  std::string why_not;     ///< Why !available, with what to do; "" when available.
  std::vector<GpuInfo> gpus;  ///< By NVML index.
  std::vector<Error> gaps;    ///< Per-GPU or per-link reads that failed; the rest is valid.
};

/// A source of GPU inventory. read() never throws; failures are in the result.
class GpuInventorySource {
 public:
  virtual ~GpuInventorySource() = default;
  /// Reads the inventory. Cost depends on the source (NVML: driver init, tens of ms).
  virtual GpuInventory read() const = 0;
};

/// The fallback: no GPU driver library. read() returns available = false with `why_not`.
class NoGpuInventory : public GpuInventorySource {
 public:
  explicit NoGpuInventory(std::string why_not) : why_not_(std::move(why_not)) {}
  GpuInventory read() const override;

 private:
  std::string why_not_;
};

/// A fixed answer (unit tests): read() returns `inventory` as given.
class FakeGpuInventory : public GpuInventorySource {
 public:
  explicit FakeGpuInventory(GpuInventory inventory) : inventory_(std::move(inventory)) {}
  GpuInventory read() const override { return inventory_; }

 private:
  GpuInventory inventory_;
};

/// NVML's PCI bus id ("00000000:3B:00.0": 8 upper-case hex digits of domain) in the sysfs form
/// "0000:3b:00.0" (lower case, 4 digits). Also accepts the legacy "0000:3B:00.0". nullopt when
/// it is not a bus id.
std::optional<std::string> normalize_nvml_bus_id(const std::string& bus_id);

}  // namespace fabdiag
