#include "report/svg_curves.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "report/humanize.h"
#include "report/xml_escape.h"

namespace fabdiag {

namespace {

constexpr double kW = 560, kH = 300, kLeft = 64, kRight = 16, kTop = 16, kBottom = 44;
const char* const kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf"};

struct Axes {
  double x_lo = 0, x_hi = 1;  // log2 of bytes
  double y_hi = 1;            // bytes/s
  double x(double size) const {
    const double l = std::log2(std::max(size, 1.0));
    return kLeft + (x_hi > x_lo ? (l - x_lo) / (x_hi - x_lo) : 0.5) * (kW - kLeft - kRight);
  }
  double y(double bps) const { return kTop + (1 - std::clamp(bps / y_hi, 0.0, 1.0)) * (kH - kTop - kBottom); }
};

Axes axes_of(const Curve& c) {
  Axes a;
  bool any = false;
  double lo = 0, hi = 0, top = 0;
  auto see = [&](double size, double bps) {
    const double l = std::log2(std::max(size, 1.0));
    lo = any ? std::min(lo, l) : l, hi = any ? std::max(hi, l) : l;
    top = std::max(top, bps);
    any = true;
  };
  for (const auto& s : c.series)
    for (const auto& p : s.points) see(p.size_bytes, p.busbw_bytes_per_s);
  for (const auto& b : c.band) see(b.size_bytes, b.high_bytes_per_s);
  a.x_lo = std::floor(lo), a.x_hi = std::ceil(hi);
  if (a.x_hi <= a.x_lo) a.x_lo -= 1, a.x_hi += 1;
  a.y_hi = top > 0 ? top * 1.1 : 1e9;
  return a;
}

void write_axes(std::ostringstream& o, const Axes& a) {
  o << "<g class=\"axes\">\n<line x1=\"" << kLeft << "\" y1=\"" << kH - kBottom << "\" x2=\"" << kW - kRight << "\" y2=\""
    << kH - kBottom << "\" stroke=\"#444\"/>\n<line x1=\"" << kLeft << "\" y1=\"" << kTop << "\" x2=\"" << kLeft
    << "\" y2=\"" << kH - kBottom << "\" stroke=\"#444\"/>\n";
  const int span = static_cast<int>(a.x_hi - a.x_lo);
  const int step = std::max(1, span / 8);
  for (int e = static_cast<int>(a.x_lo); e <= static_cast<int>(a.x_hi); e += step) {
    const double x = a.x(std::exp2(e));
    o << "<text class=\"x-tick\" x=\"" << xml_number(x) << "\" y=\"" << kH - kBottom + 16 << "\" text-anchor=\"middle\">"
      << xml_escape(format_bytes_iec(std::exp2(e))) << "</text>\n";
  }
  for (int i = 0; i <= 4; ++i) {
    const double v = a.y_hi * i / 4;
    o << "<text class=\"y-tick\" x=\"" << kLeft - 6 << "\" y=\"" << xml_number(a.y(v) + 4) << "\" text-anchor=\"end\">"
      << xml_escape(format_sig(v / 1e9, 3)) << "</text>\n<line x1=\"" << kLeft << "\" y1=\"" << xml_number(a.y(v))
      << "\" x2=\"" << kW - kRight << "\" y2=\"" << xml_number(a.y(v)) << "\" stroke=\"#eee\"/>\n";
  }
  o << "<text class=\"x-label\" x=\"" << (kLeft + kW) / 2 << "\" y=\"" << kH - 8
    << "\" text-anchor=\"middle\">message size (log scale)</text>\n<text class=\"y-label\" transform=\"translate(14,"
    << (kTop + kH - kBottom) / 2 << ") rotate(-90)\" text-anchor=\"middle\">busbw (GB/s)</text>\n</g>\n";
}

}  // namespace

std::string svg_curve(const Curve& c) {
  const Axes a = axes_of(c);
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"busbw-curve\" data-collective=\"" << xml_escape(c.collective)
    << "\" data-series=\"" << c.series.size() << "\" width=\"" << kW << "\" height=\"" << kH << "\" viewBox=\"0 0 " << kW
    << " " << kH << "\" role=\"img\" aria-label=\"" << xml_escape("busbw vs size, " + c.collective) << "\">\n";
  write_axes(o, a);
  if (!c.band.empty()) {
    std::string pts;
    for (const auto& b : c.band) pts += xml_number(a.x(b.size_bytes)) + "," + xml_number(a.y(b.high_bytes_per_s)) + " ";
    for (auto it = c.band.rbegin(); it != c.band.rend(); ++it)
      pts += xml_number(a.x(it->size_bytes)) + "," + xml_number(a.y(it->low_bytes_per_s)) + " ";
    o << "<polygon class=\"baseline-band\" data-points=\"" << c.band.size() << "\" points=\"" << pts
      << "\" fill=\"#9ecae1\" fill-opacity=\"0.45\" stroke=\"#6baed6\"><title>baseline band: below it a drop is flagged</title></polygon>\n";
  }
  for (size_t i = 0; i < c.series.size(); ++i) {
    const auto& s = c.series[i];
    const char* colour = kColours[i % (sizeof kColours / sizeof kColours[0])];
    std::string pts;
    for (const auto& p : s.points) pts += xml_number(a.x(p.size_bytes)) + "," + xml_number(a.y(p.busbw_bytes_per_s)) + " ";
    o << "<g class=\"series-group\" data-source=\"" << xml_escape(s.label) << "\">\n<polyline class=\"series\" data-source=\""
      << xml_escape(s.label) << "\" points=\"" << pts << "\" fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"2\"/>\n";
    for (const auto& p : s.points)
      o << "<circle class=\"point\" data-size-bytes=\"" << xml_number(p.size_bytes) << "\" data-busbw-bytes-per-s=\""
        << xml_number(p.busbw_bytes_per_s) << "\" cx=\"" << xml_number(a.x(p.size_bytes)) << "\" cy=\""
        << xml_number(a.y(p.busbw_bytes_per_s)) << "\" r=\"3\" fill=\"" << colour << "\"><title>"
        << xml_escape(format_bytes_iec(p.size_bytes) + ": " + format_gbytes_per_s(p.busbw_bytes_per_s)) << "</title></circle>\n";
    o << "<text class=\"legend\" x=\"" << kLeft + 10 << "\" y=\"" << kTop + 14 * (i + 1) << "\" fill=\"" << colour << "\">"
      << xml_escape(s.label) << "</text>\n</g>\n";
  }
  o << "</svg>\n";
  return o.str();
}

}  // namespace fabdiag
