// The result builders of `fabdiag import lspci|ibstat|...`, `check --from`, `import
// nvidia-smi-topo` and `import nccl-tests` that cmd/ renders: what they return for fixtures.
#include <doctest/doctest.h>

#include <map>

#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "import/host_formats.h"
#include "import/nccl_tests.h"
#include "import/nvsmi_topo.h"

using namespace fabdiag;

namespace {

const std::string kFixtures = std::string(FABDIAG_SOURCE_DIR) + "/tests/fixtures/";
constexpr const char* kIbstat = "cases/013-ibstat-cx7-two-ports-down.input.txt";
constexpr const char* kLspci = "cases/008-lspci-acsctl-redirect-enabled.input.txt";

Result<std::string> read_fixture(const std::string& rel) { return read_file(kFixtures + rel); }

}  // namespace

TEST_CASE("import_host_files: several files merged in order, each imported in its format") {
  int reads = 0;
  auto facts = import_host_files({kIbstat, kLspci}, [&](const std::string& f) {
    ++reads;
    return read_fixture(f);
  }, InputFormat::kAuto);
  REQUIRE(facts.ok());
  CHECK(reads == 2);
  auto ibstat = import_host_facts(*read_fixture(kIbstat), kIbstat, InputFormat::kAuto);
  auto lspci = import_host_facts(*read_fixture(kLspci), kLspci, InputFormat::kAuto);
  REQUIRE(ibstat.ok());
  REQUIRE(lspci.ok());
  REQUIRE(facts->rdma_ports.has_value());
  REQUIRE(ibstat->rdma_ports.has_value());
  CHECK(facts->rdma_ports->size() == 12);  // every port ibstat lists
  CHECK(facts->rdma_ports->size() == ibstat->rdma_ports->size());
  CHECK((*facts->rdma_ports)[0].device == (*ibstat->rdma_ports)[0].device);
  REQUIRE(facts->acs_ports.has_value());
  REQUIRE(lspci->acs_ports.has_value());
  CHECK(facts->acs_ports->size() == 11);  // the ACS ports of the lspci listing
  CHECK(facts->acs_ports->size() == lspci->acs_ports->size());
}

TEST_CASE("import_host_files: the first file that fails stops the import with its error") {
  SUBCASE("unreadable") {
    std::vector<std::string> asked;
    auto facts = import_host_files({"gone.txt", kIbstat}, [&](const std::string& f) -> Result<std::string> {
      asked.push_back(f);
      return make_error(ErrorCode::kNotFound, "no such file", f);
    }, InputFormat::kAuto);
    REQUIRE_FALSE(facts.ok());
    CHECK(facts.error().source == "gone.txt");
    CHECK(asked == std::vector<std::string>{"gone.txt"});
  }
  SUBCASE("not in the forced format") {
    auto facts = import_host_files({kIbstat}, read_fixture, InputFormat::kLspci);
    REQUIRE_FALSE(facts.ok());
    CHECK(facts.error().code == ErrorCode::kParse);
  }
}

TEST_CASE("host_facts_data: the facts, plus every lspci listing for lspci input") {
  auto text = read_fixture(kLspci);
  REQUIRE(text.ok());
  auto facts = import_host_facts(*text, kLspci, InputFormat::kLspci);
  REQUIRE(facts.ok());
  nlohmann::json data = host_facts_data(*facts, *text, kLspci, InputFormat::kLspci);
  REQUIRE(data.contains("lspci"));
  REQUIRE(data["lspci"].is_array());
  CHECK_FALSE(data["lspci"].empty());
  nlohmann::json facts_json = *facts;
  for (const auto& [key, value] : facts_json.items()) CHECK(data[key] == value);

  auto ibstat = read_fixture(kIbstat);
  auto ib_facts = import_host_facts(*ibstat, kIbstat, InputFormat::kIbstat);
  REQUIRE(ib_facts.ok());
  nlohmann::json ib_data = host_facts_data(*ib_facts, *ibstat, kIbstat, InputFormat::kIbstat);
  CHECK_FALSE(ib_data.contains("lspci"));
  CHECK(ib_data == nlohmann::json(*ib_facts));
}

TEST_CASE("import_nvsmi_topo: report, rails and the rails findings of a saved matrix") {
  auto text = read_fixture("cases/011-topo-a100-2gpus-per-nic-sys-only-nics.input.txt");
  REQUIRE(text.ok());
  auto imp = import_nvsmi_topo(*text, "011.txt");
  REQUIRE(imp.ok());
  CHECK(imp->rails.gpus.size() == 8);
  CHECK(imp->rails.far_nics == std::vector<std::string>{"NIC3", "NIC4"});
  REQUIRE(imp->findings.size() == 5);
  CHECK(imp->findings[0].code == "nic_shared_by_gpus");
  CHECK(imp->findings[0].subject == "NIC1");
  auto no_matrix = import_nvsmi_topo("no matrix here\n", "notes.txt");
  REQUIRE_FALSE(no_matrix.ok());
  CHECK(no_matrix.error().code == ErrorCode::kParse);
}

TEST_CASE("nccl_tests_hosts: the hosts of the ranks, each once, in rank order") {
  auto text = read_fixture("nccl-tests/newer-allreduce-2node.txt");
  REQUIRE(text.ok());
  auto imp = baseline::parse_nccl_tests(*text, "newer.txt");
  REQUIRE(imp.ok());
  CHECK(baseline::nccl_tests_hosts(*imp) == std::vector<std::string>{"node01", "node02"});
  baseline::NcclTestsImport two_tables = *imp;
  two_tables.tables.push_back(imp->tables[0]);
  two_tables.tables[1].rank_hosts = {"node03", "", "node01"};
  CHECK(baseline::nccl_tests_hosts(two_tables) == std::vector<std::string>{"node01", "node02", "node03"});
  CHECK(baseline::nccl_tests_hosts(baseline::NcclTestsImport{}).empty());
}
