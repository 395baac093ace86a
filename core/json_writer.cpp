#include "core/json_writer.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <charconv>
#include <cstring>

#include <nlohmann/json.hpp>

namespace fabdiag {

struct JsonWriter::Serializer {
  explicit Serializer(std::string& out)
      : s(nlohmann::detail::output_adapter<char, std::string>(out), ' ',
          nlohmann::json::error_handler_t::replace) {}
  nlohmann::detail::serializer<nlohmann::json> s;
};

JsonWriter::JsonWriter(std::string& out, int indent_step, unsigned current_indent)
    : out_(out),
      pretty_(indent_step >= 0),
      step_(indent_step >= 0 ? static_cast<unsigned>(indent_step) : 0),
      base_indent_(current_indent) {}

JsonWriter::~JsonWriter() = default;

JsonWriter::Serializer& JsonWriter::serializer() {
  if (!serializer_) serializer_ = std::make_unique<Serializer>(out_);
  return *serializer_;
}

unsigned JsonWriter::element_indent() const {
  return stack_.empty() ? base_indent_ : stack_.back().indent + step_;
}

void JsonWriter::newline_indent(unsigned n) {
  static constexpr char kBlanks[] = "\n                                                               ";
  if (n + 1 < sizeof kBlanks) {  // one copy of a prefix, not a fill
    out_.append(kBlanks, n + 1);
    return;
  }
  out_ += '\n';
  out_.append(n, ' ');
}

void JsonWriter::before_value() {
  if (stack_.empty() || stack_.back().object) return;  // top level, or after key()
  Frame& f = stack_.back();
  if (f.count++ > 0) out_ += ',';
  if (pretty_) newline_indent(f.indent + step_);
}

void JsonWriter::begin_object() {
  before_value();
  const unsigned indent = element_indent();  // of the line the object opens on
  out_ += '{';
  stack_.push_back(Frame{true, 0, indent});
}

void JsonWriter::begin_array() {
  before_value();
  const unsigned indent = element_indent();
  out_ += '[';
  stack_.push_back(Frame{false, 0, indent});
}

void JsonWriter::end_object() {
  assert(!stack_.empty() && stack_.back().object);
  Frame f = stack_.back();
  stack_.pop_back();
  if (f.count > 0 && pretty_) newline_indent(f.indent);
  out_ += '}';
}

void JsonWriter::end_array() {
  assert(!stack_.empty() && !stack_.back().object);
  Frame f = stack_.back();
  stack_.pop_back();
  if (f.count > 0 && pretty_) newline_indent(f.indent);
  out_ += ']';
}

namespace {

// True when every byte of `s` is printable ASCII other than '"' and '\\', which nlohmann writes
// as they are. Eight bytes at a time (the bit tests of "Bit Twiddling Hacks": a byte below n,
// a zero byte): the counter list is 3 MB of such strings.
bool is_plain(std::string_view s) {
  constexpr uint64_t kOnes = 0x0101010101010101ull, kHigh = 0x8080808080808080ull;
  auto has_zero = [](uint64_t v) { return ((v - kOnes) & ~v & kHigh) != 0; };
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    const bool below_space = ((w - kOnes * 0x20) & ~w & kHigh) != 0;
    if ((w & kHigh) || below_space || has_zero(w ^ (kOnes * 0x7f)) || has_zero(w ^ (kOnes * '"')) ||
        has_zero(w ^ (kOnes * '\\')))
      return false;
  }
  static constexpr auto kPlainByte = [] {  // the same test for the last 0-7 bytes, one load each
    std::array<bool, 256> t{};
    for (int c = 0x20; c < 0x7f; ++c) t[static_cast<size_t>(c)] = c != '"' && c != '\\';
    return t;
  }();
  for (; i < s.size(); ++i)
    if (!kPlainByte[static_cast<unsigned char>(s[i])]) return false;
  return true;
}

}  // namespace

void JsonWriter::key(std::string_view k) {
  if (is_plain(k)) {
    plain_key(k);
    return;
  }
  assert(!stack_.empty() && stack_.back().object);
  Frame& f = stack_.back();
  if (f.count++ > 0) out_ += ',';
  if (pretty_) newline_indent(f.indent + step_);
  escaped(k);
  out_.append(": ", pretty_ ? 2 : 1);
}

void JsonWriter::plain_key(std::string_view k) {
  assert(!stack_.empty() && stack_.back().object);
  assert(is_plain(k));
  Frame& f = stack_.back();
  const bool comma = f.count++ > 0;
  // `,\n<indent>"k": ` assembled on the stack and appended at once (a resize would fill the
  // bytes with zeros first); a name too long for the buffer takes the general path.
  const size_t indent = pretty_ ? f.indent + step_ : 0;
  char buf[256];
  if (indent + k.size() + 8 > sizeof buf) {
    if (comma) out_ += ',';
    if (pretty_) newline_indent(f.indent + step_);
    quoted(k);
    out_.append(": ", pretty_ ? 2 : 1);
    return;
  }
  char* p = buf;
  if (comma) *p++ = ',';
  if (pretty_) {
    *p++ = '\n';
    std::memset(p, ' ', indent);
    p += indent;
  }
  *p++ = '"';
  std::memcpy(p, k.data(), k.size());
  p += k.size();
  *p++ = '"';
  *p++ = ':';
  if (pretty_) *p++ = ' ';
  out_.append(buf, static_cast<size_t>(p - buf));
}

void JsonWriter::quoted(std::string_view s) {
  out_ += '"';
  out_.append(s);
  out_ += '"';
}

void JsonWriter::escaped(std::string_view s) {
  // Anything but plain text (control characters, UTF-8, invalid bytes) goes through
  // nlohmann's own serializer.
  if (is_plain(s)) {
    quoted(s);
    return;
  }
  serializer().s.dump(nlohmann::json(std::string(s)), pretty_, false, step_, 0);
}

void JsonWriter::plain_string(std::string_view s) {
  assert(is_plain(s));
  before_value();
  quoted(s);
}

void JsonWriter::string(std::string_view s) {
  before_value();
  escaped(s);
}

void JsonWriter::unsigned_number(uint64_t v) {
  before_value();
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out_.append(buf, r.ptr);
}

void JsonWriter::signed_number(int64_t v) {
  before_value();
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out_.append(buf, r.ptr);
}

void JsonWriter::float_number(double v) {
  before_value();
  serializer().s.dump(nlohmann::json(v), pretty_, false, step_, 0);
}

void JsonWriter::boolean(bool v) {
  before_value();
  out_ += v ? "true" : "false";
}

void JsonWriter::null() {
  before_value();
  out_ += "null";
}

void JsonWriter::tree(const nlohmann::json& j) {
  before_value();
  serializer().s.dump(j, pretty_, false, step_, element_indent());
}

}  // namespace fabdiag
