// The pairwise matrix as an inline SVG heatmap for the HTML report (report/html.cpp).
#pragma once

#include <cstddef>
#include <string>

#include "report/result_model.h"

namespace fabdiag {

/// <svg id="ID" class="heatmap" data-hosts="N">: one <rect class="cell" data-src data-dst
/// data-bytes-per-s> per ordered pair (class "missing" when not measured, "diag" on the
/// diagonal, "suspect" when the pair is a named link or touches a named node), coloured from
/// red (slowest measured) to green (fastest); host labels (<text class="host">, "suspect" for a
/// named node); a <title> per cell with the value in GB/s for a mouse-over. Text escaped.
/// Above kHeatmapMaxSide hosts the grid is of blocks: heatmap_block_hosts() hosts a side (in the
/// matrix's host order), each block coloured by its slowest measured pair (its <title> names the
/// pair), labels "first..last", data-block-hosts on the <svg>, a <desc> with heatmap_note(): the
/// page stays bounded (64 x 64 cells, ~1 MB for 1500 hosts, was 767 MB).
std::string svg_heatmap(const Heatmap& h, const std::string& id);

/// The most rows (and columns) a heatmap draws one host each.
inline constexpr size_t kHeatmapMaxSide = 64;

/// Hosts per drawn row/column: 1 up to kHeatmapMaxSide hosts, else ceil(hosts / kHeatmapMaxSide).
size_t heatmap_block_hosts(const Heatmap& h);

/// What the reader of a block heatmap must know ("1500 hosts: each cell is a block of up to
/// 24 x 24 hosts ..."); "" when every host has its own row.
std::string heatmap_note(const Heatmap& h);

}  // namespace fabdiag
