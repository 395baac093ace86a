// NCCL's own INFO lines of a `--backend nccl` run (bench, pairwise, triage), captured per rank
// and read back with the NCCL-log reader (import/nccl_log.h), so the result says which
// transport (NET/IB and its HCAs, NET/Socket, a net plugin; P2P/SHM inside the node) and which
// GPUDirect RDMA mode each host really used, not what the settings asked for.
//
// How: before NCCL's first call in the process, NCCL_DEBUG=INFO and NCCL_DEBUG_FILE=
// <private folder>/nccl.%h.%p.log are set (NCCL user guide, "Logging": NCCL_DEBUG_FILE writes
// the log to a file, %h the host name, %p the process id; NCCL's debug.cc opens it line
// buffered at its first log line, so what it wrote is on disk when the run returns). After the
// run each rank reads its process's files, rank 0 gathers them over the job's host Comm, and
// the folder is removed. A user who set NCCL_DEBUG or NCCL_DEBUG_FILE keeps their own logging:
// nothing is captured and the result says why.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "perf/comm.h"

namespace fabdiag::cmd {

/// Most bytes of NCCL log kept per process (a longer log is cut there, and the result says so).
inline constexpr size_t kMaxNcclInfoBytesPerProcess = 4u << 20;

/// The capture of this process's NCCL log for the length of one run (RAII).
class NcclInfoCapture {
 public:
  /// Unless NCCL_DEBUG or NCCL_DEBUG_FILE is already set in the process environment, makes a
  /// folder ($TMPDIR, else /tmp)/fabdiag-nccl-XXXXXX (mkdtemp, mode 0700) and sets
  /// NCCL_DEBUG=INFO and NCCL_DEBUG_FILE=<folder>/nccl.%h.%p.log (setenv: call it before any
  /// thread of the run starts). When it cannot, or the user's setting wins, active() is false
  /// and why_not() says why.
  NcclInfoCapture();
  /// Removes the files and the folder, and unsets the two variables it set.
  ~NcclInfoCapture();
  NcclInfoCapture(const NcclInfoCapture&) = delete;
  NcclInfoCapture& operator=(const NcclInfoCapture&) = delete;

  bool active() const { return !folder_.empty(); }
  const std::string& why_not() const { return why_not_; }
  /// The text of every file NCCL wrote in the folder, concatenated (each file at most
  /// kMaxNcclInfoBytesPerProcess, a cut one ending in a newline); "" when inactive or none.
  std::string text() const;

 private:
  std::string folder_;
  std::string why_not_;
};

/// Collective over `host` (the job's MPI Comm) after the run, on every rank: null when
/// `capture` is empty (not an NCCL run); else every rank's capture text gathered on rank 0 and
/// read by nccl_transport_json() there (null on the other ranks).
/// Errors: those of Comm::gather_strings.
Result<nlohmann::json> collect_nccl_transport(perf::Comm& host, const std::optional<NcclInfoCapture>& capture);

/// The `nccl_transport` member of a result (docs/SCHEMA.md "nccl_transport"): from the
/// captured `text`, read with import_nccl_log,
///   {captured: true, lines, nccl_lines, hosts: [{host, nccl_version, data_transport
///    ("IB", "Socket", a plugin, null), ib_devices [{index, name, port, link}], gdr_mode
///    ("GDRDMA", "disabled", "not used", null), gdr {HCA: {enabled, used_in_channels, read}},
///    net_channels {transport: n}, local_channels {"P2P/IPC": n, "SHM/direct/direct": n}, warns}],
///    gaps: [text]}
/// or {captured: false, reason} when `why_not` is not empty or the text holds no NCCL line.
/// Never fails: a log the reader refuses is {captured: false, reason: its error}.
nlohmann::json nccl_transport_json(const std::string& text, const std::string& why_not);

}  // namespace fabdiag::cmd
