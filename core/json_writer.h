// A streaming JSON writer whose output is byte for byte what nlohmann's dump(indent) writes for
// the same tree (pretty or one line, UTF-8 kept, invalid UTF-8 replaced by U+FFFD as
// error_handler_t::replace does), without building the tree: for the big arrays of a result
// (the 6,700 counters of an 8-NIC node) the tree costs more than the rest of the run.
// Callers write an object's members in nlohmann's order (std::map: keys sorted bytewise).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace fabdiag {

/// Appends one JSON value (objects and arrays opened and closed through it) to a string.
/// Every value goes either after key() inside an object or as an element of an array (or is
/// the one top-level value). Misuse (a value in an object without key(), end_array() closing an
/// object) is a programming error and is not checked beyond debug assertions.
class JsonWriter {
 public:
  /// Appends to `out`. `indent_step`: spaces per level as in dump(indent); < 0 = one line
  /// (dump()). `current_indent`: the indentation of the line the value starts on, when it is
  /// itself a member of a document written by other means (render_json's data members: 2).
  JsonWriter(std::string& out, int indent_step, unsigned current_indent = 0);
  ~JsonWriter();
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;

  void begin_object();  ///< "{"; members follow as key() + value.
  void end_object();    ///< "}" ("{}" when it has no member).
  void begin_array();   ///< "[".
  void end_array();     ///< "]" ("[]" when it has no element).
  /// The next member's name (escaped like a string value); its value follows.
  void key(std::string_view k);

  /// A member name known when the program is compiled: printable ASCII without '"' or '\\',
  /// checked at compile time, so writing it skips the escape scan (the counter list writes
  /// 14 such names for each of its 6,700 counters).
  struct Literal {
    consteval Literal(const char* s) : text(s) {  // NOLINT: implicit from a literal on purpose
      for (char c : text)
        if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') throw "JsonWriter::Literal: not plain";
    }
    std::string_view text;
  };
  /// key() for a compile-time name: the same bytes, without the scan.
  void key_literal(Literal k) { plain_key(k.text); }
  /// A string value the caller knows is plain (an enum's name from a fixed table: printable
  /// ASCII, no '"' or '\\'); the same bytes as string(), without the scan. Anything else is a
  /// programming error (debug assertion).
  void plain_string(std::string_view s);

  void string(std::string_view s);  ///< A string: escaped, invalid UTF-8 replaced.
  void unsigned_number(uint64_t v);  ///< An integer (number_unsigned).
  void signed_number(int64_t v);    ///< An integer (number_integer).
  /// A double as nlohmann writes a number_float: shortest round-trip digits ("0.1", "1e+20",
  /// "3.0"), null when not finite.
  void float_number(double v);
  void boolean(bool v);
  void null();
  /// Any tree, written by nlohmann's own serializer at the current place.
  void tree(const nlohmann::json& j);

 private:
  struct Frame {
    bool object = false;
    size_t count = 0;     ///< Members or elements written so far.
    unsigned indent = 0;  ///< Indentation of the line the container opened on.
  };
  void before_value();          ///< Separator and indentation before a value in an array.
  unsigned element_indent() const;
  void newline_indent(unsigned n);
  void escaped(std::string_view s);  ///< The quoted string, nlohmann's escaping.
  void plain_key(std::string_view k);     ///< key() once `k` is known to need no escape.
  void quoted(std::string_view s);        ///< `"s"` for a string that needs no escape.
  struct Serializer;
  Serializer& serializer();

  std::string& out_;
  bool pretty_;
  unsigned step_;
  unsigned base_indent_;
  std::vector<Frame> stack_;
  std::unique_ptr<Serializer> serializer_;  ///< Built on first need (escapes, floats, trees).
};

}  // namespace fabdiag
