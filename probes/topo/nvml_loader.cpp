#include "probes/topo/nvml_loader.h"

#include <dlfcn.h>

#include <cstring>
#include <set>

namespace fabdiag {

namespace {

// The NVML C signatures used here (docs/domain.md#nvml-calls; no nvml.h on build machines).
// nvmlReturn_t is an int enum; nvmlDevice_t an opaque pointer.
using NvmlDevice = void*;
struct NvmlPciInfo {  // nvmlPciInfo_t, field order as in nvml.h
  char bus_id_legacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pci_device_id;
  unsigned int pci_subsystem_id;
  char bus_id[32];
};
using NvmlInitFn = int (*)();
using NvmlShutdownFn = int (*)();
using NvmlGetDriverVersionFn = int (*)(char* version, unsigned int length);
using NvmlGetCountFn = int (*)(unsigned int* count);
using NvmlGetHandleFn = int (*)(unsigned int index, NvmlDevice* device);
using NvmlGetPciInfoFn = int (*)(NvmlDevice device, NvmlPciInfo* pci);
using NvmlGetStringFn = int (*)(NvmlDevice device, char* out, unsigned int length);
using NvmlGetLinkStateFn = int (*)(NvmlDevice device, unsigned int link, int* is_active);
using NvmlGetRemotePciFn = int (*)(NvmlDevice device, unsigned int link, NvmlPciInfo* pci);
using NvmlGetRemoteTypeFn = int (*)(NvmlDevice device, unsigned int link, unsigned int* type);
using NvmlErrorStringFn = const char* (*)(int result);

constexpr int kNvmlSuccess = 0;
constexpr int kNvmlInvalidArgument = 2;
constexpr int kNvmlNotSupported = 3;
constexpr int kNvmlDriverNotLoaded = 9;
constexpr int kNvmlFeatureEnabled = 1;                 // nvmlEnableState_t
constexpr unsigned int kDriverVersionBufferSize = 80;  // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE
constexpr unsigned int kNameBufferSize = 96;           // NVML_DEVICE_NAME_V2_BUFFER_SIZE
constexpr unsigned int kUuidBufferSize = 96;           // NVML_DEVICE_UUID_V2_BUFFER_SIZE

// Closes the handle on every return path.
struct DlHandle {
  void* h = nullptr;
  ~DlHandle() {
    if (h) dlclose(h);
  }
};

std::string dlopen_why_not(const std::string& lib_path) {
  const char* why = dlerror();
  return lib_path + " could not be loaded (" + std::string(why ? why : "unknown dlopen error") +
         "): install the NVIDIA driver (it ships NVML) or add its directory to "
         "LD_LIBRARY_PATH; without it NVLink counts are unknown";
}

std::string init_why_not(int rc) {
  return "nvmlInit_v2 failed: " + nvml_return_name(rc) +
         (rc == kNvmlDriverNotLoaded ? " (no NVIDIA kernel driver: is this a GPU node, is the nvidia module loaded?)"
                                     : "");
}

// A NUL-terminated copy of a fixed-size char field that the library may not have terminated.
std::string fixed_string(const char* buf, size_t size) { return std::string(buf, strnlen(buf, size)); }

// The sysfs BDF of an nvmlPciInfo_t: busId, else the legacy field, else the numeric fields.
std::optional<std::string> pci_info_bdf(const NvmlPciInfo& pci) {
  if (auto b = normalize_nvml_bus_id(fixed_string(pci.bus_id, sizeof pci.bus_id))) return b;
  if (auto b = normalize_nvml_bus_id(fixed_string(pci.bus_id_legacy, sizeof pci.bus_id_legacy))) return b;
  if (pci.bus > 0xff || pci.device > 0x1f) return std::nullopt;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.0", pci.domain, pci.bus, pci.device);
  return std::string(buf);
}

// Resolved entry points of one loaded library.
struct NvmlApi {
  NvmlInitFn init = nullptr;
  NvmlShutdownFn shutdown = nullptr;
  NvmlGetDriverVersionFn driver_version = nullptr;  // optional
  NvmlGetCountFn count = nullptr;
  NvmlGetHandleFn handle = nullptr;
  NvmlGetPciInfoFn pci_info = nullptr;
  NvmlGetStringFn name = nullptr;
  NvmlGetStringFn uuid = nullptr;
  NvmlGetLinkStateFn link_state = nullptr;
  NvmlGetRemotePciFn remote_pci = nullptr;
  NvmlGetRemoteTypeFn remote_type = nullptr;  // optional (r450+)
  NvmlErrorStringFn error_string = nullptr;   // optional

  std::string err(int rc) const {
    std::string s = nvml_return_name(rc);
    if (error_string) {
      const char* t = error_string(rc);
      if (t && *t) s += " (" + std::string(t) + ")";
    }
    return s;
  }
};

// Resolves the symbols; returns the name of the first missing required one, or "".
std::string resolve(void* h, NvmlApi& api) {
  auto sym = [&](const char* name) { return dlsym(h, name); };
  api.driver_version = reinterpret_cast<NvmlGetDriverVersionFn>(sym("nvmlSystemGetDriverVersion"));
  api.remote_type = reinterpret_cast<NvmlGetRemoteTypeFn>(sym("nvmlDeviceGetNvLinkRemoteDeviceType"));
  api.error_string = reinterpret_cast<NvmlErrorStringFn>(sym("nvmlErrorString"));
  struct Required {
    const char* name;
    void** slot;
  } required[] = {
      {"nvmlInit_v2", reinterpret_cast<void**>(&api.init)},
      {"nvmlShutdown", reinterpret_cast<void**>(&api.shutdown)},
      {"nvmlDeviceGetCount_v2", reinterpret_cast<void**>(&api.count)},
      {"nvmlDeviceGetHandleByIndex_v2", reinterpret_cast<void**>(&api.handle)},
      {"nvmlDeviceGetPciInfo_v3", reinterpret_cast<void**>(&api.pci_info)},
      {"nvmlDeviceGetName", reinterpret_cast<void**>(&api.name)},
      {"nvmlDeviceGetUUID", reinterpret_cast<void**>(&api.uuid)},
      {"nvmlDeviceGetNvLinkState", reinterpret_cast<void**>(&api.link_state)},
      {"nvmlDeviceGetNvLinkRemotePciInfo_v2", reinterpret_cast<void**>(&api.remote_pci)},
  };
  for (auto& r : required) {
    *r.slot = sym(r.name);
    if (!*r.slot) return r.name;
  }
  return "";
}

// Reads the links of one GPU into `gpu`; failures other than "no such link" become gaps.
void read_links(const NvmlApi& api, NvmlDevice dev, GpuInfo& gpu, std::vector<Error>& gaps) {
  const std::string subject = "GPU " + std::to_string(gpu.nvml_index) + " (" + gpu.pci_bdf + ")";
  for (unsigned int link = 0; link < kNvmlLinksProbed; ++link) {
    int state = 0;
    int rc = api.link_state(dev, link, &state);
    if (rc == kNvmlInvalidArgument || rc == kNvmlNotSupported) continue;  // no such link
    if (rc != kNvmlSuccess) {
      gaps.push_back(make_error(ErrorCode::kIo, "nvmlDeviceGetNvLinkState(link " + std::to_string(link) +
                                                    ") failed: " + api.err(rc),
                                subject));
      continue;
    }
    NvlinkInfo info;
    info.link = link;
    info.active = state == kNvmlFeatureEnabled;
    if (info.active) {
      if (api.remote_type) {
        unsigned int type = 0xFF;
        rc = api.remote_type(dev, link, &type);
        if (rc == kNvmlSuccess) info.remote = nvlink_remote_from_nvml(type);
        else if (rc != kNvmlNotSupported)
          gaps.push_back(make_error(ErrorCode::kIo, "nvmlDeviceGetNvLinkRemoteDeviceType(link " +
                                                        std::to_string(link) + ") failed: " + api.err(rc),
                                    subject));
      }
      NvmlPciInfo pci{};
      rc = api.remote_pci(dev, link, &pci);
      if (rc == kNvmlSuccess) {
        if (auto b = pci_info_bdf(pci)) info.remote_pci_bdf = *b;
      } else {
        gaps.push_back(make_error(ErrorCode::kIo, "nvmlDeviceGetNvLinkRemotePciInfo_v2(link " +
                                                      std::to_string(link) + ") failed: " + api.err(rc),
                                  subject));
      }
    }
    gpu.nvlinks.push_back(std::move(info));
  }
}

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

Result<std::string> choose_nvml_library(const std::string& flag, const Environment& env) {
  if (!flag.empty() && env.secure())
    return make_error(ErrorCode::kInvalidArgument,
                      "refused: fabdiag runs setuid or setgid, and a library chosen by the caller would run with the "
                      "privileges of the file's owner (run it as that user instead, without the setuid bit)",
                      "--nvml-lib");
  if (!flag.empty()) return flag;
  return env.library_override("FABDIAG_NVML_LIB").value_or("");
}

Capability probe_nvml_capability(const std::string& lib_path) {
  Capability cap;
  cap.name = "nvml";
  cap.compiled = true;  // loaded at run time; nothing needed at build time
  cap.detail = lib_path;

  dlerror();
  DlHandle lib{dlopen(lib_path.c_str(), RTLD_NOW | RTLD_LOCAL)};
  if (!lib.h) {
    cap.why_not = dlopen_why_not(lib_path);
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
    cap.why_not = init_why_not(rc);
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

GpuInventory NvmlGpuInventory::read() const {
  GpuInventory inv;
  dlerror();
  DlHandle lib{dlopen(lib_path_.c_str(), RTLD_NOW | RTLD_LOCAL)};
  if (!lib.h) {
    inv.why_not = dlopen_why_not(lib_path_);
    return inv;
  }
  NvmlApi api;
  if (std::string missing = resolve(lib.h, api); !missing.empty()) {
    inv.why_not = lib_path_ + " has no symbol " + missing +
                  ": it is not NVML or the driver is too old (NVLink queries need r470 or later)";
    return inv;
  }
  int rc = api.init();
  if (rc != kNvmlSuccess) {
    inv.why_not = init_why_not(rc);
    return inv;
  }
  inv.available = true;
  inv.source = "NVML " + lib_path_;
  if (api.driver_version) {
    char version[kDriverVersionBufferSize] = {0};
    if (api.driver_version(version, sizeof version) == kNvmlSuccess)
      inv.source += ", driver " + fixed_string(version, sizeof version);
  }

  unsigned int count = 0;
  rc = api.count(&count);
  if (rc != kNvmlSuccess) {
    inv.gaps.push_back(make_error(ErrorCode::kIo, "nvmlDeviceGetCount_v2 failed: " + api.err(rc), lib_path_));
    count = 0;
  }
  for (unsigned int i = 0; i < count; ++i) {
    const std::string subject = "GPU " + std::to_string(i);
    NvmlDevice dev = nullptr;
    rc = api.handle(i, &dev);
    if (rc != kNvmlSuccess) {
      inv.gaps.push_back(make_error(ErrorCode::kIo, "nvmlDeviceGetHandleByIndex_v2 failed: " + api.err(rc), subject));
      continue;
    }
    GpuInfo gpu;
    gpu.nvml_index = i;
    NvmlPciInfo pci{};
    rc = api.pci_info(dev, &pci);
    std::optional<std::string> bdf = rc == kNvmlSuccess ? pci_info_bdf(pci) : std::nullopt;
    if (!bdf) {
      // Without its bus id a GPU cannot be placed in the matrix.
      inv.gaps.push_back(make_error(ErrorCode::kIo,
                                    rc == kNvmlSuccess ? "nvmlDeviceGetPciInfo_v3 returned no valid bus id"
                                                       : "nvmlDeviceGetPciInfo_v3 failed: " + api.err(rc),
                                    subject));
      continue;
    }
    gpu.pci_bdf = *bdf;
    char buf[kNameBufferSize > kUuidBufferSize ? kNameBufferSize : kUuidBufferSize] = {0};
    rc = api.name(dev, buf, kNameBufferSize);
    if (rc == kNvmlSuccess) gpu.name = fixed_string(buf, kNameBufferSize);
    else inv.gaps.push_back(make_error(ErrorCode::kIo, "nvmlDeviceGetName failed: " + api.err(rc), subject));
    std::memset(buf, 0, sizeof buf);
    rc = api.uuid(dev, buf, kUuidBufferSize);
    if (rc == kNvmlSuccess) gpu.uuid = fixed_string(buf, kUuidBufferSize);
    else inv.gaps.push_back(make_error(ErrorCode::kIo, "nvmlDeviceGetUUID failed: " + api.err(rc), subject));
    read_links(api, dev, gpu, inv.gaps);
    inv.gpus.push_back(std::move(gpu));
  }
  api.shutdown();

  if (!api.remote_type) {
    // Old driver: tell GPUs from NVSwitches by whether the far end is one of NVML's GPUs.
    std::set<std::string> gpu_bdfs;
    for (const auto& g : inv.gpus) gpu_bdfs.insert(g.pci_bdf);
    for (auto& g : inv.gpus)
      for (auto& l : g.nvlinks)
        if (l.active && !l.remote_pci_bdf.empty())
          l.remote = gpu_bdfs.count(l.remote_pci_bdf) ? NvlinkRemote::kGpu : NvlinkRemote::kSwitch;
  }
  return inv;
}

}  // namespace fabdiag
