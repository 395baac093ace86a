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

size_t heatmap_block_hosts(const Heatmap& h) {
  const size_t n = h.hosts.size();
  return n <= kHeatmapMaxSide ? 1 : (n + kHeatmapMaxSide - 1) / kHeatmapMaxSide;
}

std::string heatmap_note(const Heatmap& h) {
  const size_t b = heatmap_block_hosts(h);
  if (b == 1) return "";
  return std::to_string(h.hosts.size()) + " hosts: each cell is a block of up to " + std::to_string(b) + " x " +
         std::to_string(b) + " hosts (in the matrix's host order) coloured by its slowest measured pair, named in "
         "its mouse-over; the nodes and links tables, and the JSON, hold every host and pair.";
}

namespace {

// One cell of the drawn grid: hosts [r0, r1) sending to [c0, c1); its slowest measured pair.
struct Block {
  bool measured = false;
  double bytes_per_s = 0;
  size_t src = 0, dst = 0;
  bool suspect = false;
};

Block block_of(const Heatmap& h, size_t r0, size_t r1, size_t c0, size_t c1) {
  Block b;
  for (size_t i = r0; i < r1; ++i)
    for (size_t j = c0; j < c1; ++j) {
      if (i != j && !b.suspect && suspect_pair(h, h.hosts[i], h.hosts[j])) b.suspect = true;
      const auto cell = h.at(i, j);
      if (!cell) continue;
      const double v = *cell;
      if (!b.measured || v < b.bytes_per_s) b.measured = true, b.bytes_per_s = v, b.src = i, b.dst = j;
    }
  return b;
}

std::string span_name(const Heatmap& h, size_t a, size_t b) {
  return b - a == 1 ? h.hosts[a] : h.hosts[a] + ".." + h.hosts[b - 1];
}

}  // namespace

std::string svg_heatmap(const Heatmap& h, const std::string& id) {
  const size_t n = h.hosts.size();
  const size_t per = heatmap_block_hosts(h);  // hosts per drawn row/column
  const size_t side_cells = (n + per - 1) / per;
  constexpr int kCell = 28, kLabel = 110;
  double lo = 0, hi = 0;
  bool any = false;
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      if (const auto c = h.at(i, j)) {
        lo = any ? std::min(lo, *c) : *c, hi = any ? std::max(hi, *c) : *c;
        any = true;
      }
  const int side = kLabel + static_cast<int>(side_cells) * kCell;
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"" << xml_escape(id) << "\" class=\"heatmap\" data-hosts=\"" << n
    << "\" data-block-hosts=\"" << per << "\" width=\"" << side + 10 << "\" height=\"" << side + 10 << "\" viewBox=\"0 0 "
    << side + 10 << " " << side + 10 << "\" role=\"img\" aria-label=\"" << xml_escape(h.title) << "\">\n";
  if (per > 1) o << "<desc>" << xml_escape(heatmap_note(h)) << "</desc>\n";
  for (size_t k = 0; k < side_cells; ++k) {
    const size_t a = k * per, b = std::min(n, a + per);
    bool suspect = false;
    for (size_t i = a; i < b && !suspect; ++i) suspect = has(h.suspect_hosts, h.hosts[i]);
    const std::string cls = suspect ? "host suspect" : "host";
    const std::string name = span_name(h, a, b);
    const int mid = kLabel + static_cast<int>(k) * kCell + kCell / 2;
    o << "<text class=\"" << cls << " row-label\" data-host=\"" << xml_escape(name) << "\" x=\"" << kLabel - 6
      << "\" y=\"" << mid + 4 << "\" text-anchor=\"end\">" << xml_escape(name) << "</text>\n";
    o << "<text class=\"" << cls << " col-label\" data-host=\"" << xml_escape(name) << "\" transform=\"translate("
      << mid + 4 << "," << kLabel - 6 << ") rotate(-60)\">" << xml_escape(name) << "</text>\n";
  }
  for (size_t bi = 0; bi < side_cells; ++bi)
    for (size_t bj = 0; bj < side_cells; ++bj) {
      const size_t r0 = bi * per, r1 = std::min(n, r0 + per), c0 = bj * per, c1 = std::min(n, c0 + per);
      const Block b = block_of(h, r0, r1, c0, c1);
      const bool diag = bi == bj && per == 1;
      std::string cls = "cell";
      if (diag) cls += " diag";
      else if (!b.measured) cls += " missing";
      if (b.suspect) cls += " suspect";
      const std::string fill = b.measured ? colour(hi > lo ? (b.bytes_per_s - lo) / (hi - lo) : 1.0) : diag ? "#ffffff" : "#d0d0d0";
      const std::string src = per == 1 ? h.hosts[r0] : span_name(h, r0, r1), dst = per == 1 ? h.hosts[c0] : span_name(h, c0, c1);
      std::string title = src + " -> " + dst + ": ";
      if (!b.measured) title += diag ? "-" : "not measured";
      else if (per == 1) title += format_gbytes_per_s(b.bytes_per_s);
      else title += "slowest " + h.hosts[b.src] + " -> " + h.hosts[b.dst] + " " + format_gbytes_per_s(b.bytes_per_s);
      o << "<rect class=\"" << cls << "\" data-src=\"" << xml_escape(src) << "\" data-dst=\"" << xml_escape(dst) << "\""
        << (b.measured ? " data-bytes-per-s=\"" + xml_number(b.bytes_per_s) + "\"" : "") << " x=\""
        << kLabel + static_cast<int>(bj) * kCell << "\" y=\"" << kLabel + static_cast<int>(bi) * kCell << "\" width=\""
        << kCell - 1 << "\" height=\"" << kCell - 1 << "\" fill=\"" << fill << "\"><title>" << xml_escape(title)
        << "</title></rect>\n";
    }
  o << "</svg>\n";
  return o.str();
}

}  // namespace fabdiag
