#include <doctest/doctest.h>

#include <limits>

#include "report/xml_escape.h"

using namespace fabdiag;

TEST_CASE("xml_escape turns markup characters into entities") {
  CHECK(xml_escape("a<b>&\"c'") == "a&lt;b&gt;&amp;&quot;c&#39;");
  CHECK(xml_escape("</testcase><script>alert(1)</script>") ==
        "&lt;/testcase&gt;&lt;script&gt;alert(1)&lt;/script&gt;");
  CHECK(xml_escape("]]>") == "]]&gt;");
  CHECK(xml_escape("&amp;") == "&amp;amp;");  // escaped again, not taken for an entity
}

TEST_CASE("xml_escape keeps valid UTF-8 and whitespace, replaces what XML 1.0 forbids") {
  CHECK(xml_escape("n\xC3\xB6" "de\t1\n\r") == "n\xC3\xB6" "de\t1\n\r");  // node with o-umlaut
  CHECK(xml_escape("\xE2\x86\x92 \xF0\x9F\x94\xA5") == "\xE2\x86\x92 \xF0\x9F\x94\xA5");  // arrow, 4-byte emoji
  const std::string fffd = "\xEF\xBF\xBD";
  CHECK(xml_escape(std::string("a\0b", 3)) == "a" + fffd + "b");  // NUL
  CHECK(xml_escape("\x1b[31mred") == fffd + "[31mred");           // terminal escape
  CHECK(xml_escape("\x7f") == "\x7f");                             // DEL is allowed in XML 1.0
  CHECK(xml_escape("caf\xE9") == "caf" + fffd);                    // Latin-1 byte
  CHECK(xml_escape("\xC3") == fffd);                               // cut 2-byte sequence
  CHECK(xml_escape("\xC0\xAF") == fffd + fffd);                    // overlong '/'
  CHECK(xml_escape("\xED\xA0\x80") == fffd + fffd + fffd);         // encoded surrogate
  CHECK(xml_escape("\xEF\xBF\xBE") == fffd);                       // U+FFFE
  CHECK(xml_escape("\xF4\x90\x80\x80") == fffd + fffd + fffd + fffd);  // above U+10FFFF
}

TEST_CASE("xml_number writes integers exactly and never nan or inf") {
  CHECK(xml_number(1048576) == "1048576");
  CHECK(xml_number(49360000000.0) == "49360000000");
  CHECK(xml_number(0.5) == "0.5");
  CHECK(xml_number(1.0 / 3) == "0.3333333333");
  CHECK(xml_number(std::numeric_limits<double>::quiet_NaN()) == "0");
  CHECK(xml_number(std::numeric_limits<double>::infinity()) == "0");
}
