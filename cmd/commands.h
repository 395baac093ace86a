// Entry points of the subcommands. main.cpp (the only file that includes CLI11) parses flags
// into these option structs and calls run_*; each run_* lives in cmd/<name>.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cmd/common.h"

namespace fabdiag::cmd {

/// `fabdiag doctor`: capabilities of this binary on this host.
struct DoctorOptions {};
int run_doctor(const GlobalOptions& g, const DoctorOptions& o);

// ---- bench ----
/// `fabdiag bench COLL`: one collective over a size sweep, nccl-tests style (run under mpirun,
/// one rank per node or GPU; only rank 0 prints). Sizes stay text here: run_bench parses the
/// K/M/G suffixes so that a bad size is a usage error (exit 2) naming the flag.
struct BenchOptions {
  std::string collective;         ///< all_reduce, all_gather, reduce_scatter, alltoall, ...
  std::string min_bytes = "8";    ///< -b
  std::string max_bytes = "64M";  ///< -e
  uint64_t factor = 2;            ///< -f
  int warmup_iters = 5;           ///< -w
  int iters = 20;                 ///< -n
  std::string dtype = "float";    ///< --dtype
  std::string backend = "mpi";    ///< --backend mpi|nccl
};
int run_bench(const GlobalOptions& g, const BenchOptions& o);

// ---- pairwise ----
/// `fabdiag pairwise`: node x node bandwidth matrix from round-robin rounds of concurrent
/// bidirectional pairs (run under mpirun with one rank per node; only rank 0 prints).
struct PairwiseOptions {
  std::string size = "4M";     ///< --size: bytes each way per exchange
  int iters = 5;               ///< -n
  int warmup_iters = 1;        ///< -w
  std::string backend = "mpi"; ///< --backend mpi|nccl
  double node_ratio = 0.5;     ///< --node-ratio: slow node below this x reference
  double pair_ratio = 0.15;    ///< --pair-ratio: slow pair below this x reference
};
int run_pairwise(const GlobalOptions& g, const PairwiseOptions& o);

}  // namespace fabdiag::cmd
