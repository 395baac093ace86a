// Which tool wrote a text: the one place that knows every reader's markers, used by
// `counters --from` (import/counter_formats.h), `check --from` (import/host_formats.h) and
// every `fabdiag import FORMAT` to detect a format or to refuse a file that is another tool's.
// Detection needs positive evidence: a marker line only that tool prints, or (syslog, ethtool -S)
// a majority of lines of its shape; a text that is nobody's is kUnknown, never a guess.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace fabdiag {

/// The tools whose text fabdiag reads.
enum class ToolText {
  kUnknown,
  kEthtoolS,       ///< `ethtool -S` (and `grep "" /sys/class/{infiniband,net}/...` path:value lines)
  kEthtoolM,       ///< `ethtool -m`
  kEthtoolFec,     ///< `ethtool [-I] --show-fec`
  kPerfquery,      ///< `perfquery`
  kIbqueryerrors,  ///< `ibqueryerrors`
  kRdmaStatistic,  ///< `rdma statistic show`
  kSyslog,         ///< syslog, journal or dmesg lines
  kLspci,          ///< `lspci -vvv`
  kIbstat,         ///< `ibstat`
  kIbstatus,       ///< `ibstatus`
  kIbvDevinfo,     ///< `ibv_devinfo`
  kNcclLog,        ///< NCCL_DEBUG log lines ("NCCL INFO", "NCCL WARN")
  kNcclTests,      ///< nccl-tests result tables
  kNvsmiTopo,      ///< `nvidia-smi topo -m`
  kNcclInspector,  ///< NCCL Inspector output ("coll_perf" / "dump_stats" records, nccl_* Prometheus lines)
  kNcclRas,        ///< NCCL RAS report: text ("Job summary" / "Communicators" tables), JSON ("communicators_count"), monitor events ("[time] PEER_DEAD: ...")
  kPytorchWatchdog,  ///< PyTorch ProcessGroupNCCL watchdog lines ("Watchdog caught collective operation timeout")
  kNvsmiNvlink,    ///< `nvidia-smi nvlink -s` / `--status` / `-e` ("Link 0: 25 GB/s", "Link 0: Replay Errors: 0")
  kDcgmi,          ///< `dcgmi nvlink --link-status` / `dcgmi diag` tables
  kNvrmXid,        ///< kernel log lines with "NVRM: Xid (PCI:...): N, ..." (dmesg, journal, syslog)
  kIblinkinfo,     ///< `iblinkinfo` ("==( 4X 10.0 Gbps Active/  LinkUp)==>" port lines)
  kSonicPfc,       ///< SONiC `show pfc counters` ("Port Rx  PFC0 ... PFC7" tables)
  kSonicPfcwd,     ///< SONiC `show pfcwd stats` ("QUEUE  STATUS  STORM DETECTED/RESTORED ..." table)
  kPerftest,       ///< perftest `ib_write_bw` / `ib_read_bw` / `*_lat` ("RDMA_Write BW Test", "#bytes #iterations ...")
  kPairsList,      ///< a hand-made "hostA,hostB  GB/s" list (no marker: never detected, only named)
  kLldpctl,        ///< lldpd `lldpctl` / `lldpcli show neighbors` (text, or -f json's "lldp" object)
  kIbdev2netdev,   ///< Mellanox OFED `ibdev2netdev` [-v] ("mlx5_0 port 1 ==> ib0 (Up)")
  kRdmaLink,       ///< iproute2 `rdma link show` [-j] ("link mlx5_0/1 state ACTIVE physical_state LINK_UP ...")
  kIbnetdiscover,  ///< infiniband-diags `ibnetdiscover` [-p] ("Switch 36 \"S-...\"" blocks, "SW 2 19 0x... 4x NDR - CA ..." lines)
  kNvsmiQuery,     ///< `nvidia-smi -q` ("==============NVSMI LOG==============", "GPU 00000000:18:00.0" blocks)
  kShowGids,       ///< Mellanox `show_gids` ("DEV PORT INDEX GID IPv4 VER DEV" table, its rows, "n_gids_found=N")
  kIbportstate,    ///< infiniband-diags `ibportstate` / `smpquery portinfo` ("# Port info: Lid 3 port 1", "Switch PortInfo:")
  kIbnodes,        ///< infiniband-diags `ibhosts` / `ibswitches` / `ibnodes` ("Ca\t: 0x... ports 2 \"node41 HCA-1\"")
  kOsu,            ///< OSU micro-benchmarks ("# OSU MPI Bandwidth Test v7.2", "# Size  Bandwidth (MB/s)")
  kImb,            ///< Intel MPI Benchmarks ("Intel(R) MPI Benchmarks" banner, "# Benchmarking PingPong", "#bytes #repetitions")
  kMpiGraph,       ///< LLNL mpiGraph ("START mpiGraph v1.5", "Send max\t2805.4", "END mpiGraph")
  kNvsmiDmon,      ///< `nvidia-smi dmon` ("# gpu   pwr gtemp mtemp    sm ..." header and its units line)
  kSonicIntfCounters,  ///< SONiC `show interfaces counters` [errors|rates|fec-stats|detailed] ("IFACE  STATE ..." tables)
  kNvueInterface,  ///< Cumulus Linux NVUE `nv show interface [IF] counters|link phy-detail|--view=counters`
};

/// "`ethtool -S` output", "ibstat output", ... for messages.
const char* describe(ToolText tool);

/// The tool a single line betrays by a marker only that tool prints ("CA 'mlx5_0'" -> ibstat,
/// "hca_id:" -> ibv_devinfo, "FEC parameters for eth0:" -> ethtool --show-fec, "NIC
/// statistics:" -> ethtool -S, ...); kUnknown when the line could be anyone's. "###" titles of
/// case files are not markers.
ToolText marker_of_line(std::string_view line);

/// What the first lines of an input say about its tool.
struct ToolEvidence {
  ToolText tool = ToolText::kUnknown;
  size_t line = 0;   ///< 1-based line of the evidence (the marker, or the first line counted).
  std::string text;  ///< That line, trimmed and cut to 80 characters.
  bool binary = false;  ///< The lines hold NUL bytes (no text tool prints one).
};

/// Names the tool of `head` (the first lines of an input, line i numbered first_line + i):
/// the first marker line wins (an "NVRM: Xid" or "fallen off the bus" line is a marker even inside
/// a timestamped log: such a log is kNvrmXid, which `counters --from` still reads as syslog, and
/// so is a PyTorch watchdog line); without one, an NCCL log when most non-blank lines are NCCL
/// lines, else syslog when most non-blank lines start with a timestamp, ethtool -S when most are "name: integer" with a name without blanks, or sysfs
/// path:value lines; kUnknown otherwise.
ToolEvidence detect_tool(const std::vector<std::string>& head, size_t first_line = 1);

/// The same over a whole text (tests, small inputs): its first 256 lines.
ToolEvidence detect_tool_in_text(std::string_view text);

/// Checks that `head` may be `named`'s output: kParse naming "SOURCE:LINE" when a marker line
/// says it is another tool's ("expected `ethtool -S` output, but this is ibstat output: line 1
/// \"CA 'mlx5_0'\""). Logs (syslog, NCCL logs) and nccl-tests output carry other tools' lines,
/// so only the structured formats are refused this way (a PyTorch watchdog log is a log too).
Status check_named_tool(ToolText named, const std::vector<std::string>& head, const std::string& source,
                        size_t first_line = 1);

/// True when `line` holds an NVIDIA driver Xid report: "NVRM: Xid (PCI:0000:9b:00): 119, ..."
/// (after any timestamp, host and "kernel:" tag).
bool is_nvrm_xid_line(std::string_view line);

/// True when `line` is the driver's report of a GPU lost from the PCIe bus without an Xid code:
/// "NVRM: GPU 0000:01:00.0: GPU has fallen off the bus." or the last line of the multi-line
/// form of newer drivers ("NVRM: fallen off the bus and is not responding to commands.").
bool is_nvrm_gpu_lost_line(std::string_view line);

/// A line for messages: trimmed, cut to 80 characters, bytes other than printable ASCII as
/// '?', quoted: "\"CA 'mlx5_0'\"".
std::string quote_line(std::string_view line);

}  // namespace fabdiag
