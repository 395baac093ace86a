#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "core/json_writer.h"

using namespace fabdiag;
using nlohmann::json;

namespace {

// nlohmann's own bytes for `j`: what the writer must reproduce.
std::string reference(const json& j, int indent) {
  return j.dump(indent, ' ', false, json::error_handler_t::replace);
}

// Writes `j` element by element through the writer's typed calls (not tree()).
void write_typed(JsonWriter& w, const json& j) {
  switch (j.type()) {
    case json::value_t::object:
      w.begin_object();
      for (const auto& [k, v] : j.items()) {
        w.key(k);
        write_typed(w, v);
      }
      w.end_object();
      break;
    case json::value_t::array:
      w.begin_array();
      for (const auto& v : j) write_typed(w, v);
      w.end_array();
      break;
    case json::value_t::string: w.string(j.get_ref<const std::string&>()); break;
    case json::value_t::number_unsigned: w.unsigned_number(j.get<uint64_t>()); break;
    case json::value_t::number_integer: w.signed_number(j.get<int64_t>()); break;
    case json::value_t::number_float: w.float_number(j.get<double>()); break;
    case json::value_t::boolean: w.boolean(j.get<bool>()); break;
    default: w.null(); break;
  }
}

json tricky() {
  json j;
  j["plain"] = "mlx5_0/1";
  j["quote \"and\" backslash \\"] = "tab\there\nnew line \x01 \x1f \x7f";
  j["utf8"] = "caf\xc3\xa9 \xe2\x82\xac";
  j["invalid utf8"] = std::string("Latin-1 \xe9t\xe9 and a cut \xe2\x82");
  j["key \xff"] = "bad byte in a key";
  j["floats"] = {0.1, 1.0, 3.0, -2.5, 1e20, 1e-7, 123456789.125, 6.02214076e23,
                 std::numeric_limits<double>::max(), std::numeric_limits<double>::denorm_min(),
                 std::nan(""), std::numeric_limits<double>::infinity(), -0.0};
  j["unsigned"] = {0u, 1u, std::numeric_limits<uint64_t>::max()};
  j["signed"] = {-1, std::numeric_limits<int64_t>::min(), 42};
  j["bools"] = {true, false, nullptr};
  j["empty object"] = json::object();
  j["empty array"] = json::array();
  j["nested"] = {{"a", json::array({json::object(), json::array(), json::array({1, 2})})},
                 {"b", {{"c", {{"d", "e"}}}}}};
  return j;
}

}  // namespace

TEST_CASE("json writer: typed calls give nlohmann's dump byte for byte, pretty and one line") {
  const json j = tricky();
  for (int indent : {-1, 0, 2, 4}) {
    CAPTURE(indent);
    std::string out;
    JsonWriter w(out, indent);
    write_typed(w, j);
    CHECK(out == reference(j, indent));
  }
  // invalid UTF-8 is replaced, not thrown: U+FFFD in place of each bad sequence
  CHECK(reference(j, -1).find("Latin-1 \xef\xbf\xbdt\xef\xbf\xbd and a cut \xef\xbf\xbd") !=
        std::string::npos);
  // non-finite doubles are null, as nlohmann writes them
  CHECK(reference(j["floats"], -1).find("null,null") != std::string::npos);
}

TEST_CASE("json writer: tree() and scalars at the top level and at depth") {
  const json j = tricky();
  for (int indent : {-1, 2}) {
    std::string out;
    JsonWriter w(out, indent);
    w.begin_object();
    for (const auto& [k, v] : j.items()) {
      w.key(k);
      if (v.is_array())
        write_typed(w, v);
      else
        w.tree(v);  // nlohmann's serializer at the writer's indentation
    }
    w.end_object();
    CHECK(out == reference(j, indent));
  }
  std::string s;
  JsonWriter top(s, 2);
  top.float_number(0.5);
  CHECK(s == "0.5");
  std::string e;
  JsonWriter empty(e, 2);
  empty.begin_array();
  empty.end_array();
  CHECK(e == "[]");
}

TEST_CASE("json writer: a value that starts indented (a member of an outer document)") {
  const json inner = {{"counters", json::array({{{"device", "mlx5_0/1"}, {"value", 7}}})}, {"n", 1}};
  const json outer = {{"data", inner}, {"schema", "x"}};
  std::string out = "{\n  \"data\": ";
  JsonWriter w(out, 2, 2);
  write_typed(w, inner);
  out += ",\n  \"schema\": \"x\"\n}";
  CHECK(out == reference(outer, 2));
}
