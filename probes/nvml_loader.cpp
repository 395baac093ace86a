#include "probes/nvml_loader.h"

#include <dlfcn.h>

namespace fabdiag {

namespace {

// The few NVML C signatures used here (no nvml.h on build machines). nvmlReturn_t is an int
// enum; NVML_SUCCESS = 0.
using NvmlInitFn = int (*)();
using NvmlShutdownFn = int (*)();
using NvmlGetDriverVersionFn = int (*)(char* version, unsigned int length);
constexpr unsigned int kDriverVersionBufferSize = 80;  // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE

// Closes the handle on every return path.
struct DlHandle {
  void* h = nullptr;
  ~DlHandle() {
    if (h) dlclose(h);
  }
};

}  // namespace

std::string nvml_return_name(int code) {
  switch (code) {
    case 0: return "SUCCESS";
    case 1: return "UNINITIALIZED";
    case 2: return "INVALID_ARGUMENT";
    case 3: return "NOT_SUPPORTED";
    case 4: return "NO_PERMISSION";
    case 5: return "ALREADY_INITIALIZED";
    case 6: return "NOT_FOUND";
    case 7: return "INSUFFICIENT_SIZE";
    case 8: return "INSUFFICIENT_POWER";
    case 9: return "DRIVER_NOT_LOADED";
    case 10: return "TIMEOUT";
    case 11: return "IRQ_ISSUE";
    case 12: return "LIBRARY_NOT_FOUND";
    case 13: return "FUNCTION_NOT_FOUND";
    case 14: return "CORRUPTED_INFOROM";
    case 15: return "GPU_IS_LOST";
    case 999: return "UNKNOWN";
    default: return "error " + std::to_string(code);
  }
}

Capability probe_nvml_capability(const std::string& lib_path) {
  Capability cap;
  cap.name = "nvml";
  cap.compiled = true;  // loaded at run time; nothing needed at build time
  cap.detail = lib_path;

  dlerror();
  DlHandle lib{dlopen(lib_path.c_str(), RTLD_NOW | RTLD_LOCAL)};
  if (!lib.h) {
    const char* why = dlerror();
    cap.why_not = lib_path + " could not be loaded (" + std::string(why ? why : "unknown dlopen error") +
                  "): install the NVIDIA driver (it ships NVML) or add its directory to "
                  "LD_LIBRARY_PATH; without it NVLink counts are unknown";
    return cap;
  }
  auto sym = [&](const char* name) { return dlsym(lib.h, name); };
  auto init = reinterpret_cast<NvmlInitFn>(sym("nvmlInit_v2"));
  auto get_version = reinterpret_cast<NvmlGetDriverVersionFn>(sym("nvmlSystemGetDriverVersion"));
  auto shutdown = reinterpret_cast<NvmlShutdownFn>(sym("nvmlShutdown"));
  if (!init || !get_version || !shutdown) {
    std::string missing = !init ? "nvmlInit_v2" : !get_version ? "nvmlSystemGetDriverVersion" : "nvmlShutdown";
    cap.why_not = lib_path + " has no symbol " + missing +
                  ": it is not NVML or it is too old (need a driver from 2016 or later)";
    return cap;
  }
  int rc = init();
  if (rc != 0) {
    cap.why_not = "nvmlInit_v2 failed: " + nvml_return_name(rc) +
                  (rc == 9 ? " (no NVIDIA kernel driver: is this a GPU node, is the nvidia module loaded?)"
                           : "");
    return cap;
  }
  char version[kDriverVersionBufferSize] = {0};
  rc = get_version(version, sizeof version);
  if (rc == 0) {
    version[sizeof version - 1] = '\0';
    cap.version = version;
    cap.loaded = true;
  } else {
    cap.why_not = "nvmlSystemGetDriverVersion failed: " + nvml_return_name(rc);
  }
  shutdown();
  return cap;
}

}  // namespace fabdiag
