// NVML at run time: the binary never links libnvidia-ml, so it runs on CPU-only nodes. This
// first cut only checks that the library loads and answers (for `doctor` and for the NVLink
// note of `topo`); a later adapter adds the NVLink and PCIe queries (DOMAIN.md section 8).
#pragma once

#include <string>

#include "core/capability.h"

namespace fabdiag {

/// Probes NVML: dlopen(lib_path), resolve nvmlInit_v2, nvmlSystemGetDriverVersion and
/// nvmlShutdown, call nvmlInit_v2, read the driver version, call nvmlShutdown, dlclose.
/// Returns Capability{name "nvml", compiled true (needs no headers), loaded, version = driver
/// version ("550.54.15"), detail = library path, why_not = what failed and what to do}.
/// Never throws or exits; safe when the library is absent. Cost: loading NVML initialises the
/// driver (tens of ms on a GPU node).
Capability probe_nvml_capability(const std::string& lib_path = "libnvidia-ml.so.1");

/// Name of an nvmlReturn_t value ("DRIVER_NOT_LOADED" for 9); "error <n>" when not known.
std::string nvml_return_name(int code);

}  // namespace fabdiag
