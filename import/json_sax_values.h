// The value-building half of a nlohmann::json SAX handler, shared by the readers that build
// what they keep of a JSON document as they parse it (import/nccl_tests_json.cpp keeps a cut
// document's completed values; import/nccl_ras_json.cpp keeps one rank record at a time).
#pragma once

#include <cstddef>

#include <nlohmann/json.hpp>

namespace fabdiag::detail {

/// A SAX handler (nlohmann::json::json_sax_t) that hands every scalar to value() (a binary
/// value, which no text JSON has, as null), every array or object opening to open() with the
/// empty container, and every closing to close(). key() and parse_error() stay the subclass's.
/// A hook returning false stops the parse (nlohmann's SAX contract).
class JsonSaxValues : public nlohmann::json::json_sax_t {
 public:
  bool null() override { return value(nullptr); }
  bool boolean(bool v) override { return value(v); }
  bool number_integer(number_integer_t v) override { return value(v); }
  bool number_unsigned(number_unsigned_t v) override { return value(v); }
  bool number_float(number_float_t v, const string_t&) override { return value(v); }
  bool string(string_t& v) override { return value(v); }
  bool binary(binary_t&) override { return value(nullptr); }
  bool start_object(std::size_t) override { return open(nlohmann::json::object()); }
  bool start_array(std::size_t) override { return open(nlohmann::json::array()); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }

 protected:
  /// A complete scalar, placed in the container open now (or as the root).
  virtual bool value(nlohmann::json v) = 0;
  /// An empty array or object, placed as value() places a scalar, then the container open now.
  virtual bool open(nlohmann::json container) = 0;
  /// The container open now is complete.
  virtual bool close() = 0;
};

}  // namespace fabdiag::detail
