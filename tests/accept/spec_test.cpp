// accept/spec.h: SPEC.yaml parsing, the example specs of docs/specs, and the errors that name
// FILE:LINE:COLUMN and the key (an unknown key, a value of the wrong type, YAML syntax).
#include <doctest/doctest.h>

#include "accept/spec.h"
#include "core/build_config.h"
#include "tests/support/skip.h"

using namespace fabdiag;
using namespace fabdiag::accept;

namespace {

#define NEED_YAMLCPP() \
  if (!FABDIAG_HAVE_YAMLCPP) FABDIAG_SKIP_TEST("built without yaml-cpp: accept cannot read a spec")

std::string error_of(const std::string& text) {
  auto s = parse_spec(text, "s.yaml");
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().code == ErrorCode::kParse);
  return s.error().message;
}

}  // namespace

TEST_CASE("the HGX example spec reads every member") {
  NEED_YAMLCPP();
  auto s = load_spec(FABDIAG_SOURCE_DIR "/docs/specs/hgx-h100-8gpu.yaml");
  REQUIRE_MESSAGE(s.ok(), s.error().to_string());
  CHECK(s->name == "hgx-h100-8gpu-8x400g-ndr");
  CHECK(s->node.gpus == 8);
  CHECK(s->node.nics == 8);
  CHECK(s->node.nvlinks_per_gpu == 18);
  CHECK(s->node.port_rate_gbit_per_s == 400.0);
  CHECK(s->node.port_width == 4);
  CHECK(s->node.link_layer == std::string("InfiniBand"));
  CHECK_FALSE(s->node.active_mtu_bytes.has_value());  // commented out: IB sysfs has no active MTU
  CHECK(s->node.pcie.at("gpu").gen == 5);
  CHECK(s->node.pcie.at("nic").width == 16);
  CHECK(s->node.gpus_per_nic == 1);
  CHECK(s->node.gdr == true);
  CHECK(s->deliver.efficiency == doctest::Approx(0.8));
  REQUIRE(s->deliver.busbw.size() == 3);
  CHECK(s->deliver.busbw[0].collective == "all_reduce");
  CHECK(s->deliver.busbw[0].size_bytes == (1ull << 30));
  CHECK_FALSE(s->deliver.busbw[0].min_busbw_bytes_per_s.has_value());
  CHECK(s->deliver.busbw[1].size_bytes == (8ull << 30));
  CHECK(s->deliver.busbw[2].collective == "alltoall");
  CHECK(s->deliver.pair_checked);
  CHECK_FALSE(s->deliver.pair_min_bytes_per_s.has_value());
  CHECK(s->deliver.counter_growth_max.size() == 4);
  CHECK(s->deliver.counter_growth_max.at("symbol_error") == 0.0);
}

TEST_CASE("the emulated-cluster example spec types its floors in GB/s") {
  NEED_YAMLCPP();
  auto s = load_spec(FABDIAG_SOURCE_DIR "/docs/specs/emucluster.yaml");
  REQUIRE_MESSAGE(s.ok(), s.error().to_string());
  CHECK(s->node.gpus == 0);
  REQUIRE(s->deliver.busbw.size() == 2);
  CHECK(*s->deliver.busbw[0].min_busbw_bytes_per_s == doctest::Approx(0.05e9));
  CHECK(*s->deliver.pair_min_bytes_per_s == doctest::Approx(0.05e9));
  CHECK(s->deliver.counter_growth_max.count("carrier_changes") == 1);
  CHECK_FALSE(s->node.port_rate_gbit_per_s.has_value());  // left out: not checked
}

TEST_CASE("an unknown key is an error naming its line, column and path") {
  NEED_YAMLCPP();
  std::string e = error_of("version: 1\nnode:\n  gpus: 8\n  nvlink_per_gpu: 18\n");
  CHECK(e.find("s.yaml:4:3: node.nvlink_per_gpu: unknown key") == 0);
  CHECK(e.find("nvlinks_per_gpu") != std::string::npos);  // the list of keys it could have meant
  CHECK(error_of("version: 1\ndeliver:\n  counters:\n    symbol_errors: 0\n").find("s.yaml:4:5: deliver.counters.symbol_errors") == 0);
  CHECK(error_of("version: 1\nnodes: {}\n").find("s.yaml:2:1: nodes: unknown key") == 0);
}

TEST_CASE("a key given twice in one mapping is an error naming the second and the first line") {
  NEED_YAMLCPP();
  CHECK(error_of("version: 1\nnode:\n  gpus: 8\n  nics: 8\n  gpus: 4\n") == "s.yaml:5:3: node.gpus: duplicate (first at line 3)");
  CHECK(error_of("version: 1\nversion: 1\n") == "s.yaml:2:1: version: duplicate (first at line 1)");
  CHECK(error_of("version: 1\nnode:\n  pcie:\n    gpu: {gen: 5, gen: 4}\n") == "s.yaml:4:19: node.pcie.gpu.gen: duplicate (first at line 4)");
  CHECK(error_of("version: 1\ndeliver:\n  busbw:\n    - {collective: all_reduce, size: 1G}\n  busbw: []\n")
            == "s.yaml:5:3: deliver.busbw: duplicate (first at line 3)");
  // The same key in two different mappings is not a duplicate.
  CHECK(parse_spec("version: 1\nnode:\n  pcie:\n    gpu: {gen: 5}\n    nic: {gen: 5}\n", "s.yaml").ok());
}

TEST_CASE("a value of the wrong type names the values line and column") {
  NEED_YAMLCPP();
  CHECK(error_of("version: 1\nnode:\n  gpus: eight\n") == "s.yaml:3:9: node.gpus: expected an integer, got 'eight'");
  CHECK(error_of("version: 1\nnode:\n  gdr: maybe\n") == "s.yaml:3:8: node.gdr: expected true or false, got 'maybe'");
  CHECK(error_of("version: 1\nnode:\n  pcie:\n    gpu: {gen: 7}\n").find("s.yaml:4:16: node.pcie.gpu.gen: out of range [1, 6]") == 0);
  CHECK(error_of("version: 1\ndeliver:\n  busbw:\n    - {collective: allreduce, size: 1G}\n")
            .find("node") == std::string::npos);
  CHECK(error_of("version: 1\ndeliver:\n  busbw:\n    - {collective: all_reduce, size: 1Q}\n").find("s.yaml:4:38: deliver.busbw[0].size") == 0);
  CHECK(error_of("version: 1\ndeliver:\n  busbw:\n    - {collective: all_reduce}\n").find("size: missing") != std::string::npos);
  CHECK(error_of("version: 1\ndeliver:\n  efficiency: 1.5\n").find("s.yaml:3:15: deliver.efficiency: out of range") == 0);
}

TEST_CASE("YAML syntax errors and a missing version are spec errors too") {
  NEED_YAMLCPP();
  CHECK(error_of("version: 1\nnode: [gpus: 8\n").find("s.yaml:") == 0);
  CHECK(error_of("node:\n  gpus: 8\n").find("version: missing") != std::string::npos);
  CHECK(error_of("version: 2\n").find("s.yaml:1:10: version: out of range [1, 1]") == 0);
  CHECK(error_of("").find("empty spec") != std::string::npos);
}

TEST_CASE("a spec is one YAML mapping: a second document, a sequence and binary data are named by line") {
  NEED_YAMLCPP();
  const std::string two = error_of("version: 1\nname: a\n---\nnode: {gpus: 3}\n");
  CHECK(two.find("s.yaml:3: a second YAML document") == 0);
  CHECK(two.find("a spec is one YAML document") != std::string::npos);
  // a leading --- starts the first document, it is not a second one
  CHECK(error_of("# c\n---\nversion: 1\n---\nname: b\n").find("s.yaml:4: a second YAML document") == 0);
  CHECK(parse_spec("---\nversion: 1\nname: a\n", "s.yaml").ok());
  CHECK(parse_spec("version: 1\nname: a\n---\n", "s.yaml").ok());  // an empty trailing document drops nothing
  const std::string list = error_of("# the checks\n- version: 1\n- name: a\n");
  CHECK(list.find("s.yaml:2:") == 0);
  CHECK(list.find("a spec is a mapping of keys") != std::string::npos);
  CHECK(list.find("this is a sequence") != std::string::npos);
  CHECK(error_of("just words\n").find("this is a scalar") != std::string::npos);
  const std::string nul = error_of(std::string("version: 1\nname: \"a\\") + '\0' + "\"\n");
  CHECK(nul.find("s.yaml:2: binary data (NUL byte)") == 0);
}

TEST_CASE("a missing or unreadable spec file is named") {
  NEED_YAMLCPP();
  auto missing = load_spec("/nonexistent/fabdiag-spec.yaml");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == ErrorCode::kNotFound);
  CHECK(missing.error().to_string().find("/nonexistent/fabdiag-spec.yaml") != std::string::npos);
  auto dir = load_spec(FABDIAG_SOURCE_DIR "/docs/specs");
  REQUIRE_FALSE(dir.ok());
  CHECK(dir.error().to_string().find("docs/specs") != std::string::npos);
}

TEST_CASE("the bad-spec fixtures fail at the line and column they name") {
  NEED_YAMLCPP();
  auto unknown = load_spec(FABDIAG_SOURCE_DIR "/tests/fixtures/accept/specs/unknown-key.yaml");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().message.find("unknown-key.yaml:6:3: node.nvlink_per_gpu: unknown key") != std::string::npos);
  auto wrong = load_spec(FABDIAG_SOURCE_DIR "/tests/fixtures/accept/specs/wrong-type.yaml");
  REQUIRE_FALSE(wrong.ok());
  CHECK(wrong.error().message.find("wrong-type.yaml:6:9: node.gpus: expected an integer, got 'eight'") != std::string::npos);
  auto duplicate = load_spec(FABDIAG_SOURCE_DIR "/tests/fixtures/accept/specs/duplicate-key.yaml");
  REQUIRE_FALSE(duplicate.ok());
  CHECK(duplicate.error().message.find("duplicate-key.yaml:7:3: node.gpus: duplicate (first at line 5)") != std::string::npos);
  auto node_only = load_spec(FABDIAG_SOURCE_DIR "/tests/fixtures/accept/specs/node-only.yaml");
  REQUIRE_MESSAGE(node_only.ok(), node_only.error().to_string());
  CHECK(node_only->deliver.busbw.empty());
  CHECK_FALSE(node_only->deliver.pair_checked);
  CHECK(node_only->deliver.counter_growth_max.size() == 2);
  CHECK(node_only->node.link_layer == std::string("InfiniBand"));
}

TEST_CASE("pcie generations map to GT/s per lane") {
  CHECK(*pcie_gen_gts(1) == 2.5);
  CHECK(*pcie_gen_gts(5) == 32.0);
  CHECK(*pcie_gen_gts(6) == 64.0);
  CHECK_FALSE(pcie_gen_gts(0).has_value());
  CHECK_FALSE(pcie_gen_gts(7).has_value());
}
