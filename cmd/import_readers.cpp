// The rows of the `fabdiag import` reader registry (cmd/import_readers.h).
#include "cmd/import_readers.h"

#include "cmd/common.h"
#include "cmd/input.h"
#include "core/repeats.h"

#include <vector>

namespace fabdiag::cmd {

// The read functions, each in its cmd/import_<format>.cpp (declared here: only this table
// calls them).
Result<ImportOutput> read_import_nvsmi_topo(const ImportFileOptions& o);
Result<ImportOutput> read_import_nccl_log(const ImportFileOptions& o);
Result<ImportOutput> read_pytorch_watchdog(const ImportFileOptions& o);
Result<ImportOutput> read_nccl_ras(const ImportFileOptions& o);
Result<ImportOutput> read_nccl_inspector(const ImportFileOptions& o);
Result<ImportOutput> read_nvsmi_nvlink(const ImportFileOptions& o);
Result<ImportOutput> read_dcgmi(const ImportFileOptions& o);
Result<ImportOutput> read_xid_log(const ImportFileOptions& o);
Result<ImportOutput> read_nvsmi_query(const ImportFileOptions& o);

namespace {

constexpr const char* kNvlinkFooter =
    "Reads -s/--status (\"Link N: 25 GB/s\", \"<inactive>\", NVML's all-inactive sentence) and -e (replay,\n"
    "recovery, CRC counters); several captures and GPUs in one file are merged per GPU.\n"
    "Exit codes: 0 links up, 1 findings (links inactive, slow, error counters), 2 FILE missing or\n"
    "not this format, 4 the last line was cut.";
constexpr const char* kDcgmiFooter =
    "Reads `dcgmi nvlink --link-status` and `dcgmi diag -r 1|2|3` tables (wrapped cells, cut tables: the\n"
    "tests after a cut are unknown, not passed). Links Down stay an error whatever the diag says.\n"
    "Exit codes: 0 nothing wrong, 1 findings, 2 FILE missing or not dcgmi output, 4 a table or line was cut.";
constexpr const char* kNvsmiQueryFooter =
    "Reads the full query, -d subsets (PCIE, ECC, PAGE_RETIREMENT, ROW_REMAPPER, PERFORMANCE, ...), -l loops\n"
    "(the last block of a GPU wins), \"host: \" prefixes and grep -A fragments without GPU headers.\n"
    "Exit codes: 0 nothing wrong, 1 findings (PCIe width, ECC, remap, slowdown, fabric), 2 FILE missing or\n"
    "not nvidia-smi -q output, 4 a cut last line or GPU block (listed under errors).";
constexpr const char* kXidFooter =
    "Reads dmesg, dmesg -T, journalctl -k and syslog files; a log without Xid lines is healthy. Meanings\n"
    "and actions from NVIDIA's Xid catalog (import/data/xid_catalog.json).\n"
    "Exit codes: 0 no Xid, 1 Xid findings, 2 FILE missing or not a kernel log, 4 the last line was cut.";

}  // namespace

Result<ImportOutput> read_iblinkinfo(const ImportFileOptions& o);
Result<ImportOutput> read_sonic_pfc(const ImportFileOptions& o);
Result<ImportOutput> read_sonic_pfcwd(const ImportFileOptions& o);
Result<ImportOutput> read_lldpctl(const ImportFileOptions& o);
Result<ImportOutput> read_perftest(const ImportFileOptions& o);
Result<ImportOutput> read_pairs(const ImportFileOptions& o);
Result<ImportOutput> read_ibdev2netdev(const ImportFileOptions& o);
Result<ImportOutput> read_show_gids(const ImportFileOptions& o);
Result<ImportOutput> read_rdma_link(const ImportFileOptions& o);
Result<ImportOutput> read_ibnetdiscover(const ImportFileOptions& o);
Result<ImportOutput> read_ibportstate(const ImportFileOptions& o);
Result<ImportOutput> read_ibnodes(const ImportFileOptions& o);
Result<ImportOutput> read_osu(const ImportFileOptions& o);
Result<ImportOutput> read_imb(const ImportFileOptions& o);
Result<ImportOutput> read_mpigraph(const ImportFileOptions& o);
Result<ImportOutput> read_nvsmi_dmon(const ImportFileOptions& o);
Result<ImportOutput> read_sonic_intf_counters(const ImportFileOptions& o);
Result<ImportOutput> read_nvue_interface(const ImportFileOptions& o);

std::span<const ImportReader> import_readers() {
  // {name, ToolText, help, footer, read}: one row per format.
  static const std::vector<ImportReader> readers = {
      {"nvidia-smi-topo", ToolText::kNvsmiTopo,
       "`nvidia-smi topo -m` output -> fabdiag.topo/1 (matrix, affinity, NIC legend, rails)",
       "Space or tab separated. Rows cut off or truncated, no NIC rows, no legend are tolerated: those\n"
       "cells stay unknown.\n"
       "Exit codes: 0 ok, 1 rails findings (warn or worse: NICs shared by GPUs, GPU without a local\n"
       "NIC), 2 FILE unreadable or without a matrix, 4 rows missing or truncated.",
       read_import_nvsmi_topo},
      {"nccl-log", ToolText::kNcclLog,
       "NCCL_DEBUG=INFO/WARN log -> fabdiag.nccllog/1 (per host: version, data transport, GPUDirect "
       "RDMA, settings, WARN lines)",
       "Any NCCL since 2.4; hosts interleaved, mpirun tags allowed. A NET/Socket list next to NET/IB\n"
       "is bootstrap, not a fallback.\n"
       "Exit codes: 0 nothing wrong, 1 a warn/error/critical finding, 2 FILE missing or\n"
       "without an NCCL line, 4 a cut last line or unreadable part (listed under errors).",
       read_import_nccl_log},
      {"pytorch-watchdog", ToolText::kPytorchWatchdog,
       "PyTorch ProcessGroupNCCL watchdog timeouts -> fabdiag.torchwatchdog/1 (per process group: SeqNum, op, "
       "elements, timeout, last enqueued/completed work per rank; who is stuck, who moved on)",
       "Reads \"Watchdog caught collective operation timeout\" and \"last enqueued NCCL work\" lines (mpirun\n"
       "tags allowed, other log lines passed over) and torchrun's failure summary for hosts.\n"
       "Exit codes: 0 no timeout, 1 a collective timed out, 2 FILE unreadable or without a watchdog line,\n"
       "4 a watchdog line is cut (listed under errors).",
       read_pytorch_watchdog},
      {"nccl-ras", ToolText::kNcclRas,
       "NCCL RAS report (text 2.24+, `-f json` 2.28.7+) or monitor events (`-m`, 2.29+) -> fabdiag.ncclras/1 "
       "(communicators, MISMATCH / INCOMPLETE / DEAD / ERROR entries: who is ahead, how many lag, which rank, GPU "
       "and node is missing; peers that went dead or unreachable and when)",
       "Reads the text report, the JSON report (streamed; a cut document keeps its complete records) and\n"
       "monitor-mode events, text or JSON (repeats counted).\n"
       "Exit codes: 0 no entry, 1 an Errors or Warnings entry, 2 FILE unreadable or not a RAS report,\n"
       "4 the report is cut (listed under errors).",
       read_nccl_ras},
      {"nccl-inspector", ToolText::kNcclInspector,
       "NCCL Inspector output (JSON v4.x records, Prometheus lines) -> fabdiag.ncclinspector/1 (per rank and "
       "collective: busbw, execution time; dump markers with dropped records)",
       "Reads coll_perf and dump_stats records (one per line or pretty-printed) and nccl_* Prometheus lines.\n"
       "Exit codes: 0 nothing to report, 1 records dropped or an inconsistent record, 2 FILE unreadable\n"
       "or without an Inspector record, 4 a record is cut (listed under errors).",
       read_nccl_inspector},
      {"nvidia-smi-nvlink", ToolText::kNvsmiNvlink,
       "`nvidia-smi nvlink -s` / `-e` text -> fabdiag.gpulinks/1 (per GPU: links up, speed, error counters)",
       kNvlinkFooter, read_nvsmi_nvlink},
      {"dcgmi", ToolText::kDcgmi,
       "`dcgmi nvlink --link-status` / `dcgmi diag` text -> fabdiag.dcgmi/1 (link states, diag results per test)",
       kDcgmiFooter, read_dcgmi},
      {"nvidia-smi-q", ToolText::kNvsmiQuery,
       "`nvidia-smi -q` text -> fabdiag.gpuquery/1 (per GPU: PCIe link gen/width, ECC, retired pages, remapped "
       "rows, clock event reasons, fabric state)",
       kNvsmiQueryFooter, read_nvsmi_query},
      {"xid", ToolText::kNvrmXid,
       "kernel log (dmesg/journal/syslog) -> fabdiag.xid/1 (NVRM Xid per GPU: count, first/last, catalog action)",
       kXidFooter, read_xid_log},
      {"iblinkinfo", ToolText::kIblinkinfo,
       "`iblinkinfo` output -> fabdiag.iblinks/1 (per switch port: width, lane speed, far end; links below the switch's speed)",
       "Reads old and new releases, -l line mode and -p settings. Exit: 0 no warning; 1 a link below the switch's "
       "speed or a port not Active; 4 lines not understood or a cut last line; 2 not iblinkinfo output.",
       &read_iblinkinfo},
      {"sonic-pfc-counters", ToolText::kSonicPfc,
       "SONiC `show pfc counters` -> fabdiag.pfc/1 (per switch port the PFC pause frames received and sent per priority)",
       "Reads the Rx and Tx tables (commas, N/A), \"Last cached time was\", later samples as deltas. Exit: 0 no "
       "warning; 1 pause frames on a port; 4 a cut row or table, lines not understood; 2 not pfcstat output.",
       &read_sonic_pfc},
      {"sonic-pfcwd-stats", ToolText::kSonicPfcwd,
       "SONiC `show pfcwd stats` -> fabdiag.pfcwd/1 (per watched queue: status, PFC storms detected/restored, packets dropped)",
       "Reads the table with or without STATUS, shell prompts between samples, N/A. Exit: 0 no storm; 1 a storm "
       "(stormed now: error) or the watchdog stopped; 4 a cut row, lines not understood; 2 not pfcwd output.",
       &read_sonic_pfcwd},
      {"lldpctl", ToolText::kLldpctl,
       "`lldpctl` (text or -f json) -> fabdiag.lldp/1 (per local port the neighbour switch, its port, speed, MFS, VLAN)",
       "Reads lldpd's plain text and -f json (lists of one as objects). Exit: 0 no warning; 1 two local ports on "
       "one far port; 4 lines not understood or a cut last line; 2 not lldpctl output or JSON that does not parse.",
       &read_lldpctl},
      {"perftest", ToolText::kPerftest,
       "perftest `ib_write_bw`/`ib_read_bw`/`ib_send_bw`/`*_lat` output -> fabdiag.perftest/1 (device, MTU, GID index, bandwidth or latency per size)",
       "Reads either side, Gb/sec or MB/sec, duration mode (peak 0.00 is not measured). Exit: 0 no warning; 1 no "
       "result or 0 bandwidth; 4 lines not understood or a cut last line; 2 not perftest output.",
       &read_perftest},
      {"pairs", ToolText::kPairsList,
       "a list of 2-node results (\"hostA,hostB  <GB/s>  [# note]\") -> fabdiag.pairwise/1 (slow nodes, suspects, slow links)",
       "Judged like `fabdiag pairwise` with the fabric thresholds (p90 reference). Exit: 0 nothing slow; 1 a slow node "
       "or link; 4 lines not a pair or a cut last line; 2 no pair in the file or another tool's output.",
       &read_pairs},
      {"ibdev2netdev", ToolText::kIbdev2netdev,
       "Mellanox OFED `ibdev2netdev` (plain or -v) -> fabdiag.ibdev2netdev/1 (per RDMA port its netdev and state; -v: PCI address, part, firmware, port state)",
       "Reads \"mlx5_0 port 1 ==> ib0 (Up)\" lines, the -v form and pdsh/clush \"host: \" prefixes. Exit: 0 no warning; "
       "1 a netdev Down or a port not ACTIVE; 4 lines not understood or a cut last line; 2 not ibdev2netdev output.",
       &read_ibdev2netdev},
      {"show-gids", ToolText::kShowGids,
       "Mellanox `show_gids` -> fabdiag.gids/1 (per RDMA port its GIDs: index, RoCE v1/v2, IPv4, netdev; the index NCCL_IB_GID_INDEX should name)",
       "Reads the table with or without its header (`show_gids | grep v2`), \"n_gids_found=N\", \"host: \" prefixes. Exit: 0 no "
       "warning; 1 a port with RoCE v1 only or no IPv4 RoCE v2 GID; 4 lines not understood, a cut last line or a count that "
       "does not match; 2 not show_gids output.",
       &read_show_gids},
      {"rdma-link", ToolText::kRdmaLink,
       "iproute2 `rdma link show` (text or -j) -> fabdiag.rdmalinks/1 (per RDMA port: state, physical_state, netdev, LID)",
       "Reads the text records (InfiniBand and RoCE, -d caps, \"host: \" prefixes) and -j / -jp JSON. Exit: 0 no warning; "
       "1 a link not ACTIVE or not LINK_UP; 4 lines not understood or a cut last line; 2 not rdma link output or JSON "
       "that does not parse.",
       &read_rdma_link},
      {"ibnetdiscover", ToolText::kIbnetdiscover,
       "infiniband-diags `ibnetdiscover` (plain or -p) -> fabdiag.ibfabric/1 (the fabric graph: switches as leaf/spine, their hosts and uplinks, links with width and speed)",
       "Reads the topology file (Switch/Ca blocks, \"[port]\" lines) and -p/--ports lines; each link once. Exit: 0 no "
       "warning; 1 a link narrower or slower than most of its kind; 4 lines not understood or a cut last line; 2 not "
       "ibnetdiscover output.",
       &read_ibnetdiscover},
      {"ibportstate", ToolText::kIbportstate,
       "infiniband-diags `ibportstate` / `smpquery portinfo` -> fabdiag.ibportstate/1 (per queried port and its peer: state, width and lane speed supported / enabled / active)",
       "Reads query and set outputs (Initial / After PortInfo set, Peer PortInfo, ibwarn lines, \"host: \" prefixes). Exit: 0 no "
       "warning; 1 a port not Active or Active narrower or slower than both ends enable; 4 lines not understood or a cut last "
       "line; 2 not ibportstate output.",
       &read_ibportstate},
      {"ibnodes", ToolText::kIbnodes,
       "infiniband-diags `ibhosts` / `ibswitches` / `ibnodes` -> fabdiag.ibnodes/1 (per node: type, GUID, ports, description, host, switch LID)",
       "Reads \"Ca|Switch|Router : 0x... ports N \\\"desc\\\"\" lines, \"host: \" prefixes, a GUID listed twice once. Exit: 0 no "
       "warning; 1 two nodes with one description; 4 lines not understood or a cut last line; 2 not a node list.",
       &read_ibnodes},
      {"osu", ToolText::kOsu,
       "OSU micro-benchmarks (osu_bw, osu_bibw, osu_latency, osu_allreduce, osu_alltoall, ...) -> fabdiag.osu/1 (per test: bandwidth or latency per message size)",
       "Reads OMB 5.x-7.x titles, -d cuda/rocm buffers, -f full columns (min/max latency, iterations), -c validation, several "
       "tests a file, mpirun tags and a missing \"# Size\" header (columns from the title). --line-rate GBPS judges the best "
       "bandwidth from 1 MiB (x2 for bibw). Exit: 0 no warning; 1 no result, validation failed, below the line rate or a "
       "bandwidth drop; 4 rows that do not fit their header or a cut last line; 2 not OSU output.",
       &read_osu},
      {"imb", ToolText::kImb,
       "Intel MPI Benchmarks (IMB-MPI1 PingPong, Sendrecv, Allreduce, ...) -> fabdiag.imb/1 (per benchmark and process count: t_min/t_max/t_avg, Mbytes/sec per size)",
       "Reads several benchmarks a file, Mbytes of 2^20 or 1e6 bytes (told by the rows), -check defects, mpirun tags, CI "
       "clocks and grep'ped tables without titles. --line-rate GBPS judges the best Mbytes/sec from 1 MiB (x2 for Sendrecv, "
       "Exchange, Biband). Exit: 0 no warning; 1 no result, defects, below the line rate or a bandwidth drop; 4 rows not "
       "read, a cut last line or a run without its MPI_Finalize line; 2 not IMB output.",
       &read_imb},
      {"mpigraph", ToolText::kMpiGraph,
       "LLNL mpiGraph output (mpiGraph.out) -> fabdiag.pairwise/1 (the N x N Send/Recv bandwidth matrices judged like `fabdiag pairwise`: slow nodes, slow links)",
       "Reads the Send table (the Recv table, transposed, when Send is missing), MB of 2^20 bytes, tabs or blanks, "
       "mpirun tags; the HTML report holds the same data: read the .out file. Exit: 0 nothing slow; 1 a slow node or "
       "link; 4 rows cut or missing, or no \"END mpiGraph\"; 2 no Send/Recv table or another tool's output.",
       &read_mpigraph},
      {"nvidia-smi-dmon", ToolText::kNvsmiDmon,
       "`nvidia-smi dmon` output (-s pucvmet, t, -o DT) -> fabdiag.gpudmon/1 (per GPU each column's min/max/mean; GPUs whose clocks, PCIe throughput or temperature stand apart; thermal violations)",
       "Reads every -s column set, repeated headers, -o D/T/DT date and time columns, -i subsets; \"-\" cells are gaps, "
       "not zeros. Exit: 0 no warning; 1 a GPU throttled for temperature or standing apart from its peers; 4 rows that "
       "do not fit the header or a cut last line; 2 not dmon output.",
       &read_nvsmi_dmon},
      {"sonic-interface-counters", ToolText::kSonicIntfCounters,
       "SONiC `show interfaces counters` (-a, errors, rates, fec-stats, fec-histogram, detailed) -> fabdiag.switchports/1 (per switch port: state, error/drop/overrun counts, rates, FEC and BER)",
       "Reads every portstat table (commas, N/A, B/s KB/s MB/s, %), \"-p N\" periods, detailed blocks named by the prompt, "
       "\"host: \" prefixes; a table seen again makes the counts a delta. Exit: 0 no warning; 1 a port down, errors, "
       "overruns, uncorrectable FEC or a BER over its limit; 4 a cut row or last line; 2 not portstat output.",
       &read_sonic_intf_counters},
      {"nvue-interface", ToolText::kNvueInterface,
       "Cumulus NVUE `nv show interface [IF] counters | link stats | link phy-detail | --view=counters` (text or -o json) -> fabdiag.nvue/1 (per switch port: errors, drops, carrier transitions, raw/effective BER)",
       "The port and switch come from the prompt line (\"cumulus@leaf01:mgmt:~$ nv show interface swp1 counters\") or "
       "the --view=counters rows. Exit: 0 no warning; 1 errors, drops, flaps, effective errors or a BER over its limit; "
       "4 a cut last line or lines not understood; 2 not NVUE output.",
       &read_nvue_interface},
  };
  return readers;
}

const ImportReader* import_reader_for(ToolText tool) {
  for (const auto& r : import_readers())
    if (r.tool == tool) return &r;
  return nullptr;
}

ImportOutput reader_output(const ImportFileOptions& o, const std::string& importer, const std::string& schema,
                           nlohmann::json data, std::vector<Finding> findings, std::vector<Error> gaps) {
  ImportOutput out;
  out.env = make_envelope(schema);
  out.env.hosts.clear();  // a saved output: its hosts are those its content names, never this machine
  out.env.params = {{"importer", importer}, {"file", o.file}};
  out.env.data = std::move(data);
  out.env.findings = std::move(findings);
  out.env.errors = std::move(gaps);
  cap_findings(out.env.findings, o.max_findings);
  cap_errors(out.env.errors, o.max_findings);
  out.doc.title = "fabdiag import " + importer + " " + o.file;
  return out;
}

int run_import_reader(const GlobalOptions& g, const ImportReader& r, const ImportFileOptions& o) {
  auto out = r.read(o);
  if (!out) return fail_input(out.error());
  return emit(g, out->env, out->doc);
}

}  // namespace fabdiag::cmd
