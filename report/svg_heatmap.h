// The pairwise matrix as an inline SVG heatmap for the HTML report (report/html.cpp).
#pragma once

#include <string>

#include "report/result_model.h"

namespace fabdiag {

/// <svg id="ID" class="heatmap" data-hosts="N">: one <rect class="cell" data-src data-dst
/// data-bytes-per-s> per ordered pair (beyond 64 hosts only per measured pair) (class "missing" when not measured, "diag" on the
/// diagonal, "suspect" when the pair is a named link or touches a named node), coloured from
/// red (slowest measured) to green (fastest); host labels (<text class="host">, "suspect" for a
/// named node); a <title> per cell with the value in GB/s for a mouse-over. Text escaped.
std::string svg_heatmap(const Heatmap& h, const std::string& id);

}  // namespace fabdiag
