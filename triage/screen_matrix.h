// The screen's pair matrices for the report (fabdiag.pairwise/1 matrix_bytes_per_s and
// directed_bytes_per_s): small clusters only, where every pair was measured.
#pragma once

#include <map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "triage/localize.h"

namespace fabdiag::triage {

/// N x N bytes/s per direction of the slower direction, from `value` keyed (a < b); null where a
/// pair was not measured or its test failed.
nlohmann::json screen_matrix(int n, const std::map<std::pair<int, int>, double>& value);

/// matrix[src][dst]: the rate of src -> dst alone (mpiGraph's per-direction view), null where not
/// measured.
nlohmann::json directed_matrix(int n, const std::vector<PairSample>& samples);

}  // namespace fabdiag::triage
