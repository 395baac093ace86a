#include <doctest/doctest.h>

#include "core/escape_line.h"
#include "core/text.h"

using namespace fabdiag;

TEST_CASE("parse_u64 accepts decimal and hex, rejects everything else") {
  CHECK(parse_u64("0") == 0u);
  CHECK(parse_u64(" 18446744073709551615\n") == 18446744073709551615ull);
  CHECK(parse_u64("0x10de") == 0x10deu);
  CHECK_FALSE(parse_u64("N/A (no PMA)").has_value());
  CHECK_FALSE(parse_u64("-1").has_value());
  CHECK_FALSE(parse_u64("12abc").has_value());
  CHECK_FALSE(parse_u64("").has_value());
  CHECK_FALSE(parse_u64("18446744073709551616").has_value());  // overflow
}

TEST_CASE("parse_i64 and doubles") {
  CHECK(parse_i64("-1") == -1);
  CHECK_FALSE(parse_i64("1.5").has_value());
  CHECK(parse_leading_double("16.0 GT/s PCIe") == doctest::Approx(16.0));
  CHECK(parse_leading_double("8 GT/s") == doctest::Approx(8.0));
  CHECK_FALSE(parse_leading_double("Unknown").has_value());
  CHECK(parse_double("2.5") == doctest::Approx(2.5));
  CHECK_FALSE(parse_double("2.5 GT/s").has_value());
}

TEST_CASE("cpulist round trip") {
  auto cpus = parse_cpulist("24-31,88-95");
  REQUIRE(cpus.has_value());
  CHECK(cpus->size() == 16);
  CHECK(cpus->front() == 24);
  CHECK(cpus->back() == 95);
  CHECK(format_cpulist(*cpus) == "24-31,88-95");
  CHECK(format_cpulist({0, 2, 3, 4, 7}) == "0,2-4,7");
  CHECK_FALSE(parse_cpulist("3-1").has_value());
  CHECK_FALSE(parse_cpulist("a").has_value());
  CHECK(parse_cpulist("")->empty());
}

TEST_CASE("cpumask parsing") {
  auto cpus = parse_cpumask("00000000,0000000f");
  REQUIRE(cpus.has_value());
  CHECK(format_cpulist(*cpus) == "0-3");
  auto high = parse_cpumask("1,00000000");
  REQUIRE(high.has_value());
  CHECK(format_cpulist(*high) == "32");
  CHECK_FALSE(parse_cpumask("zz").has_value());
}

TEST_CASE("split helpers") {
  CHECK(split("a::b", ':') == std::vector<std::string>{"a", "", "b"});
  CHECK(split_ws("  GPU0\t X  NV12 ") == std::vector<std::string>{"GPU0", "X", "NV12"});
  CHECK(trim("  x \n") == "x");
}

TEST_CASE("join, join_first and join_prose") {
  const std::vector<std::string> abc = {"a", "b", "c"};
  CHECK(join(abc) == "a, b, c");
  CHECK(join(abc, "; ") == "a; b; c");
  CHECK(join({}) == "");
  CHECK(join({"", "b"}) == ", b");  // by position: an empty item keeps its separator
  CHECK(join_first(abc, 2, ", ", "...") == "a, b, ...");
  CHECK(join_first(abc, 3, ", ", "...") == "a, b, c");
  CHECK(join_first(abc, 0, "; ", "...") == "...");
  CHECK(join_prose({"a"}) == "a");
  CHECK(join_prose({"a", "b"}) == "a and b");
  CHECK(join_prose(abc) == "a, b and c");
  CHECK(join_prose(abc, " or ") == "a, b or c");
  CHECK(join_prose({}) == "");
}

TEST_CASE("escape_nonprintable writes every byte outside printable ASCII as \\xNN") {
  CHECK(escape_nonprintable("node01 slots=8") == "node01 slots=8");
  CHECK(escape_nonprintable("n\xe9ud") == "n\\xe9ud");
  CHECK(escape_nonprintable("\x1b[31m") == "\\x1b[31m");
  CHECK(escape_nonprintable(std::string("a\0b\n\x7f", 5)) == "a\\x00b\\x0a\\x7f");
  CHECK(escape_nonprintable("") == "");
}

TEST_CASE("escape_line writes newlines as \\x0a too, keeps tabs and UTF-8") {
  CHECK(escape_line("bad\nname.log: line 3") == "bad\\x0aname.log: line 3");
  CHECK(escape_line("a\r\n\x1b[2Jb\tc \xc2\xb5s") == "a\\x0d\\x0a\\x1b[2Jb\tc \xc2\xb5s");
  CHECK(escape_line("") == "");
}

TEST_CASE("escape_controls keeps newlines, tabs and UTF-8, writes other control bytes as \\xNN") {
  CHECK(escape_controls("GPU0\tNIC0\n  4.33 GB/s \xc2\xb5s") == "GPU0\tNIC0\n  4.33 GB/s \xc2\xb5s");
  CHECK(escape_controls("evil\x1b]0;owned\x07.log") == "evil\\x1b]0;owned\\x07.log");
  CHECK(escape_controls(std::string("a\0b\rc\x7f", 6)) == "a\\x00b\\x0dc\\x7f");
  CHECK(escape_controls("") == "");
}
