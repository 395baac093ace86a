// counters --from: saved tool outputs read, detected, imported, merged and filtered by --device.
#include <doctest/doctest.h>

#include <map>

#include "import/counter_files.h"
#include "tests/support/import_test_util.h"

using namespace fabdiag;
using namespace fabdiag::testing;

namespace {

constexpr const char* kCrcRising = "tests/fixtures/counters-faults/crc-rising.ethtool-s.txt";
constexpr const char* kPerfquery = "tests/fixtures/cases/017-perfquery-clean-xmitwait-only.input.txt";

// Reads repository files by their relative name; counts the reads.
struct RepoReader {
  int reads = 0;
  InputLineReader reader() {
    return line_reader_of([this](const std::string& name) -> Result<std::string> {
      ++reads;
      return repo_text(name);
    });
  }
};

bool has_device(const InterpretInput& in, const std::string& device) {
  for (const auto& p : in.ports)
    if (p.device == device) return true;
  return false;
}

}  // namespace

TEST_CASE("import_counter_files: each file detected, imported and described") {
  RepoReader repo;
  CounterFilesSpec spec;
  spec.files = {kCrcRising, kPerfquery};
  spec.interval_s = 60;
  auto r = import_counter_files(spec, repo.reader());
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? std::string() : r.error().to_string()));
  CHECK(repo.reads == 2);
  REQUIRE(r->files.size() == 2);
  CHECK(r->files[0]["file"] == kCrcRising);
  CHECK(r->files[0]["format"] == "ethtool-s");
  CHECK(r->files[0]["snapshots"] == 2);
  CHECK(r->files[1]["format"] == "perfquery");
  CHECK(has_device(r->input, "enp1s0f0"));
  REQUIRE(r->input.window_s.has_value());
  CHECK(*r->input.window_s == 60);
  const CounterChange* crc = change(r->input, "enp1s0f0", "rx_crc_errors_phy");
  REQUIRE(crc != nullptr);
  CHECK(*crc->delta == 40);
}

TEST_CASE("import_counter_files: --device keeps the ports, counters and modules it picks") {
  RepoReader repo;
  CounterFilesSpec spec;
  spec.files = {kCrcRising, kPerfquery};
  spec.devices = {"enp1s0f0"};
  auto r = import_counter_files(spec, repo.reader());
  REQUIRE(r.ok());
  REQUIRE(r->input.ports.size() == 1);
  CHECK(r->input.ports[0].device == "enp1s0f0");
  for (const auto& c : r->input.changes) CHECK(c.counter.device == "enp1s0f0");
  CHECK_FALSE(r->input.changes.empty());
}

TEST_CASE("import_counter_files: --interval without two snapshots is noted, not applied") {
  RepoReader repo;
  CounterFilesSpec spec;
  spec.files = {kPerfquery};
  spec.interval_s = 30;
  auto r = import_counter_files(spec, repo.reader());
  REQUIRE(r.ok());
  bool noted = false;
  for (const auto& n : r->notes) noted = noted || n.find("--interval is ignored") != std::string::npos;
  CHECK(noted);
}

TEST_CASE("import_counter_files: errors name the file or the device") {
  SUBCASE("the reader's error is passed on and stops at that file") {
    int reads = 0;
    CounterFilesSpec spec;
    spec.files = {"missing.txt", kCrcRising};
    auto r = import_counter_files(spec, line_reader_of([&](const std::string& name) -> Result<std::string> {
      ++reads;
      return make_error(ErrorCode::kNotFound, "no such file", name);
    }));
    REQUIRE_FALSE(r.ok());
    CHECK(reads == 1);
    CHECK(r.error().code == ErrorCode::kNotFound);
    CHECK(r.error().source == "missing.txt");
  }
  SUBCASE("text no importer recognizes") {
    CounterFilesSpec spec;
    spec.files = {"notes.txt"};
    auto r = import_counter_files(spec, line_reader_of([](const std::string&) -> Result<std::string> {
      return std::string("just some words\nand more words\n");
    }));
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::kInvalidArgument);
    CHECK(r.error().source == "notes.txt");
    CHECK(r.error().message.find("cannot tell which tool wrote this") == 0);
  }
  SUBCASE("a forced format skips detection") {
    RepoReader repo;
    CounterFilesSpec spec;
    spec.files = {kCrcRising};
    spec.format = CounterImportFormat::kEthtoolS;
    auto r = import_counter_files(spec, repo.reader());
    REQUIRE(r.ok());
    CHECK(r->files[0]["format"] == "ethtool-s");
  }
  SUBCASE("a device no file holds") {
    RepoReader repo;
    CounterFilesSpec spec;
    spec.files = {kCrcRising};
    spec.devices = {"enp1s0f0", "mlx5_7"};
    auto r = import_counter_files(spec, repo.reader());
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::kNotFound);
    CHECK(r.error().to_string() == "no device named \"mlx5_7\" in the imported files");
  }
}
