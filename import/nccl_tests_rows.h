// The pieces of one nccl-tests text line the reader (import/nccl_tests_reader.cpp) and the JSON
// reader (import/nccl_tests_json.cpp) share: program names, the column header, data rows, the
// preamble lines ("# nThread ...", "# nccl-tests version ...", "#  Rank ..."). Internal to the
// nccl-tests import; the model is import/nccl_tests.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "import/nccl_tests.h"

namespace fabdiag::baseline::detail {

/// The nccl-tests program a token names ("all_reduce_perf", "/x/alltoall_perf_mpi",
/// "nccl_alltoall_perf"), or empty.
std::string program_of(std::string_view token);

/// Text of a '#' line without the '#' characters and surrounding blanks.
std::string strip_hash(std::string_view line);

/// True for a column-name header: "size count type ... time|cputime ... algbw ... busbw ...".
bool is_column_header(const std::vector<std::string>& t);

/// Column layout of one table, from its header row.
struct Columns {
  std::vector<std::string> front;  ///< names after size/count/type and before the first time column
  std::vector<std::string> half1;  ///< out-of-place names: time algbw busbw error|#wrong [i_min i_max i_p99 i_cv%]
  std::vector<std::string> half2;  ///< in-place names; empty when absent
  bool timestamp = false;          ///< a trailing "timestamp" column (two tokens per row)
  size_t tail_size() const { return half1.size() + half2.size(); }
};

/// The columns of a header's words; nullopt when a half holds a name nccl-tests never printed.
std::optional<Columns> columns_from_header(const std::vector<std::string>& t);

/// The columns of a header-less row when its shape is one of the two layouts: 13 fields
/// (size count type redop root time algbw busbw #wrong x2) or 12 fields (size count type redop
/// time algbw busbw error x2) with a known data type; nullopt otherwise.
std::optional<Columns> columns_from_row_shape(const std::vector<std::string>& t);

/// One data row against its table's columns; nullopt when it does not fit them, or holds a
/// number out of range (a size or count above 2^64-1, a time or bandwidth that is not finite in
/// seconds or bytes/s: 1e308 GB/s), and then *why (when given) says which cell.
std::optional<NcclTestsRow> parse_row(const Columns& c, std::vector<std::string> t, std::string* why = nullptr);

/// Whether `t` is one or more ASCII digits (a data row's size, even one too big for 64 bits).
bool is_digits(const std::string& t);

/// Bytes of one element of nccl-tests' data type ("float" 4, "bfloat16" 2, "f8e4m3" 1); 0 when unknown.
uint64_t dtype_bytes(const std::string& dtype);

/// "nThread 1 nGpus 1 ... warmup iters: 5 iters: 20 agg iters: 1 ...": warmup and iters.
void parse_nthread_line(const std::vector<std::string>& t, std::optional<int64_t>& warmup,
                        std::optional<int64_t>& iters);

/// What "nccl-tests version 2.17.6 nccl-headers=22803 nccl-library=22803" says.
struct TestsVersion {
  std::string version;
  std::optional<int64_t> headers, library;
};
/// That line's content (without '#'); nullopt for any other line.
std::optional<TestsVersion> parse_tests_version(const std::vector<std::string>& t);

/// What a command line that runs an nccl-tests program says.
struct CommandLine {
  std::string program;  ///< As program_of() names it; empty when the line runs none.
  std::vector<std::pair<std::string, std::string>> nccl_env;  ///< NCCL_*=value tokens before it.
  std::optional<int64_t> gpus;  ///< -np (of mpirun) x -t x -g; nullopt when none is given.
};
/// The words of one line read as a command line.
CommandLine parse_command_line(const std::vector<std::string>& t);

/// "Rank  0 Group  0 Pid 1935208 on node01 device  0 [000f:01:00] NVIDIA GB10" (without '#').
NcclTestsRank parse_rank_line(const std::vector<std::string>& t);

}  // namespace fabdiag::baseline::detail
