/* A stand-in for libnvidia-ml.so.1 (NVML), built as a shared library by tests/CMakeLists.txt,
 * so fabdiag's NVML adapter (probes/topo/nvml_loader.cpp) runs its real dlopen/dlsym path on
 * machines without GPUs. It exports the C symbols fabdiag uses, with NVML's signatures
 * (docs/domain.md#nvml-calls), and answers from a description file named by the environment
 * variable FAKE_NVML_CONFIG, read at every nvmlInit_v2. Without the variable it is an NVML
 * with no GPU (driver 550.54.15). Lines ('#' starts a comment):
 *
 *   driver 550.54.15                       driver version string
 *   init_rc 9                              nvmlInit_v2 returns this (9 = DRIVER_NOT_LOADED)
 *   gpu 0 0000:18:00.0 "NVIDIA H100 80GB HBM3" GPU-0000...   index, bus id, name, UUID
 *   link 0 3 up switch [0000:05:00.0]      GPU 0 link 3 active, far end an NVSwitch
 *   link 0 1 up gpu 0000:1a:00.0           far end the GPU at that bus id
 *   link 2 5 down                          present but not active
 *   fail name 2 999                        nvmlDeviceGetName on GPU 2 returns 999 (also:
 *                                          handle, pci, uuid, state)
 *
 * Link indexes not listed answer INVALID_ARGUMENT ("no such link"), as NVML does for indexes
 * beyond the GPU's link count. Bus ids are returned as NVML prints them ("00000000:18:00.0").
 * FAKE_NVML_INIT_RC (compile-time) overrides init_rc. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FAKE_NVML_INIT_RC
#define FAKE_NVML_INIT_RC 0
#endif

enum { kSuccess = 0, kUninitialized = 1, kInvalidArgument = 2, kNotFound = 6, kInsufficientSize = 7,
       kUnknown = 999 };
enum { kMaxGpus = 64, kMaxLinks = 64 };

typedef struct {
  char busIdLegacy[16];
  unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
  char busId[32];
} nvmlPciInfo_t;

typedef struct {
  int present, active;
  unsigned int remote_type; /* 0 GPU, 1 IBMNPU, 2 SWITCH, 0xFF unknown */
  unsigned int domain, bus, device, function;
} FakeLink;

typedef struct {
  int present;
  unsigned int domain, bus, device, function;
  char name[96], uuid[96];
  FakeLink links[kMaxLinks];
  int fail_handle, fail_pci, fail_name, fail_uuid, fail_state;
} FakeGpu;

static int initialised = 0;
static char driver_version[80] = "550.54.15";
static FakeGpu gpus[kMaxGpus];
static unsigned int gpu_count = 0;

static int parse_bdf(const char* s, unsigned* d, unsigned* b, unsigned* dev, unsigned* f) {
  return sscanf(s, "%x:%x:%x.%x", d, b, dev, f) == 4;
}

/* Copies the next token (quoted or not) of *p into out; returns 0 at the end of the line. */
static int token(char** p, char* out, size_t size) {
  char* s = *p;
  while (*s == ' ' || *s == '\t') ++s;
  if (!*s || *s == '\n' || *s == '#') return 0;
  size_t n = 0;
  if (*s == '"') {
    ++s;
    while (*s && *s != '"') { if (n + 1 < size) out[n++] = *s; ++s; }
    if (*s == '"') ++s;
  } else {
    while (*s && *s != ' ' && *s != '\t' && *s != '\n') { if (n + 1 < size) out[n++] = *s; ++s; }
  }
  out[n] = '\0';
  *p = s;
  return 1;
}

static int load_config(int* init_rc) {
  memset(gpus, 0, sizeof gpus);
  gpu_count = 0;
  strcpy(driver_version, "550.54.15");
  const char* path = getenv("FAKE_NVML_CONFIG");
  if (!path || !*path) return 1;
  FILE* f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "fake_nvml: cannot open FAKE_NVML_CONFIG=%s\n", path);
    return 0;
  }
  char line[512], t[6][128];
  int ok = 1, lineno = 0;
  while (fgets(line, sizeof line, f)) {
    ++lineno;
    char* p = line;
    int n = 0;
    while (n < 6 && token(&p, t[n], sizeof t[n])) ++n;
    if (n == 0) continue;
    if (!strcmp(t[0], "driver") && n >= 2) {
      snprintf(driver_version, sizeof driver_version, "%.*s", (int)sizeof driver_version - 1, t[1]);
    } else if (!strcmp(t[0], "init_rc") && n >= 2) {
      *init_rc = atoi(t[1]);
    } else if (!strcmp(t[0], "gpu") && n >= 5) {
      unsigned i = (unsigned)atoi(t[1]);
      if (i >= kMaxGpus) { ok = 0; break; }
      FakeGpu* g = &gpus[i];
      g->present = 1;
      if (!parse_bdf(t[2], &g->domain, &g->bus, &g->device, &g->function)) { ok = 0; break; }
      snprintf(g->name, sizeof g->name, "%.*s", (int)sizeof g->name - 1, t[3]);
      snprintf(g->uuid, sizeof g->uuid, "%.*s", (int)sizeof g->uuid - 1, t[4]);
      if (i + 1 > gpu_count) gpu_count = i + 1;
    } else if (!strcmp(t[0], "link") && n >= 4) {
      unsigned i = (unsigned)atoi(t[1]), l = (unsigned)atoi(t[2]);
      if (i >= kMaxGpus || l >= kMaxLinks) { ok = 0; break; }
      FakeLink* k = &gpus[i].links[l];
      k->present = 1;
      k->active = !strcmp(t[3], "up");
      k->remote_type = 0xFF;
      if (n >= 5) {
        if (!strcmp(t[4], "gpu")) k->remote_type = 0;
        else if (!strcmp(t[4], "npu")) k->remote_type = 1;
        else if (!strcmp(t[4], "switch")) k->remote_type = 2;
      }
      if (n >= 6 && !parse_bdf(t[5], &k->domain, &k->bus, &k->device, &k->function)) { ok = 0; break; }
    } else if (!strcmp(t[0], "fail") && n >= 4) {
      unsigned i = (unsigned)atoi(t[2]);
      int rc = atoi(t[3]);
      if (i >= kMaxGpus) { ok = 0; break; }
      FakeGpu* g = &gpus[i];
      if (!strcmp(t[1], "handle")) g->fail_handle = rc;
      else if (!strcmp(t[1], "pci")) g->fail_pci = rc;
      else if (!strcmp(t[1], "name")) g->fail_name = rc;
      else if (!strcmp(t[1], "uuid")) g->fail_uuid = rc;
      else if (!strcmp(t[1], "state")) g->fail_state = rc;
      else { ok = 0; break; }
    } else {
      ok = 0;
      break;
    }
  }
  if (!ok) fprintf(stderr, "fake_nvml: %s:%d: cannot parse: %s", path, lineno, line);
  fclose(f);
  return ok;
}

static void fill_pci(nvmlPciInfo_t* pci, unsigned d, unsigned b, unsigned dev, unsigned f) {
  memset(pci, 0, sizeof *pci);
  pci->domain = d;
  pci->bus = b;
  pci->device = dev;
  snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%04X:%02X:%02X.%X", d, b, dev, f);
  snprintf(pci->busId, sizeof pci->busId, "%08X:%02X:%02X.%X", d, b, dev, f);
}

static FakeGpu* gpu_of(void* device) {
  FakeGpu* g = (FakeGpu*)device;
  if (!initialised || g < gpus || g >= gpus + kMaxGpus || !g->present) return NULL;
  return g;
}

int nvmlInit_v2(void) {
  int rc = FAKE_NVML_INIT_RC;
  if (!load_config(&rc)) return kUnknown;
  if (rc == kSuccess) initialised = 1;
  return rc;
}

int nvmlShutdown(void) {
  if (!initialised) return kUninitialized;
  initialised = 0;
  return kSuccess;
}

const char* nvmlErrorString(int result) {
  switch (result) {
    case 0: return "Success";
    case 2: return "Invalid Argument";
    case 3: return "Not Supported";
    case 9: return "Driver Not Loaded";
    case 15: return "GPU is lost";
    default: return "Unknown Error";
  }
}

int nvmlSystemGetDriverVersion(char* version, unsigned int length) {
  if (!initialised) return kUninitialized;
  if (length < strlen(driver_version) + 1) return kInsufficientSize;
  memcpy(version, driver_version, strlen(driver_version) + 1);
  return kSuccess;
}

int nvmlDeviceGetCount_v2(unsigned int* count) {
  if (!initialised) return kUninitialized;
  *count = gpu_count;
  return kSuccess;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int index, void** device) {
  if (!initialised) return kUninitialized;
  if (index >= gpu_count || !gpus[index].present) return kInvalidArgument;
  if (gpus[index].fail_handle) return gpus[index].fail_handle;
  *device = &gpus[index];
  return kSuccess;
}

int nvmlDeviceGetPciInfo_v3(void* device, nvmlPciInfo_t* pci) {
  FakeGpu* g = gpu_of(device);
  if (!g) return kInvalidArgument;
  if (g->fail_pci) return g->fail_pci;
  fill_pci(pci, g->domain, g->bus, g->device, g->function);
  return kSuccess;
}

static int copy_string(const char* s, char* out, unsigned int length) {
  if (length < strlen(s) + 1) return kInsufficientSize;
  memcpy(out, s, strlen(s) + 1);
  return kSuccess;
}

int nvmlDeviceGetName(void* device, char* name, unsigned int length) {
  FakeGpu* g = gpu_of(device);
  if (!g) return kInvalidArgument;
  return g->fail_name ? g->fail_name : copy_string(g->name, name, length);
}

int nvmlDeviceGetUUID(void* device, char* uuid, unsigned int length) {
  FakeGpu* g = gpu_of(device);
  if (!g) return kInvalidArgument;
  return g->fail_uuid ? g->fail_uuid : copy_string(g->uuid, uuid, length);
}

static FakeLink* link_of(void* device, unsigned int link, int* rc) {
  FakeGpu* g = gpu_of(device);
  *rc = kInvalidArgument;
  if (!g || link >= kMaxLinks || !g->links[link].present) return NULL;
  if (g->fail_state) {
    *rc = g->fail_state;
    return NULL;
  }
  *rc = kSuccess;
  return &g->links[link];
}

int nvmlDeviceGetNvLinkState(void* device, unsigned int link, int* isActive) {
  int rc;
  FakeLink* k = link_of(device, link, &rc);
  if (!k) return rc;
  *isActive = k->active;
  return kSuccess;
}

int nvmlDeviceGetNvLinkRemotePciInfo_v2(void* device, unsigned int link, nvmlPciInfo_t* pci) {
  int rc;
  FakeLink* k = link_of(device, link, &rc);
  if (!k) return rc;
  if (!k->active) return kNotFound;
  fill_pci(pci, k->domain, k->bus, k->device, k->function);
  return kSuccess;
}

int nvmlDeviceGetNvLinkRemoteDeviceType(void* device, unsigned int link, unsigned int* type) {
  int rc;
  FakeLink* k = link_of(device, link, &rc);
  if (!k) return rc;
  *type = k->remote_type;
  return kSuccess;
}
