// The comparable measurements inside a result envelope: what `baseline save` indexes and
// `baseline diff` compares. Reads the documented data contracts:
//   fabdiag.bench/1     data = one bench table {collective, backend, dtype, ranks, hosts, ...,
//                       busbw_factor, results[{size_bytes, busbw_bytes_per_s, ...}]}, or
//                       {"tables": [bench table, ...]} (`fabdiag import nccl-tests` of a file
//                       with several tables);
//   fabdiag.pairwise/1  data = {hosts[N], matrix_bytes_per_s[N][N] (null = not measured), ...};
//   fabdiag.triage/1    data = {"bench": [bench table, ...], "pairwise": pairwise data,
//                       "suspects": [{kind, hosts[]}, ...], ...}.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/envelope.h"
#include "core/result.h"

namespace fabdiag::baseline {

/// The busbw of one collective at one message size (one results[] entry of a bench table).
struct CollectivePoint {
  std::string collective;          ///< "all_reduce", "alltoall", ...
  uint64_t size_bytes = 0;         ///< results[].size_bytes.
  double busbw_bytes_per_s = 0;    ///< results[].busbw_bytes_per_s.
  std::string backend;             ///< "mpi", "nccl"; empty when the table does not say.
  std::string dtype;               ///< "float", ...; empty when the table does not say.
  std::optional<int64_t> ranks;    ///< Ranks of the run; nullopt when unknown.
  /// Print resolution of the source in bytes/s (1e7 for nccl-tests' 0.01 GB/s); 0 = exact.
  /// Differences within it are rounding, not change.
  double resolution_bytes_per_s = 0;
  size_t table_index = 0;          ///< Index of the bench table in the document.
};

/// A node x node bandwidth matrix addressed by host name.
struct PairMatrix {
  std::vector<std::string> hosts;  ///< Unique host names, in document order.
  /// bytes_per_s[i][j]: bandwidth measured between hosts[i] (row) and hosts[j] (column),
  /// bytes/s; nullopt when not measured (the diagonal, pairs not run).
  std::vector<std::vector<std::optional<double>>> bytes_per_s;

  /// True when some pair was measured both ways with different values, so direction
  /// matters; false for a symmetric or one-triangle matrix.
  bool directed() const;
  /// Index of `host` in hosts, or nullopt.
  std::optional<size_t> index_of(const std::string& host) const;
  /// Bandwidth between `a` and `b` in bytes/s: matrix[a][b] when `directed`, else whichever of
  /// matrix[a][b] / matrix[b][a] was measured (their mean when both). nullopt when not
  /// measured or a host is unknown.
  std::optional<double> value(const std::string& a, const std::string& b, bool directed) const;
  /// Number of measured off-diagonal cells.
  size_t measured_cells() const;
};

/// Everything comparable in one document.
struct Measurements {
  std::string schema;                       ///< The envelope's schema.
  std::vector<CollectivePoint> collectives; ///< In document order.
  std::optional<PairMatrix> pairwise;
  std::vector<std::string> hosts;           ///< The envelope's hosts (one = a single-node run).
  /// fabdiag.triage/1 only: hosts of data.suspects[] (kind node or link), in the walk's order.
  std::vector<std::string> suspect_hosts;
  std::vector<Error> gaps;                  ///< Entries skipped (malformed values).
};

/// Schemas a baseline can hold: fabdiag.bench/1, fabdiag.pairwise/1, fabdiag.triage/1.
const std::vector<std::string>& baselinable_schemas();
/// True for one of baselinable_schemas().
bool is_baselinable_schema(const std::string& schema);

/// Extracts the measurements of `env`. `source` names the document in errors and gaps.
/// Errors: kInvalidArgument when the schema cannot be baselined; kParse when `data` does not
/// have the contract's shape or holds no measurement at all.
Result<Measurements> extract_measurements(const Envelope& env, const std::string& source);

}  // namespace fabdiag::baseline
