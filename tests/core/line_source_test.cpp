// LineSource: lines of a file, stdin or a text, one at a time in bounded memory.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstring>
#include <fstream>

#include "core/line_source.h"

using namespace fabdiag;

namespace {

std::vector<std::string> all_lines(LineSource& s) {
  std::vector<std::string> out;
  while (auto l = s.next()) out.emplace_back(*l);
  return out;
}

}  // namespace

TEST_CASE("text_line_source: a leading UTF-8 BOM is dropped, a later one and a UTF-16 BOM are kept") {
  CHECK(all_lines(*text_line_source("\xEF\xBB\xBFNIC statistics:\n\xEF\xBB\xBFx")) ==
        std::vector<std::string>{"NIC statistics:", "\xEF\xBB\xBFx"});
  CHECK(all_lines(*text_line_source("\xEF\xBB\xBF")) == std::vector<std::string>{""});
  CHECK(all_lines(*text_line_source("\xFF\xFE" "a")) == std::vector<std::string>{"\xFF\xFE" "a"});
}

TEST_CASE("text_line_source: line ends, CRLF, a last line without newline, numbers") {
  auto s = text_line_source("a\r\n\nb\nlast");
  CHECK(all_lines(*s) == std::vector<std::string>{"a", "", "b", "last"});
  CHECK(s->line_no() == 4);
  CHECK(s->bytes_read() == 10);
  CHECK(all_lines(*text_line_source("")).empty());
  CHECK(all_lines(*text_line_source("x\n")) == std::vector<std::string>{"x"});
}

TEST_CASE("lines across chunk boundaries, a line past the limit is cut, NUL bytes counted") {
  // A reader giving 3 bytes at a time.
  std::string text = std::string("0123456789\nab") + '\0' + "c\n" + std::string(100, 'x') + "\nend\n";
  size_t at = 0;
  ChunkLineSource s(
      [&](char* buf, size_t size) -> Result<size_t> {
        size_t n = std::min<size_t>({size, 3, text.size() - at});
        std::memcpy(buf, text.data() + at, n);
        at += n;
        return n;
      },
      16);
  auto lines = all_lines(s);
  REQUIRE(lines.size() == 4);
  CHECK(lines[0] == "0123456789");
  CHECK(lines[1] == std::string("ab") + '\0' + "c");
  CHECK(lines[2] == std::string(16, 'x'));
  CHECK(lines[3] == "end");
  CHECK(s.cut_lines() == 1);
  CHECK(s.nul_bytes() == 1);
}

TEST_CASE("a read error ends the lines and is kept") {
  int calls = 0;
  ChunkLineSource s([&](char* buf, size_t) -> Result<size_t> {
    if (calls++ == 0) {
      std::memcpy(buf, "one\ntw", 6);
      return size_t{6};
    }
    return make_error(ErrorCode::kIo, "read failed: Input/output error", "f");
  });
  CHECK(all_lines(s) == std::vector<std::string>{"one", "tw"});
  REQUIRE(s.error().has_value());
  CHECK(s.error()->code == ErrorCode::kIo);
}

TEST_CASE("open_line_source: a file, a directory, a missing file") {
  std::string path = "/tmp/fabdiag_line_source_test." + std::to_string(::getpid());
  std::ofstream(path) << "x: 1\ny: 2\n";
  auto f = open_line_source(path);
  REQUIRE(f.ok());
  CHECK(all_lines(**f) == std::vector<std::string>{"x: 1", "y: 2"});
  ::unlink(path.c_str());
  auto dir = open_line_source("/tmp");
  REQUIRE_FALSE(dir.ok());
  CHECK(dir.error().code == ErrorCode::kInvalidArgument);
  auto missing = open_line_source(path);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == ErrorCode::kNotFound);
  CHECK(missing.error().source == path);
}

TEST_CASE("PeekedLineSource: the head is replayed, then the rest, numbers continue") {
  PeekedLineSource p(text_line_source("1\n2\n3\n4\n5\n"), 2);
  CHECK(p.head() == std::vector<std::string>{"1", "2"});
  CHECK_FALSE(p.head_is_all());
  CHECK(p.line_no() == 0);
  CHECK(*p.next() == "1");
  CHECK(p.line_no() == 1);
  CHECK(*p.next() == "2");
  CHECK(p.line_no() == 2);
  CHECK(*p.next() == "3");
  CHECK(p.line_no() == 3);
  CHECK(all_lines(p) == std::vector<std::string>{"4", "5"});
  PeekedLineSource small(text_line_source("a\n"), 10);
  CHECK(small.head_is_all());
  CHECK(all_lines(small) == std::vector<std::string>{"a"});
  // Reading ahead stops at the byte bound.
  PeekedLineSource bytes(text_line_source(std::string(50, 'a') + "\nb\nc\n"), 10, 20);
  CHECK(bytes.head().size() == 1);
  CHECK(all_lines(bytes).size() == 3);
}

TEST_CASE("an input that never ends is refused or stopped: devices by name, a runaway line after 64 MiB") {
  auto zero = open_line_source("/dev/zero");
  REQUIRE_FALSE(zero.ok());
  CHECK(zero.error().code == ErrorCode::kInvalidArgument);
  CHECK(zero.error().source == "/dev/zero");
  CHECK(zero.error().message.find("is a character device, not a file: it may never end") == 0);
  auto null = open_line_source("/dev/null");  // empty, not endless
  REQUIRE(null.ok());
  CHECK(all_lines(**null).empty());
  // '-' fed from /dev/zero: NULs without a newline, forever. Reading stops with an error.
  uint64_t given = 0;
  ChunkLineSource endless([&](char* buf, size_t size) -> Result<size_t> {
    std::memset(buf, 0, size);
    given += size;
    return size;
  });
  auto lines = all_lines(endless);
  CHECK(lines.size() == 1);
  REQUIRE(endless.error().has_value());
  CHECK(endless.error()->code == ErrorCode::kParse);
  CHECK(endless.error()->message.find("line 1 runs past 68 MiB without a newline") == 0);
  CHECK(given < (uint64_t{69} << 20));
}
