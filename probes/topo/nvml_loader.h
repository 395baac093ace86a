// NVML at run time: the binary never links libnvidia-ml, so it runs on CPU-only nodes. Two
// entry points: probe_nvml_capability (for `doctor`: does the library load and answer?) and
// NvmlGpuInventory, the GpuInventorySource adapter that reads GPUs and NVLinks
// (docs/domain.md#nvml-calls). The few C signatures used are declared in nvml_loader.cpp (no nvml.h
// is needed to build).
#pragma once

#include <string>

#include "core/capability.h"
#include "core/environment.h"
#include "core/result.h"
#include "probes/topo/gpu_inventory.h"

namespace fabdiag {

/// Library name dlopen() looks for by default (the driver installs it).
inline constexpr const char* kDefaultNvmlLib = "libnvidia-ml.so.1";

/// Link indexes probed per GPU: NVML_NVLINK_MAX_LINKS of the current DCGM-bundled header (36;
/// Pascal/Volta headers said 6, Ampere 12, Hopper 18). Indexes a GPU does not have answer
/// INVALID_ARGUMENT or NOT_SUPPORTED and are skipped.
inline constexpr unsigned int kNvmlLinksProbed = 36;

/// Probes NVML: dlopen(lib_path), resolve nvmlInit_v2, nvmlSystemGetDriverVersion and
/// nvmlShutdown, call nvmlInit_v2, read the driver version, call nvmlShutdown, dlclose.
/// Returns Capability{name "nvml", compiled true (needs no headers), loaded, version = driver
/// version ("550.54.15"), detail = library path, why_not = what failed and what to do}.
/// Never throws or exits; safe when the library is absent. Cost: loading NVML initialises the
/// driver (tens of ms on a GPU node).
Capability probe_nvml_capability(const std::string& lib_path = kDefaultNvmlLib);

/// The NVML library a command loads when it is asked for one: `flag` (--nvml-lib), else
/// $FABDIAG_NVML_LIB (through env.library_override(), so ignored when running setuid or
/// setgid); "" when neither names one (the caller then decides whether kDefaultNvmlLib applies).
/// Errors: kInvalidArgument when `flag` is given while env.secure(): a caller-chosen library
/// would run with the privileges of the file's owner.
Result<std::string> choose_nvml_library(const std::string& flag, const Environment& env);

/// Name of an nvmlReturn_t value ("DRIVER_NOT_LOADED" for 9); "error <n>" when not known.
std::string nvml_return_name(int code);

/// GPU inventory from NVML loaded with dlopen(lib_path) (RTLD_NOW | RTLD_LOCAL).
///
/// Calls: nvmlInit_v2; nvmlDeviceGetCount_v2; per GPU nvmlDeviceGetHandleByIndex_v2,
/// nvmlDeviceGetPciInfo_v3 (busId, normalised to sysfs form), nvmlDeviceGetName,
/// nvmlDeviceGetUUID; per link 0..kNvmlLinksProbed-1 nvmlDeviceGetNvLinkState (INVALID_ARGUMENT
/// and NOT_SUPPORTED = no such link) and, for active links, nvmlDeviceGetNvLinkRemoteDeviceType
/// and nvmlDeviceGetNvLinkRemotePciInfo_v2; nvmlShutdown; dlclose. nvmlSystemGetDriverVersion
/// and nvmlErrorString are used when present.
/// Drivers without nvmlDeviceGetNvLinkRemoteDeviceType (before r450): the far end is a GPU when
/// its bus id is one of NVML's GPUs, else an NVSwitch (a guess, only for active links).
/// read() fails softly: available = false with why_not (library missing, symbol missing, init
/// failed); a GPU or link whose call fails becomes a gap and the others are still read. Cost:
/// driver initialisation (tens of ms), a few hundred cheap calls; opens /dev/nvidia*.
class NvmlGpuInventory : public GpuInventorySource {
 public:
  explicit NvmlGpuInventory(std::string lib_path = kDefaultNvmlLib) : lib_path_(std::move(lib_path)) {}
  GpuInventory read() const override;

 private:
  std::string lib_path_;
};

}  // namespace fabdiag
