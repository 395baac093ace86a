// Document: the one presentation model that the table, Markdown (and later HTML) renderers
// draw. Commands build it from their typed result; renderers know nothing about probes or
// benchmarks. Cells are already-formatted strings (humanized by report/humanize.h).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace fabdiag {

enum class Align { kLeft, kRight };

/// A titled grid. `align` may be shorter than `columns` (missing entries are kLeft).
struct Table {
  std::string title;
  std::vector<std::string> columns;
  std::vector<Align> align;
  std::vector<std::vector<std::string>> rows;  ///< Each row has columns.size() cells (padded).
  std::vector<std::string> notes;              ///< Lines printed under the table (legend).
};

/// A titled block of key/value fields, tables and free lines.
struct Section {
  std::string title;
  std::vector<std::pair<std::string, std::string>> fields;
  std::vector<Table> tables;
  std::vector<std::string> lines;
};

/// What a person reads. Findings and errors come from the Envelope, not from here.
struct Document {
  std::string title;
  std::vector<Section> sections;
};

}  // namespace fabdiag
