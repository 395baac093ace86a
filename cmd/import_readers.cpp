// The rows of the `fabdiag import` reader registry (cmd/import_readers.h).
#include "cmd/import_readers.h"

#include "cmd/common.h"
#include "cmd/input.h"

#include <vector>

namespace fabdiag::cmd {

// The read functions, each in its cmd/import_<format>.cpp (declared here: only this table
// calls them).
Result<ImportOutput> read_iblinkinfo(const ImportFileOptions& o);
Result<ImportOutput> read_sonic_pfc(const ImportFileOptions& o);
Result<ImportOutput> read_lldpctl(const ImportFileOptions& o);
Result<ImportOutput> read_perftest(const ImportFileOptions& o);
Result<ImportOutput> read_pairs(const ImportFileOptions& o);

std::span<const ImportReader> import_readers() {
  // {name, ToolText, help, footer, read}: one row per format.
  static const std::vector<ImportReader> readers = {
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
