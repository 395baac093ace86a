// Import of `nvidia-smi dmon` output: one line per GPU per sampling cycle under a two-line
// header (the column names and their units), repeated every screenful:
//   # gpu    pwr  gtemp  mtemp     sm    mem    enc    dec   mclk   pclk      (default: -s puc)
//   # Idx      W      C      C      %      %      %      %    MHz    MHz
//       0     43     35      -      0      0      0      0   2619   1530
// Other -s groups add columns: v "pviol tviol" (% / bool), m "fb bar1" (MB), e "sbecc dbecc pci"
// (errs), t "rxpci txpci" (MB/s); older drivers print one "temp", newer add "jpg ofa". -o D/T/DT
// put "Date"/"Time" columns (YYYYMMDD, HH:MM:SS) first; -i picks GPUs, -d the period. A "-" cell
// is a metric the GPU does not report: a gap in that series, not a zero. Column meanings: the
// nvidia-smi man page ("Device Monitoring"); docs/gpu_readers.md#nvidia-smi-dmon.
#pragma once

#include <cstdint>
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

namespace fabdiag {

/// One column of one GPU over the samples read.
struct DmonSeries {
  size_t samples = 0;  ///< Cells with a number.
  size_t gaps = 0;     ///< "-" cells.
  double min = 0, max = 0, sum = 0;
  size_t max_line = 0;  ///< Line of the first sample at max.
  double mean() const { return samples ? sum / static_cast<double>(samples) : 0; }
};

/// What `nvidia-smi dmon` says of one GPU.
struct DmonGpu {
  int64_t index = 0;                        ///< The "gpu" column (nvidia-smi's index).
  std::map<std::string, DmonSeries> series;  ///< By column name: "pclk", "rxpci", ...
  size_t rows = 0;
  std::string first_time, last_time;  ///< "20240101 12:00:00" with -o DT (or one of them); "".
};

/// What one dmon capture says.
struct DmonImport {
  std::string source;
  std::vector<std::string> columns;  ///< The last header's names ("Date", "Time", "gpu", "pwr", ...).
  std::map<std::string, std::string> units;  ///< By column: "W", "C", "%", "MHz", "MB/s", "bool".
  std::vector<DmonGpu> gpus;          ///< In first-seen order.
  size_t headers = 0;                 ///< Header lines read (one per screenful).
  std::vector<Error> gaps;            ///< Rows that do not fit the header, a cut last line.
};

/// True when `line` (trimmed) is a dmon header: '#', then column names with "gpu" and one
/// metric dmon prints (pwr, sm, mclk, pclk, rxpci, fb, ...).
bool is_nvsmi_dmon_header(std::string_view line);

/// Reads dmon text (streamed). Errors: kParse naming SOURCE:LINE without any header and row.
Result<DmonImport> import_nvsmi_dmon(LineSource& lines, const std::string& source, const ReadLimits& limits);

/// The same over a text held in memory.
Result<DmonImport> import_nvsmi_dmon(std::string_view text, const std::string& source);

/// Findings (docs/gpu_readers.md#nvidia-smi-dmon-findings): dmon_thermal_violation (warn: tviol > 0, the
/// driver throttled the GPU for temperature), dmon_power_violation (info: pviol > 0),
/// dmon_gpu_stands_apart (warn, 3 or more GPUs: a GPU's mean pclk/mclk under 75% or rxpci/txpci
/// under 50% of the median of the GPUs' means, or its mean temperature 15 C or more above it).
std::vector<Finding> nvsmi_dmon_findings(const DmonImport& imp);

/// The envelope data: {columns[], units{}, headers, gpus[] {gpu, rows, first_time, last_time,
/// series{<column>: {samples, gaps, min, max, mean, unit}}}}.
nlohmann::json nvsmi_dmon_data(const DmonImport& imp);

}  // namespace fabdiag
