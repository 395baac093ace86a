// Import of NCCL_DEBUG=INFO/WARN logs (any NCCL since 2.4; docs/domain.md#nccl-log-lines): per
// host the NCCL version, the transport that carries inter-node data (NET/IB with HCA and port,
// NET/Socket with the interface, a net plugin; P2P/SHM inside the node), GPUDirect RDMA per HCA,
// the bootstrap socket told apart from the data transport, the NCCL_* settings echoed, and the
// WARN lines (work completion errors with the verbs status meaning, ibv_modify_qp failures,
// timeouts) counted per host so that "3 of 5 hosts" reads as systemic and "1 of 64" as one node.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/finding.h"
#include "core/line_source.h"
#include "core/result.h"
#include "import/input_reader.h"
#include "probes/check/check_model.h"

namespace fabdiag {

/// The "host:pid:tid [dev] NCCL INFO|WARN text" prefix of one line (also "host:pid [dev]" and
/// ids a paste redacted, "node01:XXXXXX [5]"), mpirun/srun/torchrun tags ("[1,0]<stdout>:",
/// "[default0]:", "0: ", "[0] ") and timestamps before it skipped, and NCCL's source
/// position between the device and the level ("[0] transport/net_ib.cc:1295 NCCL WARN") passed over.
struct NcclLinePrefix {
  std::string host;          ///< "node01"; empty when the line names none ("ibvwrap.cc: NCCL WARN ...").
  std::optional<long> pid;   ///< Process id, when the prefix has one.
  bool redacted_pid = false; ///< The prefix had a pid field its owner blanked out ("node01:XXXXXX [5]").
  std::optional<int> dev;    ///< The bracketed number: NCCL's cudaDev of the thread (not the rank).
  bool warn = false;         ///< "NCCL WARN" (else "NCCL INFO", or TRACE / ABORT lines).
  bool source_only = false;  ///< Nothing but NCCL's source position before the level ("ibvwrap.cc: NCCL WARN").
  std::string text;          ///< What follows "NCCL INFO " / "NCCL WARN ", trimmed.
};

/// The prefix of an NCCL line; nullopt when the line holds no " NCCL INFO|WARN|TRACE|ABORT ".
std::optional<NcclLinePrefix> parse_nccl_prefix(std::string_view line);

/// "2.18.5+cuda12.2" of "NCCL version 2.18.5+cuda12.2" (any text before "NCCL version"); nullopt otherwise.
std::optional<std::string> parse_nccl_version(std::string_view text);

/// One connection line: "Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA" (2.12+),
/// "Channel 00 : 0[1c000] -> 1[1d000] via P2P/IPC" (2.7+), "Ring 00 : 7 -> 8 [receive] via
/// NET/IB/0/GDRDMA" (2.4).
struct NcclChannel {
  int from_rank = -1, to_rank = -1;
  std::string via;        ///< "NET/IB/0/GDRDMA", "P2P/IPC", "SHM/direct/direct", "NET/Socket/1".
  std::string transport;  ///< "IB", "Socket", a plugin's name ("AWS Libfabric", "IBext"), "P2P", "SHM", "CollNet", ...
  bool network = false;   ///< A NET/ (inter-node) connection.
  std::optional<int> net_dev;  ///< The NET device index ("NET/IB/0" -> 0).
  bool gdr = false;       ///< "/GDRDMA": GPUDirect RDMA on this connection.
};
/// The connection of a "Channel ..." / "Ring ..." text; nullopt for any other text.
std::optional<NcclChannel> parse_nccl_channel(std::string_view text);

/// One device of "NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/IB [RO]; OOB eth0:10.0.0.1<0>"
/// or of "NET/Socket : Using [0]eth0:10.0.0.1<0> [1]virbr0:<0>".
struct NcclNetDevice {
  int index = 0;
  std::string name;         ///< "mlx5_0" or "eth0".
  std::optional<int> port;  ///< IB port ("mlx5_0:1" -> 1).
  std::string link;         ///< "IB" or "RoCE" (NET/IB); empty for sockets.
  std::string address;      ///< Socket address ("10.0.0.1"); empty when NCCL printed none.
};
/// The devices of a "Using [i]..." list; empty when `list` holds none.
std::vector<NcclNetDevice> parse_nccl_net_devices(std::string_view list);

/// A work completion error of "NET/IB : Got completion from peer P with status=12 opcode=0 len=0
/// vendor err 129 (Send) ... hca mlx5_0" (2.12+) or "... with error 12, opcode 1, len 0, vendor
/// err 129" (2.4..2.11); nullopt for any other text. `line`/`source` are left empty.
std::optional<WcError> parse_nccl_wc_error(std::string_view text);

/// One WARN line, classified.
struct NcclWarn {
  std::string kind;     ///< "completion_error", "ibv_modify_qp", "timeout", "connection_closed", "other".
  std::string host;     ///< Empty when the line names none.
  std::optional<long> pid;
  std::optional<int> dev;
  std::optional<WcError> wc;  ///< For completion errors.
  std::string peer;     ///< "10.0.0.2<39042>" when the line names the peer.
  std::string text;     ///< The WARN text.
  size_t line = 0;
};

/// GPUDirect RDMA of one HCA as NCCL logged it.
struct NcclGdr {
  std::optional<bool> enabled;  ///< "GPU Direct RDMA Enabled|Disabled for HCA"; nullopt = not logged.
  bool used_in_channels = false;  ///< Some channel on this HCA ran "/GDRDMA".
  bool read = false;            ///< "read 1" (GDR reads enabled).
  std::string distance;         ///< "distance 6 > 5" when NCCL disabled it for the GPU-NIC distance.
  size_t line = 0;
};

/// What the log says about one host (lines without a host are under the empty name).
struct NcclHostLog {
  std::string host;
  std::string version;  ///< "2.18.5+cuda12.2"; empty when no "NCCL version" line of this host.
  std::map<long, std::optional<int>> processes;  ///< pid -> cudaDev.
  std::map<long, int> ranks;                     ///< pid -> rank (from "comm ... rank R").
  std::optional<int> nranks;
  std::vector<NcclNetDevice> ib_devices;      ///< "NET/IB : Using ..." (first list seen).
  std::vector<NcclNetDevice> socket_devices;  ///< "NET/Socket : Using ..." (first list seen).
  std::string bootstrap;    ///< "Bootstrap : Using eth0:10.0.0.1<0>" / the NET/IB "OOB" interface.
  std::string network;      ///< "Using network IB|Socket|<plugin>" (the last one).
  std::string plugin;       ///< "none" ("No plugin found"), or the loaded net plugin's words.
  bool ib_no_device = false;  ///< "NET/IB : No device found."
  std::map<std::string, NcclGdr> gdr;  ///< HCA name -> GPUDirect RDMA.
  std::map<std::string, size_t> net_channels;    ///< transport ("IB", "Socket", plugin) -> connections.
  std::map<std::string, size_t> local_channels;  ///< "P2P/IPC", "SHM/direct/direct", ... -> connections.
  std::map<int, size_t> channels_on_net_dev;     ///< NET device index -> connections.
  size_t gdr_channels = 0;  ///< NET connections that ran "/GDRDMA" (whether or not the HCA list was logged).
  std::vector<std::string> speed_assumed;  ///< "lo" of "Could not get speed from /sys/class/net/lo/speed".
  size_t lines = 0, warns = 0;
  size_t first_line = 0;
};

/// One RoCE GID table entry of a pasted `ibv_devinfo -v` / show_gids excerpt.
struct NcclGidEntry {
  int index = 0;
  std::string gid;   ///< As printed.
  std::string version;  ///< "v1" or "v2".
  bool link_local = false;   ///< fe80::/64.
  std::string ipv4;  ///< "192.0.2.6" for an IPv4-mapped GID; empty otherwise.
  size_t line = 0;
};

/// Everything read from one log.
struct NcclLogImport {
  std::string source;
  std::vector<NcclHostLog> hosts;  ///< In order of first appearance.
  /// NCCL_* settings: "NCCL_IB_HCA set by environment to mlx5_0" echoed by NCCL, and
  /// NCCL_X=value lines of a pasted environment. Name -> value (the first seen) and line.
  std::map<std::string, std::pair<std::string, size_t>> settings;
  std::vector<NcclWarn> warns;      ///< At most limits.max_listed of one kind kept; see warn_counts.
  std::map<std::string, size_t> warn_counts;  ///< kind -> lines.
  std::vector<std::string> feature_lines;  ///< First CollNet / NVLS / SHARP messages (at most 20).
  std::string gid_device;           ///< "mlx5_bond_0" of a pasted GID table, when named.
  std::vector<NcclGidEntry> gids;   ///< A pasted GID table (at most 256 entries).
  size_t nccl_lines = 0, lines = 0;
  /// What was not read: a last line cut without its newline (kParse naming "SOURCE:LINE").
  std::vector<Error> gaps;
};

/// Reads an NCCL log, streamed (memory: the hosts, processes and settings, not the lines).
/// Other lines (a pasted environment, "###" titles, ibv_devinfo GID tables, program output)
/// are read for settings and GIDs or skipped.
/// Errors: kParse naming "SOURCE:LINE" (the first line that is not one) when no line is a whole
/// "host:pid:tid [dev] NCCL INFO|WARN ..." line, a "file.cc: NCCL WARN ..." quote or NCCL's version
/// banner (a "foo NCCL INFO bar" quoted in other output is not), or the input is binary; kIo of
/// the line source. A last line cut without its newline is not read: a gap (NcclLogImport::gaps).
/// Past 65536 distinct hosts, further hosts' lines are pooled into one entry named "(hosts past
/// 65536)" and a gap says so: memory stays bounded whatever the log holds.
Result<NcclLogImport> import_nccl_log(LineSource& lines, const std::string& source, const ReadLimits& limits);

/// The same over a text held in memory, with the default limits.
Result<NcclLogImport> import_nccl_log(std::string_view text, const std::string& source);

/// The data transport of one host, decided from channels first, then "Using network", then the
/// device lists: "IB", "Socket", a plugin name, or "" when the log does not say (a 2.4 process
/// cut after its "NET/Socket : Using" line is not a Socket fallback).
std::string nccl_data_transport(const NcclHostLog& h);

/// The GPUDirect RDMA mode of one host's inter-node data: "GDRDMA" when a NET/IB channel ran
/// "/GDRDMA" (NCCL's transport/net.cc names the connection so), "disabled" when NCCL logged
/// "GPU Direct RDMA Disabled for HCA" and no channel used it, "not used" when network channels
/// ran without it (sockets, or IB through host memory), "" when the log does not say (no
/// network channel: a single host's P2P/SHM run).
std::string nccl_gdr_mode(const NcclHostLog& h);

/// The findings of an import (docs/domain.md#nccl-log-findings): Socket fallback and its cause,
/// a socket on loopback, GPUDirect RDMA disabled per host and HCA, completion errors with the
/// status meaning, ibv_modify_qp failures, timeouts, each with "on K of N hosts", GID choice.
std::vector<Finding> nccl_log_findings(const NcclLogImport& imp);

/// The `data` of the fabdiag.nccllog/1 envelope (docs/SCHEMA.md).
nlohmann::json nccl_log_data(const NcclLogImport& imp);

}  // namespace fabdiag
