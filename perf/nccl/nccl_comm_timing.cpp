// NcclComm's lap timer (one CUDA event per iteration), CUDA graph capture (-G) and device
// description: the benchmark hooks of perf/comm.h beyond the single start/stop timer.
#include <cstdio>

#include "perf/nccl/nccl_comm.h"

namespace fabdiag::perf {

Status NcclComm::prepare_laps(int laps) {
  laps_recorded_ = 0;
  while (lap_events_.size() < static_cast<size_t>(laps > 0 ? laps : 0)) {
    cudaEvent_t e = nullptr;
    if (auto st = cuda_check(api_.cuda.event_create(&e), "cudaEventCreate (lap)"); !st) return st;
    lap_events_.push_back(e);
  }
  return Ok{};
}

Status NcclComm::lap_timer() {
  if (laps_recorded_ >= lap_events_.size())
    return make_error(ErrorCode::kInternal, "more laps than prepare_laps() made room for", describe_rank(rank_));
  return cuda_check(api_.cuda.event_record(lap_events_[laps_recorded_++], stream_), "cudaEventRecord (lap)");
}

Result<std::vector<double>> NcclComm::lap_times_s() {
  std::vector<double> out;
  cudaEvent_t prev = start_;
  for (size_t k = 0; k < laps_recorded_; ++k) {
    float ms = 0;
    if (auto st = cuda_check(api_.cuda.event_elapsed_time(&ms, prev, lap_events_[k]), "cudaEventElapsedTime (lap)"); !st)
      return st.error();
    out.push_back(static_cast<double>(ms) / 1e3);
    prev = lap_events_[k];
  }
  laps_recorded_ = 0;
  return out;
}

void NcclComm::destroy_graph() {
  if (graph_exec_) api_.cuda.graph_exec_destroy(graph_exec_);
  if (graph_) api_.cuda.graph_destroy(graph_);
  graph_exec_ = nullptr;
  graph_ = nullptr;
}

Status NcclComm::begin_graph_capture() {
  if (!api_.cuda.has_graphs())
    return make_error(ErrorCode::kUnsupported,
                      "-G needs CUDA graphs: libcudart (" + api_.cuda.path +
                          ") lacks cudaStreamBeginCapture, cudaStreamEndCapture, cudaGraphInstantiate or cudaGraphLaunch",
                      describe_rank(rank_));
  return cuda_check(api_.cuda.stream_begin_capture(stream_, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
}

Status NcclComm::end_graph_capture() {
  destroy_graph();
  if (auto st = cuda_check(api_.cuda.stream_end_capture(stream_, &graph_), "cudaStreamEndCapture"); !st) return st;
  return cuda_check(api_.cuda.graph_instantiate(&graph_exec_, graph_, 0), "cudaGraphInstantiate");
}

Status NcclComm::launch_graph() {
  if (!graph_exec_) return make_error(ErrorCode::kInternal, "no CUDA graph was captured", describe_rank(rank_));
  return cuda_check(api_.cuda.graph_launch(graph_exec_, stream_), "cudaGraphLaunch");
}

Comm::DeviceInfo NcclComm::device_info() {
  DeviceInfo d{device_, "", "GPU"};
  if (!api_.cuda.get_device_properties) return d;
  cudaDeviceProp prop{};
  if (api_.cuda.get_device_properties(&prop, device_) != cudaSuccess) return d;
  char bus[32];
  std::snprintf(bus, sizeof bus, "%04x:%02x:%02x", static_cast<unsigned>(prop.pciDomainID),
                static_cast<unsigned>(prop.pciBusID), static_cast<unsigned>(prop.pciDeviceID));
  d.bus_id = bus;
  prop.name[sizeof prop.name - 1] = '\0';
  d.name = prop.name;
  return d;
}

}  // namespace fabdiag::perf
