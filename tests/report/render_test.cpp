#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "report/humanize.h"
#include "report/render.h"
#include "report/render_pieces.h"

using namespace fabdiag;

TEST_CASE("humanize") {
  CHECK(format_gbytes_per_s(4.33e9) == "4.33 GB/s");
  CHECK(format_bytes_iec(4194304) == "4 MiB");
  CHECK(format_bytes_si(145.2e12) == "145 TB");
  CHECK(format_count(1234567) == "1,234,567");
  CHECK(format_seconds(0.0123) == "12.3 ms");
  CHECK(format_bits_per_s(400e9) == "400 Gb/s");
}

TEST_CASE("table renderer aligns columns and lists findings worst first") {
  Envelope env;
  env.findings.push_back(Finding{Severity::kInfo, Layer::kPhysical, "a", "x", "minor", {}, ""});
  env.findings.push_back(Finding{Severity::kCritical, Layer::kPhysical, "link_down", "mlx5_0/1", "link went down", {}, "reseat"});
  env.errors.push_back(make_error(ErrorCode::kPermission, "needs root", "/sys/bus/pci/devices/0000:17:00.0/config"));
  Document doc;
  Section s;
  s.title = "ports";
  Table t;
  t.columns = {"device", "rate"};
  t.align = {Align::kLeft, Align::kRight};
  t.rows = {{"mlx5_0", "400 Gb/s"}, {"mlx5_10", "200 Gb/s"}};
  s.tables.push_back(t);
  doc.sections.push_back(s);
  std::string out = render_table(env, doc);
  CHECK(out.find("device       rate\n") != std::string::npos);
  CHECK(out.find("mlx5_0   400 Gb/s\n") != std::string::npos);
  CHECK(out.find("mlx5_10  200 Gb/s\n") != std::string::npos);
  CHECK(out.find("CRITICAL L4 link_down") < out.find("INFO L4 a"));
  CHECK(out.find("-> reseat") != std::string::npos);
  CHECK(out.find("partial") != std::string::npos);
  std::string md = render_markdown(env, doc);
  CHECK(md.find("| mlx5_0 | 400 Gb/s |") != std::string::npos);
  CHECK(md.find("| --- | ---: |") != std::string::npos);
  auto j = nlohmann::json::parse(render_json(env));
  CHECK(j["findings"].size() == 2);
}

TEST_CASE("parse_format") {
  CHECK(parse_format("md") == Format::kMarkdown);
  CHECK(parse_format("json") == Format::kJson);
  CHECK_FALSE(parse_format("xml").has_value());
}

TEST_CASE("a cut run opens with a PARTIAL line in table and Markdown, and JSON lines are one line each") {
  Envelope env = make_envelope("fabdiag.bench/1");
  Document doc;
  doc.title = "fabdiag bench all_reduce";
  std::string whole = render_table(env, doc);
  CHECK(whole.find("PARTIAL") == std::string::npos);
  env.partial = true;
  env.cut = Cut{"interrupted by SIGINT", "size 1M of all_reduce (5 of 8)", "sizes 2M..8M of all_reduce"};
  std::string table = render_table(env, doc);
  CHECK(table.rfind("fabdiag bench all_reduce\n\nPARTIAL: interrupted by SIGINT during size 1M of all_reduce (5 of 8);", 0) == 0);
  CHECK(table.find("\n  sizes 2M..8M of all_reduce\n\n") != std::string::npos);  // wrapped, indented
  std::string md = render_markdown(env, doc);
  CHECK(md.find("# fabdiag bench all_reduce\n\n**PARTIAL:** interrupted by SIGINT during size 1M") == 0);
  std::string line = render_json_line(env);
  CHECK(line.back() == '\n');
  CHECK(line.find('\n') == line.size() - 1);
  auto j = nlohmann::json::parse(line);
  CHECK(j["partial"] == true);
  CHECK(j["cut"]["during"] == "size 1M of all_reduce (5 of 8)");
}

TEST_CASE("a newline, tab or CR in a cell, field or finding is written as xNN, free lines keep theirs") {
  Envelope env;
  env.findings.push_back(Finding{Severity::kWarn, Layer::kPhysical, "c", "node\n01", "file a\nb.txt", {}, ""});
  env.errors.push_back(make_error(ErrorCode::kParse, "not read", "dir/x\ty\r.txt"));
  Document doc;
  Section s;
  s.fields = {{"host", "node\n01"}};
  Table t;
  t.columns = {"file", "format"};
  t.rows = {{"dir/ib\nstat.txt", "ibstat"}, {"dir/x\ty\r.txt", "not read"}};
  s.tables.push_back(t);
  s.lines = {"line one\n\tline two"};
  doc.sections.push_back(s);
  std::string out = render_table(env, doc);
  CHECK(out.find("file                format\n") != std::string::npos);
  CHECK(out.find("dir/ib\\x0astat.txt  ibstat\n") != std::string::npos);
  CHECK(out.find("dir/x\\x09y\\x0d.txt  not read\n") != std::string::npos);
  CHECK(out.find("host: node\\x0a01\n") != std::string::npos);
  CHECK(out.find("c node\\x0a01: file a\\x0ab.txt") != std::string::npos);
  CHECK(out.find("dir/x\\x09y\\x0d.txt: not read") != std::string::npos);
  CHECK(out.find("line one\n\tline two\n") != std::string::npos);
  CHECK(out.find('\r') == std::string::npos);
  std::string md = render_markdown(env, doc);
  CHECK(md.find("| dir/ib\\x0astat.txt | ibstat |") != std::string::npos);
  CHECK(md.find("| dir/x\\x09y\\x0d.txt | not read |") != std::string::npos);
  CHECK(md.find("- **host**: node\\x0a01\n") != std::string::npos);
  CHECK(md.find("`c` node\\x0a01: file a\\x0ab.txt\n") != std::string::npos);
  CHECK(md.find("line one\n\tline two\n") != std::string::npos);
  CHECK(md.find('\r') == std::string::npos);
}

TEST_CASE("titles are one line in table and Markdown, and Markdown writes a less-than sign as an entity") {
  Envelope env;
  Document doc;
  doc.title = "accept: a\nb";
  Section s;
  s.title = "inputs of node<script>\n01";
  Table t;
  t.columns = {"host"};
  t.rows = {{"<script>alert(1)</script>"}, {"limit >= 515 & more"}};
  s.tables.push_back(t);
  doc.sections.push_back(s);
  std::string out = render_table(env, doc);
  CHECK(out.rfind("accept: a\\x0ab\n\n", 0) == 0);
  CHECK(out.find("INPUTS OF NODE<SCRIPT>\\X0A01\n") != std::string::npos);
  std::string md = render_markdown(env, doc);
  CHECK(md.rfind("# accept: a\\x0ab\n\n", 0) == 0);
  CHECK(md.find("## inputs of node&lt;script>\\x0a01\n") != std::string::npos);
  CHECK(md.find("| &lt;script>alert(1)&lt;/script> |") != std::string::npos);
  CHECK(md.find("| limit >= 515 & more |") != std::string::npos);
  CHECK(md.find("<script") == std::string::npos);
}

TEST_CASE("a big table is written in pieces that end at a line and join to render()'s bytes") {
  Envelope env;
  env.findings.push_back(Finding{Severity::kWarn, Layer::kTransport, "x", "dev\x1b[2J", "moved", {}, ""});
  Document doc;
  doc.title = "counters";
  Section s;
  s.title = "counters";
  Table t;
  t.title = "mlx5_0/1";
  t.columns = {"COUNTER", "VALUE"};
  t.align = {Align::kLeft, Align::kRight};
  for (int i = 0; i < 20000; ++i)  // about 700 KB: three pieces or more
    t.rows.push_back({"rx_vport_rdma_unicast_bytes_" + std::to_string(i), std::to_string(i * 7919)});
  t.rows.push_back({"bell\x07", "1"});  // a control character in a cell: \x07 in a table cell
  s.tables.push_back(t);
  s.lines.push_back("free line with a \x1b escape");
  doc.sections.push_back(s);
  std::vector<std::string> pieces;
  render_table_escaped_to(env, doc, [&](std::string& piece) {
    pieces.push_back(piece);
    piece.clear();
  });
  REQUIRE(pieces.size() >= 3);
  std::string joined;
  for (const auto& p : pieces) {
    CHECK(!p.empty());
    CHECK(p.back() == '\n');  // a piece never cuts a line
    CHECK(p.size() < 300 * 1024);
    joined += p;
  }
  const std::string whole = render(Format::kTable, env, doc);
  CHECK(joined == whole);
  CHECK(whole.find("bell\\x07") != std::string::npos);
  CHECK(whole.find("a \\x1b escape") != std::string::npos);
  CHECK(whole.find('\x1b') == std::string::npos);
  CHECK(whole.find("rx_vport_rdma_unicast_bytes_19999  158372081\n") != std::string::npos);
  // render_table() leaves control characters to render(), as before.
  std::string raw = render_table(env, doc);
  CHECK(raw.find("free line with a \x1b escape") != std::string::npos);
}
