// busbw vs message size of one collective as an inline SVG chart for the HTML report
// (report/html.cpp): log2 x axis (message size), linear y axis (GB/s = 1e9 bytes/s).
#pragma once

#include <string>

#include "report/result_model.h"

namespace fabdiag {

/// <svg class="busbw-curve" data-collective="C">: per series a <polyline class="series"
/// data-source="FILE"> and its <circle class="point" data-size-bytes data-busbw-bytes-per-s>;
/// the baseline band, when the curve has one, as <polygon class="baseline-band"> under them;
/// axes with size ticks in IEC units and GB/s ticks; a legend. Text escaped.
std::string svg_curve(const Curve& c);

}  // namespace fabdiag
