// The NCCL backend of a build without the NCCL/CUDA headers: it says why it cannot run. With
// the headers, perf/nccl/nccl_bench.cpp implements these instead.
#include "core/build_config.h"

#if !FABDIAG_HAVE_NCCL_HEADERS
#include <cstdlib>

#include "perf/capabilities.h"
#include "perf/nccl_bench.h"
#include "perf/nccl_world.h"

namespace fabdiag::perf {

bool nccl_backend_compiled() { return false; }

Result<BenchResult> run_nccl_bench(const NcclBenchOptions&, const Progress&, const BenchStepSink&,
                                   const Environment&) {
  return make_error(ErrorCode::kUnsupported, nccl_backend_unavailable_reason());
}

struct NcclWorld::Impl {};
NcclWorld::NcclWorld() = default;
NcclWorld::~NcclWorld() = default;
Result<std::unique_ptr<NcclWorld>> NcclWorld::open(Comm&, const Environment&, bool* every_rank_failed, int) {
  if (every_rank_failed) *every_rank_failed = true;
  return make_error(ErrorCode::kUnsupported, nccl_backend_unavailable_reason());
}
// Never reached: open() makes no NcclWorld in this build.
Comm& NcclWorld::comm() { std::abort(); }
int NcclWorld::device() const { return 0; }
std::string NcclWorld::split_method() const { return ""; }
int NcclWorld::nccl_version_code() const { return 0; }
std::string NcclWorld::nccl_library_path() const { return ""; }

}  // namespace fabdiag::perf
#endif
