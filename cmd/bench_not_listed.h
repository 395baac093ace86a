// The section of the tests an MPI benchmark reader summarised past --max-findings (OSU tests,
// IMB blocks; import/mpi_bench_sweep.h BenchNotListed). Defined in cmd/import_osu.cpp.
#pragma once

#include <cstddef>

#include "import/mpi_bench_sweep.h"
#include "report/document.h"

namespace fabdiag::cmd {

/// Their count and per title and size the runs, min, mean and max (at most `max` rows, 0 = all).
Section bench_not_listed_section(const BenchNotListed& n, size_t max);

}  // namespace fabdiag::cmd
