// Reading a saved result document for `fabdiag report` in bounded memory: the rows of every
// pairwise matrix (`matrix_bytes_per_s`) are packed while they are parsed, one double a cell
// instead of a JSON value of 16 bytes plus its array's share (a 1500-host matrix: 2.25 million
// cells, docs/report.md#memory); everything else is the usual nlohmann tree.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

namespace fabdiag {

/// Parses `text` as JSON; a discarded value (is_discarded()) when it is not JSON. A row of a
/// `matrix_bytes_per_s` member (an array of arrays, at any depth) whose items are all numbers
/// or nulls becomes a packed row (is_packed_row()); any other row stays as it is.
nlohmann::json parse_result_json(std::string_view text);

/// Whether `row` is a row packed by parse_result_json(): a binary value of its own subtype
/// (JSON text never gives binary values).
bool is_packed_row(const nlohmann::json& row);

/// How many cells a packed row has (0 for anything else).
size_t packed_row_size(const nlohmann::json& row);

/// Cell `j` of a packed row: the number, nullopt for null (or out of range).
std::optional<double> packed_row_at(const nlohmann::json& row, size_t j);

}  // namespace fabdiag
