// Escaping text for XML and HTML output (report/junit.cpp, report/html.cpp): whatever a host
// name, a log line or a file name holds, the document stays well-formed.
#pragma once

#include <string>
#include <string_view>

namespace fabdiag {

/// `text` made safe as XML 1.0 / HTML character data and as a double- or single-quoted
/// attribute value: & < > " ' become entities (&amp; &lt; &gt; &quot; &#39;); bytes that are
/// not valid UTF-8 (a Latin-1 host name, a cut multi-byte sequence, an encoded surrogate or
/// overlong form) and characters XML 1.0 forbids (controls other than tab, newline and carriage
/// return; U+FFFE, U+FFFF) become U+FFFD. Valid UTF-8 otherwise passes unchanged.
std::string xml_escape(std::string_view text);

/// Formats a number for an XML attribute or SVG coordinate: an integral value exactly
/// ("1048576"), others with 10 significant digits; never "nan"/"inf" (those give "0": SVG and
/// XML readers reject them).
std::string xml_number(double v);

}  // namespace fabdiag
