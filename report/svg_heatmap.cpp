#include "report/svg_heatmap.h"

#include <algorithm>
#include <sstream>

#include "report/humanize.h"
#include "report/xml_escape.h"

namespace fabdiag {

namespace {

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

bool suspect_pair(const Heatmap& h, const std::string& a, const std::string& b) {
  if (has(h.suspect_hosts, a) || has(h.suspect_hosts, b)) return true;
  for (const auto& [x, y] : h.suspect_links)
    if ((x == a && y == b) || (x == b && y == a)) return true;
  return false;
}

// Red (0) to green (1) through yellow: the slowest measured cell is red.
std::string colour(double t) {
  t = std::clamp(t, 0.0, 1.0);
  return "hsl(" + xml_number(120 * t) + ",70%,45%)";
}

}  // namespace

std::string svg_heatmap(const Heatmap& h, const std::string& id) {
  const size_t n = h.hosts.size();
  constexpr int kCell = 28, kLabel = 110;
  constexpr size_t kAllCellsUpTo = 64;  // beyond: only measured cells (a 1000-node matrix is mostly empty)
  double lo = 0, hi = 0;
  bool any = false;
  for (const auto& row : h.bytes_per_s)
    for (const auto& c : row)
      if (c) {
        lo = any ? std::min(lo, *c) : *c, hi = any ? std::max(hi, *c) : *c;
        any = true;
      }
  const int side = kLabel + static_cast<int>(n) * kCell;
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"" << xml_escape(id) << "\" class=\"heatmap\" data-hosts=\"" << n
    << "\" width=\"" << side + 10 << "\" height=\"" << side + 10 << "\" viewBox=\"0 0 " << side + 10 << " " << side + 10
    << "\" role=\"img\" aria-label=\"" << xml_escape(h.title) << "\">\n";
  for (size_t i = 0; i < n; ++i) {
    const std::string cls = has(h.suspect_hosts, h.hosts[i]) ? "host suspect" : "host";
    const int mid = kLabel + static_cast<int>(i) * kCell + kCell / 2;
    o << "<text class=\"" << cls << " row-label\" data-host=\"" << xml_escape(h.hosts[i]) << "\" x=\"" << kLabel - 6
      << "\" y=\"" << mid + 4 << "\" text-anchor=\"end\">" << xml_escape(h.hosts[i]) << "</text>\n";
    o << "<text class=\"" << cls << " col-label\" data-host=\"" << xml_escape(h.hosts[i]) << "\" transform=\"translate("
      << mid + 4 << "," << kLabel - 6 << ") rotate(-60)\">" << xml_escape(h.hosts[i]) << "</text>\n";
  }
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) {
      // A plain bool and double (not a copied optional: GCC 12 warns maybe-uninitialized on it).
      const bool v = i < h.bytes_per_s.size() && j < h.bytes_per_s[i].size() && h.bytes_per_s[i][j].has_value();
      const double value = v ? *h.bytes_per_s[i][j] : 0.0;
      if (!v && n > kAllCellsUpTo) continue;
      std::string cls = "cell";
      if (i == j) cls += " diag";
      else if (!v) cls += " missing";
      if (i != j && suspect_pair(h, h.hosts[i], h.hosts[j])) cls += " suspect";
      const std::string fill = v ? colour(hi > lo ? (value - lo) / (hi - lo) : 1.0) : i == j ? "#ffffff" : "#d0d0d0";
      o << "<rect class=\"" << cls << "\" data-src=\"" << xml_escape(h.hosts[i]) << "\" data-dst=\""
        << xml_escape(h.hosts[j]) << "\"" << (v ? " data-bytes-per-s=\"" + xml_number(value) + "\"" : "") << " x=\""
        << kLabel + static_cast<int>(j) * kCell << "\" y=\"" << kLabel + static_cast<int>(i) * kCell << "\" width=\""
        << kCell - 1 << "\" height=\"" << kCell - 1 << "\" fill=\"" << fill << "\">";
      o << "<title>" << xml_escape(h.hosts[i] + " -> " + h.hosts[j] + ": " + (v ? format_gbytes_per_s(value) : i == j ? "-" : "not measured"))
        << "</title></rect>\n";
    }
  o << "</svg>\n";
  return o.str();
}

}  // namespace fabdiag
