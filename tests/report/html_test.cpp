#include <doctest/doctest.h>

#include <limits>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "report/html.h"
#include "report/render.h"

using namespace fabdiag;

namespace {

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

ReportModel heatmap_model() {
  ReportModel m;
  m.sources.push_back(ReportSource{"pw.json", "fabdiag.pairwise/1", "", {}, false});
  Heatmap h;
  h.title = "pairs";
  h.hosts = {"a", "b<i>", "c"};
  const double kNot = std::numeric_limits<double>::quiet_NaN();
  h.cells = {kNot, 10e9, 10e9, 10e9, kNot, 4e9, 10e9, kNot, kNot};
  h.suspect_hosts = {"b<i>"};
  m.heatmaps.push_back(h);
  Curve c;
  c.collective = "all_reduce";
  c.series.push_back(CurveSeries{0, "run", {{1024, 1e9}, {1048576, 8e9}}});
  c.band.push_back(BandPoint{1024, 0.8e9, 1.1e9});
  c.band.push_back(BandPoint{1048576, 7e9, 9e9});
  m.curves.push_back(c);
  Verdict v;
  v.scope = "node";
  v.subject = "b<i>";
  v.status = Outcome::kFail;
  v.reason = "slow";
  m.nodes.push_back(v);
  return m;
}

}  // namespace

TEST_CASE("html page has the heatmap cells, suspects, curves, band and failing node, all escaped") {
  const std::string h = render_html(heatmap_model(), "report <one>");
  CHECK(h.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(h.find("<title>report &lt;one&gt;</title>") != std::string::npos);
  CHECK(count(h, "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"pairwise-heatmap\"") == 1);
  CHECK(count(h, "<rect class=\"cell") == 9);
  CHECK(h.find("<rect class=\"cell suspect\" data-src=\"a\" data-dst=\"b&lt;i&gt;\" data-bytes-per-s=\"10000000000\"") !=
        std::string::npos);
  CHECK(h.find("<rect class=\"cell missing suspect\" data-src=\"c\" data-dst=\"b&lt;i&gt;\"") != std::string::npos);
  CHECK(h.find("<rect class=\"cell diag\" data-src=\"a\" data-dst=\"a\"") != std::string::npos);
  CHECK(h.find("class=\"host suspect row-label\" data-host=\"b&lt;i&gt;\"") != std::string::npos);
  CHECK(h.find("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"busbw-curve\" data-collective=\"all_reduce\"") != std::string::npos);
  CHECK(count(h, "<circle class=\"point\"") == 2);
  CHECK(h.find("<circle class=\"point\" data-size-bytes=\"1048576\" data-busbw-bytes-per-s=\"8000000000\"") != std::string::npos);
  CHECK(h.find("<polygon class=\"baseline-band\" data-points=\"2\"") != std::string::npos);
  CHECK(h.find("<tr class=\"node fail\" data-host=\"b&lt;i&gt;\">") != std::string::npos);
  CHECK(h.find("<div id=\"summary\" data-pass=\"0\" data-fail=\"1\" data-not-checked=\"0\">") != std::string::npos);
  CHECK(h.find("b<i>") == std::string::npos);
  // Self-contained: nothing fetched, no script.
  CHECK(h.find("<script") == std::string::npos);
  CHECK(h.find(" src=") == std::string::npos);  // (data-src= on the cells is an attribute, not a fetch)
  CHECK(h.find("href=") == std::string::npos);
  CHECK(h.find("@import") == std::string::npos);
}

TEST_CASE("the busbw curve puts sizes on a log axis") {
  const std::string h = render_html(heatmap_model(), "t");
  // 1 KiB and 1 MiB: 10 doublings apart; the x axis spans 2^10..2^20 over 64..544.
  CHECK(h.find("cx=\"64\"") != std::string::npos);
  CHECK(h.find("cx=\"544\"") != std::string::npos);
  CHECK(h.find(">1 KiB</text>") != std::string::npos);
  CHECK(h.find(">1 MiB</text>") != std::string::npos);
}

TEST_CASE("any command's envelope renders as html and junit through render()") {
  Envelope env;
  env.schema = "fabdiag.topo/1";
  env.findings.push_back(Finding{Severity::kWarn, Layer::kPhysical, "pcie_width_downgraded", "0000:17:00.0 <x>", "x8 of x16", {}, "reseat"});
  Document doc;
  doc.title = "fabdiag topo";
  Section s;
  s.title = "Devices";
  s.tables.push_back(Table{"", {"name", "pci_bdf"}, {}, {{"GPU0", "0000:17:00.0"}}, {}});
  doc.sections.push_back(s);
  CHECK(parse_format("html") == Format::kHtml);
  CHECK(parse_format("junit") == Format::kJunit);
  const std::string h = render(Format::kHtml, env, doc);
  CHECK(h.find("<title>fabdiag topo</title>") != std::string::npos);
  CHECK(h.find("<tr class=\"finding warn\" data-code=\"pcie_width_downgraded\" data-subject=\"0000:17:00.0 &lt;x&gt;\">") !=
        std::string::npos);
  CHECK(h.find("<section id=\"details\">") != std::string::npos);
  CHECK(h.find("<td>GPU0</td>") != std::string::npos);
  const std::string x = render(Format::kJunit, env, doc);
  CHECK(x.find("name=\"0000:17:00.0 &lt;x&gt;: pcie_width_downgraded\"") != std::string::npos);
  CHECK(x.find("failures=\"1\"") != std::string::npos);
}
