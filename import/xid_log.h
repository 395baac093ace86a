// Import of NVIDIA driver Xid reports from a kernel log (dmesg, dmesg -T, journalctl -k,
// /var/log/syslog or messages): "NVRM: Xid (PCI:0000:9b:00): 119, pid=2024380, name=nvidia-smi,
// Timeout after 6s of waiting for RPC response from GPU4 GSP! ...", older drivers' "NVRM: Xid
// (0000:03:00): 13, ..." and "... 79, GPU has fallen off the bus." without pid. Per GPU (pci_bdf):
// count, first and last time, processes and the first text of each Xid, the GPU index and UUID
// where the log names them ("from GPU4 GSP", "NVRM: GPU at PCI:0000:9b:00: GPU-..."), the driver's
// own verdicts ("The GPU likely needs to be reset", Xid 154 "GPU recovery action changed ... to
// 0x2 (Node Reboot Required)"). Meanings and actions come from the Xid catalog
// (import/xid_catalog.h). An Xid that names its cause ("45, ... caused by previous Xid 149") makes
// the cause known even when its own line is not in the excerpt, and the driver's "GPU has fallen
// off the bus" message without an Xid line (newer drivers print it on three lines: "NVRM: The
// NVIDIA GPU 0000:b3:00.0" ... "NVRM: fallen off the bus and is not responding to commands.")
// counts as Xid 79. docs/gpu_readers.md#xid-lines.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/finding.h"
#include "core/line_source.h"
#include "core/result.h"
#include "import/input_reader.h"

namespace fabdiag {

/// One Xid code on one GPU.
struct XidTally {
  size_t count = 0;
  std::string first_time, last_time;   ///< The lines' timestamps as printed ("Sun Feb 23 16:24:18 2025"); "" when none.
  size_t first_line = 0, last_line = 0;
  std::string first_text;              ///< The report after "N, " (pid= and name= removed), cut to 200 characters.
  std::set<std::string> processes;     ///< "nvidia-smi", "gpud" (name=...), at most 16.
  std::optional<double> timeout_s;     ///< The longest "Timeout after Ns" (Xid 119/120).
  std::string recovery;                ///< Xid 154: the label it changed to ("Node Reboot Required").
  std::map<int, size_t> caused_by;     ///< "... caused by previous Xid 149" (Xid 45): cause -> reports naming it.
  bool from_message = false;           ///< Xid 79 known only from the driver's "fallen off the bus" message.
};

/// An Xid a later report names as its cause ("45, ... caused by previous Xid 149") whose own
/// line is not in the log (an excerpt, or a ring buffer that wrapped).
struct XidCited {
  size_t count = 0;        ///< Reports naming it.
  int by_xid = 0;          ///< The Xid of the first report naming it (45).
  size_t first_line = 0;
  std::string first_time;
};

/// The Xids of one GPU.
struct XidGpu {
  std::string pci_bdf;            ///< "0000:9b:00.0".
  std::string pci;                ///< As the driver prints it: "0000:9b:00".
  std::optional<int> gpu_index;   ///< "GPU4" of the driver's text, when it names one.
  std::string uuid;               ///< "GPU-..." of "NVRM: GPU at PCI:...: GPU-...".
  std::map<int, XidTally> xids;
  std::map<int, XidCited> cited;  ///< Causes named by reports, without a line of their own (judged like the Xid).
  std::vector<std::string> driver_notes;  ///< "The GPU likely needs to be reset." and the like (at most 8).
};

/// Everything read from one log.
struct XidLogImport {
  std::string source;
  std::vector<XidGpu> gpus;  ///< In order of their first Xid (or GPU line).
  size_t lines = 0, logged_lines = 0, xid_lines = 0, sxid_lines = 0;
  size_t gpu_lost_lines = 0;  ///< "... fallen off the bus" reports without an Xid code.
  std::vector<Error> gaps;   ///< A cut last line.
};

/// Reads a kernel log, streamed (memory: the GPUs and their Xid tallies). A log without Xid lines
/// is valid and healthy.
/// Errors: kParse naming "SOURCE:LINE" of the first line that is not logged when no line is an
/// Xid report and most lines carry no log timestamp (not a kernel log), or the input is binary;
/// kIo of the line source.
Result<XidLogImport> import_xid_log(LineSource& lines, const std::string& source, const ReadLimits& limits);

/// The same over a text held in memory.
Result<XidLogImport> import_xid_log(std::string_view text, const std::string& source);

/// The report of one line "NVRM: Xid (PCI:0000:9b:00): 119, pid=..., name=..., text": {pci as
/// printed, xid, pid, process, text}; nullopt for any other line.
struct XidLine {
  std::string pci;
  int xid = 0;
  std::optional<long> pid;
  std::string process;
  std::string text;
};
std::optional<XidLine> parse_xid_line(std::string_view line);

/// One finding per GPU and Xid code (code "gpu_xid", subject the pci_bdf), severity and action
/// from the catalog's immediate bucket (Xid 154 from its recovery label), naming the GPU index,
/// the count, first and last time and the catalog's meaning.
std::vector<Finding> xid_findings(const XidLogImport& imp);

/// The `data` of the fabdiag.xid/1 envelope: {"gpus": [{pci_bdf, gpu_index, uuid, xids: [{xid,
/// mnemonic, description, immediate_action, investigatory_action, count, first_time, last_time,
/// first_line, processes, timeout_s, recovery, caused_by {"149": reports}, from_message}],
/// cited_xids: [{xid, mnemonic, named_by_xid, reports, first_line, first_time}], driver_notes}],
/// "xid_lines", "sxid_lines", "gpu_lost_lines", "lines"}.
nlohmann::json xid_log_data(const XidLogImport& imp);

}  // namespace fabdiag
