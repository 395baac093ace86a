#include "core/json_writer.h"

#include <algorithm>
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

void JsonWriter::key(std::string_view k) {
  assert(!stack_.empty() && stack_.back().object);
  Frame& f = stack_.back();
  if (f.count++ > 0) out_ += ',';
  if (pretty_) newline_indent(f.indent + step_);
  escaped(k);
  out_ += pretty_ ? ": " : ":";
}

void JsonWriter::escaped(std::string_view s) {
  // Printable ASCII other than '"' and '\\' is written as is by nlohmann too; anything else
  // (control characters, UTF-8, invalid bytes) goes through its serializer.
  const bool plain = std::all_of(s.begin(), s.end(), [](char c) {
    auto u = static_cast<unsigned char>(c);
    return u >= 0x20 && u < 0x7f && c != '"' && c != '\\';
  });
  if (plain) {
    const size_t at = out_.size();
    out_.resize(at + s.size() + 2);  // one growth for the quotes and the text
    char* p = out_.data() + at;
    p[0] = '"';
    std::memcpy(p + 1, s.data(), s.size());
    p[s.size() + 1] = '"';
    return;
  }
  serializer().s.dump(nlohmann::json(std::string(s)), pretty_, false, step_, 0);
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
