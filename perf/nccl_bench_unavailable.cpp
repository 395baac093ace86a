// The NCCL backend of a build without the NCCL/CUDA headers: it says why it cannot run. With
// the headers, perf/nccl/nccl_bench.cpp implements these instead.
#include "core/build_config.h"

#if !FABDIAG_HAVE_NCCL_HEADERS
#include "perf/capabilities.h"
#include "perf/nccl_bench.h"

namespace fabdiag::perf {

bool nccl_backend_compiled() { return false; }

Result<BenchResult> run_nccl_bench(const NcclBenchOptions&, const Progress&, const BenchStepSink&,
                                   const Environment&) {
  return make_error(ErrorCode::kUnsupported, nccl_backend_unavailable_reason());
}

}  // namespace fabdiag::perf
#endif
