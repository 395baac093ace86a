// The rows of the `fabdiag import` reader registry (cmd/import_readers.h).
#include "cmd/import_readers.h"

#include "cmd/common.h"
#include "cmd/input.h"

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
constexpr const char* kXidFooter =
    "Reads dmesg, dmesg -T, journalctl -k and syslog files; a log without Xid lines is healthy. Meanings\n"
    "and actions from NVIDIA's Xid catalog (import/data/xid_catalog.json).\n"
    "Exit codes: 0 no Xid, 1 Xid findings, 2 FILE missing or not a kernel log, 4 the last line was cut.";

}  // namespace

Result<std::unique_ptr<PeekedLineSource>> open_reader_input(const ImportFileOptions& o, ToolText tool) {
  auto lines = open_input_lines(o.file);
  if (!lines) return lines.error();
  auto peeked = std::make_unique<PeekedLineSource>(std::move(*lines), 256);
  if (auto st = check_named_tool(tool, peeked->head(), o.file); !st) return st.error();
  return peeked;
}

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
       "NCCL RAS text report (2.24+) -> fabdiag.ncclras/1 (job summary, communicators, MISMATCH / INCOMPLETE / "
       "DEAD entries with operation counts: who is ahead, how many lag)",
       "Reads the text form (the JSON form of 2.28.7+ is not read).\n"
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
      {"xid", ToolText::kNvrmXid,
       "kernel log (dmesg/journal/syslog) -> fabdiag.xid/1 (NVRM Xid per GPU: count, first/last, catalog action)",
       kXidFooter, read_xid_log},
  };
  return readers;
}

const ImportReader* import_reader_for(ToolText tool) {
  for (const auto& r : import_readers())
    if (r.tool == tool) return &r;
  return nullptr;
}

int run_import_reader(const GlobalOptions& g, const ImportReader& r, const ImportFileOptions& o) {
  auto out = r.read(o);
  if (!out) return fail_input(out.error());
  return emit(g, out->env, out->doc);
}

}  // namespace fabdiag::cmd
