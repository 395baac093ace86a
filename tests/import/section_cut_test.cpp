// SectionReader::cut_at_records (import/text_sections.h): a long section read in parts, each
// starting at a record's first line, under the section's title.
#include <doctest/doctest.h>

#include "core/line_source.h"
#include "import/text_sections.h"

using namespace fabdiag;

TEST_CASE("SectionReader: a section past the cut size ends before the next record, its rest under the same title") {
  auto lines = text_line_source("head\n### t\nR a\n1\nR b\n2\nR c\n### u\nR d\n");
  SectionReader reader(*lines);
  reader.cut_at_records(4, [](std::string_view l) { return l.substr(0, 2) == "R "; });
  std::vector<TextSection> got;
  while (auto s = reader.next()) got.push_back(std::move(*s));
  REQUIRE(got.size() == 5);
  CHECK(got[0].title.empty());
  CHECK(got[0].text == "head\n");
  CHECK(got[0].title_line == 0);
  CHECK(got[1].title == "t");
  CHECK(got[1].text == "R a\n1\n");  // "R a\n" is 4 bytes: cut before "R b"
  CHECK(got[1].first_line == 3);
  CHECK(got[1].title_line == 2);
  CHECK(got[2].title == "t");
  CHECK(got[2].text == "R b\n2\n");
  CHECK(got[2].first_line == 5);
  CHECK(got[2].title_line == 2);
  CHECK(got[3].text == "R c\n");
  CHECK(got[3].first_line == 7);
  CHECK(got[4].title == "u");
  CHECK(got[4].text == "R d\n");
  CHECK(got[4].first_line == 9);
  CHECK(got[4].title_line == 8);
}

TEST_CASE("SectionReader: without cut_at_records a section is whole") {
  auto lines = text_line_source("R a\n1\nR b\n");
  SectionReader reader(*lines);
  auto s = reader.next();
  REQUIRE(s);
  CHECK(s->text == "R a\n1\nR b\n");
  CHECK_FALSE(reader.next());
}
