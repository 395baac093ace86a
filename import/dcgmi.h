// Import of DCGM's command line output: `dcgmi nvlink --link-status` (one line of link states per
// GPU and per NvSwitch: U up, D down, X disabled, _ not supported) and `dcgmi diag -r 1|2|3` (the
// ASCII result table: Metadata rows, then per category the tests with "Pass", "Fail - All", "Pass
// - GPU: 1", "Skip", "Warn", and "Warning" / "Info" rows whose text DCGM hard-wraps across cells).
// Either or both in one file ("###" titles between them). A table cut short (a row without its
// closing '|', no bottom border) leaves the tests after it unknown: a gap, never a pass.
// docs/gpu_readers.md#dcgmi.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/finding.h"
#include "core/line_source.h"
#include "core/result.h"
#include "import/input_reader.h"

namespace fabdiag {

/// One GPU or NvSwitch of `dcgmi nvlink --link-status`.
struct DcgmLinkEntity {
  int id = 0;              ///< "gpuId 0:" -> 0, "physicalId 8:" -> 8.
  std::string states;      ///< One letter per link, in link order: 'U', 'D', 'X' or '_'.
  size_t line = 0;         ///< The line of the states.
  size_t count(char state) const;
};

/// One status of a diag test: "Fail - GPU: 0" -> {"Fail", {0}, false}; "Pass - All" -> {"Pass", {}, true}.
struct DcgmDiagResult {
  std::string status;     ///< "Pass", "Fail", "Warn", "Skip" (as DCGM spells them).
  std::vector<int> gpus;  ///< The GPUs it names; empty with `all` or when none is named.
  bool all = false;       ///< "- All".
};

/// One test row of `dcgmi diag` with its continuation rows.
struct DcgmDiagTest {
  std::string category;   ///< "Deployment", "Integration", "Hardware", "Stress", ...
  std::string name;       ///< "NVML Library", "GPU Memory", "Targeted Stress".
  std::vector<DcgmDiagResult> results;
  std::vector<std::string> warnings;  ///< "Warning" rows, wrapped cells joined.
  std::vector<std::string> info;      ///< "Info" rows.
  size_t line = 0;
  bool cut = false;  ///< The row ends without its closing '|': its result is not trusted.
  /// The worst status: Fail > Warn > Pass > Skip; "" when none.
  std::string status() const;
};

/// Everything read from one file.
struct DcgmiImport {
  std::string source;
  bool link_status_read = false;
  std::vector<DcgmLinkEntity> gpus;        ///< `dcgmi nvlink --link-status` GPUs.
  std::vector<DcgmLinkEntity> nvswitches;  ///< Its NvSwitches.
  bool no_nvswitches = false;              ///< "No NvSwitches found." (normal for bridged or PCIe GPUs).
  bool diag_read = false;
  bool diag_complete = false;              ///< The table's bottom border was read after its last row.
  std::map<std::string, std::string> metadata;  ///< "DCGM Version" -> "3.3.7", "Driver Version Detected", ...
  std::vector<DcgmDiagTest> tests;         ///< At most 4096; the others only counted.
  size_t tests_not_kept = 0;
  std::vector<Error> gaps;  ///< Cut rows or tables, a cut last line.
};

/// Reads the output, streamed. Other lines are skipped.
/// Errors: kParse naming "SOURCE:LINE" (the first line that is not one) when neither a link
/// status block ("gpuId N:" with its states) nor a diag table row was read; kIo.
Result<DcgmiImport> import_dcgmi(LineSource& lines, const std::string& source, const ReadLimits& limits);

/// The same over a text held in memory.
Result<DcgmiImport> import_dcgmi(std::string_view text, const std::string& source);

/// The findings (docs/gpu_readers.md#dcgmi): NVLinks Down on a GPU (error, whatever the diag says:
/// the diag's Pass rows do not clear a link that is down), on an NvSwitch (error), links Disabled
/// (info); diag tests that Fail (error, per GPU named), Warn (warn) or were skipped (info).
std::vector<Finding> dcgmi_findings(const DcgmiImport& imp);

/// The `data` of the fabdiag.dcgmi/1 envelope (docs/gpu_readers.md#dcgmi).
nlohmann::json dcgmi_data(const DcgmiImport& imp);

/// Reads one line of a `dcgmi diag` table into `imp` (dcgmi_diag.cpp); false when the line is
/// not part of such a table. `state` carries the table being read between calls.
struct DcgmDiagState {
  bool in_table = false, confirmed = false, rows = false;  ///< confirmed: a header or category row was read
  std::string category;
  std::string last_piece;  ///< The last wrapped text piece, to tell a word cut mid-way.
  enum class Into { kNone, kWarning, kInfo } into = Into::kNone;
};
bool read_dcgm_diag_line(std::string_view line, size_t line_no, DcgmDiagState& state, DcgmiImport& imp);
/// Closes the table being read at the end of the input: a gap when it was cut.
void finish_dcgm_diag(const DcgmDiagState& state, DcgmiImport& imp);

}  // namespace fabdiag
