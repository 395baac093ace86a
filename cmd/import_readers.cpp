// The rows of the `fabdiag import` reader registry (cmd/import_readers.h).
#include "cmd/import_readers.h"

#include "cmd/common.h"
#include "cmd/input.h"

#include <vector>

namespace fabdiag::cmd {

// The read functions, each in its cmd/import_<format>.cpp (declared here: only this table
// calls them).
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
