// NCCL Inspector output: case 050 (README examples: Prometheus lines, v4.3 records, a dump
// marker with dropped records) and variants.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "import/nccl_inspector.h"

using namespace fabdiag;
using doctest::Approx;

namespace {

std::string fixture(const std::string& rel) {
  auto text = read_file(std::string(FABDIAG_SOURCE_DIR) + "/tests/fixtures/" + rel);
  REQUIRE_MESSAGE(text.ok(), rel);
  return *text;
}

const std::string k050 = "cases/050-nccl-inspector-json-v4.3-dump-stats-dropped-records-format.input.txt";

const char* kMarker =
    "{\"header\": {\"id\": \"0x1\", \"rank\": 0, \"n_ranks\": 8, \"nnodes\": 1}, \"metadata\": "
    "{\"inspector_output_format_version\": \"v4.3\", \"hostname\": \"node01\"}, \"dump_stats\": {\"coll_records\": 10, "
    "\"coll_dropped_total\": 0, \"coll_dropped_since_last_dump\": 0}}\n";

}  // namespace

TEST_CASE("case 050: Inspector v4.3 records tied to their marker, 512 records dropped, factors consistent") {
  auto imp = import_nccl_inspector(fixture(k050), "050");
  REQUIRE(imp.ok());
  CHECK(imp->gaps.empty());
  REQUIRE(imp->dumps.size() == 1);
  const auto& d = imp->dumps[0];
  CHECK(d.rank == 2);
  CHECK(d.n_ranks == 8);
  CHECK(d.nnodes == 1);
  CHECK(d.format_version == "v4.3");
  CHECK(d.stats.at("coll_records") == 1024);
  CHECK(d.stats.at("coll_dropped_since_last_dump") == 512);
  CHECK(d.stats.at("coll_dropped_total") == 4096);
  CHECK(d.stats.at("proxy_ops_dropped_total") == 3);
  CHECK(d.stats.at("proxy_pxn_skipped_process_total") == 5);  // a per-process total, kept as written
  REQUIRE(imp->colls.size() == 2);
  CHECK(imp->colls[0].coll == "AllReduce");
  CHECK(imp->colls[0].rank == 2);  // the record before the marker takes its rank
  CHECK(imp->colls[0].busbw_bytes_per_s == Approx(485.119099e9));
  CHECK(imp->colls[0].exec_time_s == Approx(0.061974));
  CHECK(imp->colls[1].coll == "ReduceScatter");
  CHECK(imp->colls[1].busbw_bytes_per_s == Approx(366.134533e9));
  CHECK(imp->colls[1].n_ranks == 8);
  REQUIRE(imp->metrics.size() == 4);
  CHECK(imp->metrics[0].name == "nccl_bus_bandwidth_gbs");
  CHECK(imp->metrics[0].value == Approx(678.263));
  CHECK(imp->metrics[0].labels.at("nranks") == "4");
  CHECK(imp->metrics[0].labels.at("comm_name") == "DP Group 0");

  auto data = nccl_inspector_data(*imp);
  CHECK(data["colls"][0]["busbw_factor_observed"].get<double>() == Approx(1.75).epsilon(0.001));
  CHECK(data["colls"][0]["busbw_factor_expected"].get<double>() == Approx(1.75));
  CHECK(data["colls"][1]["busbw_factor_expected"].get<double>() == Approx(0.875));
  CHECK(data["dumps"][0]["dropped_pct_this_dump"].get<double>() == Approx(33.33).epsilon(0.01));

  auto fs = nccl_inspector_findings(*imp, "050");
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].code == "nccl_inspector_records_dropped");
  CHECK(fs[0].severity == Severity::kWarn);
  CHECK(fs[0].message.find("dropped 512") != std::string::npos);
  CHECK(fs[0].message.find("33%") != std::string::npos);
  CHECK(fs[0].message.find("4096") != std::string::npos);
  // must not: a finding about the busbw factor (1.75 and 0.875 are right for 8 ranks).
  for (const auto& f : fs) CHECK(f.message.find("factor") == std::string::npos);
}

TEST_CASE("Inspector variants: healthy control, an inconsistent factor, a cut record, another tool") {
  SUBCASE("healthy: no drop, right factor") {
    std::string t = std::string(kMarker) +
                    "{\"coll_perf\": {\"coll\": \"AllGather\", \"coll_sn\": 1, \"coll_msg_size_bytes\": 1048576, "
                    "\"coll_exec_time_us\": 100, \"coll_algobw_gbs\": 80.0, \"coll_busbw_gbs\": 70.0}}\n";
    auto imp = import_nccl_inspector(t, "ok");
    REQUIRE(imp.ok());
    CHECK(imp->colls.at(0).rank == 0);
    CHECK(nccl_inspector_findings(*imp, "ok").empty());
  }
  SUBCASE("a busbw that is not the factor of its rank count") {
    std::string t = std::string(kMarker) +
                    "{\"coll_perf\": {\"coll\": \"AllReduce\", \"coll_sn\": 2, \"coll_algobw_gbs\": 100.0, "
                    "\"coll_busbw_gbs\": 100.0}}\n";
    auto fs = nccl_inspector_findings(*import_nccl_inspector(t, "bad"), "bad");
    REQUIRE(fs.size() == 1);
    CHECK(fs[0].code == "nccl_inspector_busbw_factor");
  }
  SUBCASE("a record cut at the end is a gap") {
    std::string t = std::string(kMarker) + "{\n  \"coll_perf\": {\n    \"coll\": \"AllReduce\",\n";
    auto imp = import_nccl_inspector(t, "cut");
    REQUIRE(imp.ok());
    REQUIRE(imp->gaps.size() == 1);
    CHECK(imp->gaps[0].source == "cut:2");
  }
  SUBCASE("another tool's text is refused") {
    auto imp = import_nccl_inspector("CA 'mlx5_0'\n", "ibstat.txt");
    REQUIRE_FALSE(imp.ok());
    CHECK(imp.error().source == "ibstat.txt:1");
  }
}
