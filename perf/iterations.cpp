#include "perf/iterations.h"

#include <string>

namespace fabdiag::perf {

Status validate_iterations(int iters, int warmup_iters) {
  if (iters < 1)
    return make_error(ErrorCode::kInvalidArgument,
                      "iterations (-n) must be at least 1, got " + std::to_string(iters));
  if (warmup_iters < 0)
    return make_error(ErrorCode::kInvalidArgument,
                      "warm-up iterations (-w) must be >= 0, got " + std::to_string(warmup_iters));
  return Ok{};
}

}  // namespace fabdiag::perf
