// A libcudart stand-in for the NCCL backend's tests (tests/cli/nccl_fake_bench_test.sh): no
// GPU, no driver. "Device memory" is host memory, streams do nothing (the fake NCCL runs each
// call to completion before it returns), an event records the steady clock when it is recorded.
// Built with the real cuda_runtime_api.h, so the signatures are the runtime's; its symbols carry
// the runtime's version node (libcudart.so.<major>, fake_cudart.map) as the real library's do.
//
// Environment:
//   FAKE_CUDA_DEVICES=N   GPUs cudaGetDeviceCount reports (default 8); 0 = cudaErrorNoDevice.
#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdlib>
#include <cstring>

struct CUstream_st {
  int device;
};
struct CUevent_st {
  std::chrono::steady_clock::time_point at;
  bool recorded = false;
};

namespace {

thread_local int current_device = 0;

int device_count() {
  const char* v = std::getenv("FAKE_CUDA_DEVICES");
  return v && *v ? std::atoi(v) : 8;
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

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind, cudaStream_t) {
  if (bytes) std::memmove(dst, src, bytes);  // the stream holds no work: copy now
  return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned int) {
  *s = new CUstream_st{current_device};
  return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t s) {
  delete s;
  return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }

cudaError_t cudaEventCreate(cudaEvent_t* e) {
  *e = new CUevent_st{};
  return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t) {
  e->at = std::chrono::steady_clock::now();
  e->recorded = true;
  return cudaSuccess;
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
