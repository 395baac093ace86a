/* A stand-in for libnvidia-ml.so.1 with the three entry points probe_nvml_capability uses.
 * Built twice by tests/CMakeLists.txt: as a working NVML (driver 550.54.15) and, with
 * FAKE_NVML_INIT_RC=9, as an NVML whose nvmlInit_v2 answers DRIVER_NOT_LOADED. */
#include <string.h>

#ifndef FAKE_NVML_INIT_RC
#define FAKE_NVML_INIT_RC 0
#endif

static int initialised = 0;

int nvmlInit_v2(void) {
  if (FAKE_NVML_INIT_RC == 0) initialised = 1;
  return FAKE_NVML_INIT_RC;
}

int nvmlShutdown(void) {
  if (!initialised) return 1; /* NVML_ERROR_UNINITIALIZED */
  initialised = 0;
  return 0;
}

int nvmlSystemGetDriverVersion(char* version, unsigned int length) {
  static const char kVersion[] = "550.54.15";
  if (!initialised) return 1;
  if (length < sizeof kVersion) return 7; /* NVML_ERROR_INSUFFICIENT_SIZE */
  memcpy(version, kVersion, sizeof kVersion);
  return 0;
}
