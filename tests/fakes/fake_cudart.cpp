// A libcudart stand-in for the NCCL backend's tests (tests/cli/nccl_fake_bench_test.sh): no
// GPU, no driver. "Device memory" is host memory, streams hold no pending work (the fake NCCL
// runs each call to completion before it returns), an event records the steady clock when it
// is recorded. Graph capture records instead: between cudaStreamBeginCapture and
// cudaStreamEndCapture, cudaMemcpyAsync, cudaEventRecord and cudaLaunchHostFunc (which the fake
// NCCL uses for its calls on a capturing stream) append to the stream's graph, and
// cudaGraphLaunch replays them in order.
// Built with the real cuda_runtime_api.h, so the signatures are the runtime's; its symbols carry
// the runtime's version node (libcudart.so.<major>, fake_cudart.map) as the real library's do.
//
// Environment:
//   FAKE_CUDA_DEVICES=N          GPUs cudaGetDeviceCount reports (default 8); 0 = cudaErrorNoDevice.
//   FAKE_CUDA_PCI_BUSES=3,23,..  PCI bus (hex) of device 0, 1, ... (default 0x10 + device), so a
//                                fixture topology's GPUs are these devices (pairwise --rail).
//   FAKE_CUDA_GRAPH_NO_REPLAY=1  cudaGraphLaunch does nothing (a benchmark that checks what its
//                                graph wrote must then count wrong elements).
#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

using Node = std::function<void()>;

struct CUstream_st {
  int device;
  bool capturing = false;
  std::vector<Node> captured;
};
struct CUevent_st {
  std::chrono::steady_clock::time_point at;
  bool recorded = false;
};
struct CUgraph_st {
  std::vector<Node> nodes;
};
struct CUgraphExec_st {
  std::vector<Node> nodes;
};

namespace {

thread_local int current_device = 0;

int device_count() {
  const char* v = std::getenv("FAKE_CUDA_DEVICES");
  return v && *v ? std::atoi(v) : 8;
}

// Runs `n` now, or appends it to the graph the stream is capturing.
cudaError_t enqueue(cudaStream_t s, Node n) {
  if (s && s->capturing) {
    s->captured.push_back(std::move(n));
    return cudaSuccess;
  }
  n();
  return cudaSuccess;
}

}  // namespace

extern "C" {

cudaError_t cudaRuntimeGetVersion(int* version) {
  *version = CUDART_VERSION;
  return cudaSuccess;
}

cudaError_t cudaGetDeviceCount(int* count) {
  const int n = device_count();
  if (n <= 0) return cudaErrorNoDevice;
  *count = n;
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
  if (device < 0 || device >= device_count()) return cudaErrorInvalidDevice;
  current_device = device;
  return cudaSuccess;
}

cudaError_t cudaMalloc(void** p, size_t bytes) {
  *p = std::malloc(bytes ? bytes : 1);
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}

cudaError_t cudaFree(void* p) {
  std::free(p);
  return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind, cudaStream_t s) {
  return enqueue(s, [=] {
    if (bytes) std::memmove(dst, src, bytes);
  });
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned int) {
  *s = new CUstream_st{current_device, false, {}};
  return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t s) {
  delete s;
  return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t s) {
  return s && s->capturing ? cudaErrorStreamCaptureUnsupported : cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t* e) {
  *e = new CUevent_st{};
  return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
  return enqueue(s, [e] {
    e->at = std::chrono::steady_clock::now();
    e->recorded = true;
  });
}

cudaError_t cudaEventSynchronize(cudaEvent_t e) { return e->recorded ? cudaSuccess : cudaErrorInvalidResourceHandle; }

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  if (!start->recorded || !end->recorded) return cudaErrorInvalidResourceHandle;
  *ms = std::chrono::duration<float, std::milli>(end->at - start->at).count();
  return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t e) {
  delete e;
  return cudaSuccess;
}

cudaError_t cudaLaunchHostFunc(cudaStream_t s, cudaHostFn_t fn, void* data) {
  return enqueue(s, [fn, data] { fn(data); });
}

cudaError_t cudaStreamIsCapturing(cudaStream_t s, cudaStreamCaptureStatus* status) {
  *status = s && s->capturing ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
  return cudaSuccess;
}

cudaError_t cudaStreamBeginCapture(cudaStream_t s, cudaStreamCaptureMode) {
  if (!s || s->capturing) return cudaErrorIllegalState;
  s->capturing = true;
  s->captured.clear();
  return cudaSuccess;
}

cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t* graph) {
  if (!s || !s->capturing) return cudaErrorIllegalState;
  s->capturing = false;
  *graph = new CUgraph_st{std::move(s->captured)};
  s->captured.clear();
  return cudaSuccess;
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long) {
  *exec = new CUgraphExec_st{graph->nodes};
  return cudaSuccess;
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t) {
  const char* v = std::getenv("FAKE_CUDA_GRAPH_NO_REPLAY");
  if (v && *v == '1') return cudaSuccess;
  for (auto& n : exec->nodes) n();
  return cudaSuccess;
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
  delete exec;
  return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  delete graph;
  return cudaSuccess;
}

}  // extern "C"

namespace {
// FAKE_CUDA_PCI_BUSES: device i's PCI bus is the i-th hex number of the comma list; else 0x10 + i.
int pci_bus_of(int device) {
  const char* list = std::getenv("FAKE_CUDA_PCI_BUSES");
  for (int i = 0; list && *list; ++i) {
    char* end = nullptr;
    const long bus = std::strtol(list, &end, 16);
    if (end == list) break;
    if (i == device) return static_cast<int>(bus);
    list = *end == ',' ? end + 1 : end;
  }
  return 0x10 + device;
}
}  // namespace

extern "C" {

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  if (device < 0 || device >= device_count()) return cudaErrorInvalidDevice;
  std::memset(prop, 0, sizeof *prop);
  std::snprintf(prop->name, sizeof prop->name, "Fake GPU %d", device);
  prop->pciDomainID = 0;
  prop->pciBusID = pci_bus_of(device);
  prop->pciDeviceID = 0;
  return cudaSuccess;
}

const char* cudaGetErrorName(cudaError_t rc) {
  switch (rc) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorNoDevice: return "cudaErrorNoDevice";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    default: return "cudaErrorUnknown";
  }
}

const char* cudaGetErrorString(cudaError_t rc) {
  return rc == cudaErrorNoDevice ? "no CUDA-capable device is detected (fake: FAKE_CUDA_DEVICES=0)"
                                 : "fake libcudart error";
}

}  // extern "C"
