#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <map>

#include <nlohmann/json.hpp>

#include "baseline/store.h"
#include "core/atomic_file.h"
#include "tests/support/skip.h"
#include "tests/support/temp_tree.h"

using namespace fabdiag;
using namespace fabdiag::baseline;
namespace fs = std::filesystem;

namespace {

std::string bench_doc(double busbw = 10e9, const std::string& schema = "fabdiag.bench/1") {
  nlohmann::json j = {{"schema", schema},
                      {"tool_version", "0.1.0"},
                      {"hosts", {"node01", "node02"}},
                      {"started_at", "2026-11-29T02:00:00Z"},
                      {"duration_s", 12.5},
                      {"params", nlohmann::json::object()},
                      {"data",
                       {{"collective", "all_reduce"},
                        {"backend", "mpi"},
                        {"dtype", "float"},
                        {"ranks", 2},
                        {"hosts", {"node01", "node02"}},
                        {"results",
                         {{{"size_bytes", 1048576}, {"busbw_bytes_per_s", busbw}},
                          {{"size_bytes", 4096}, {"busbw_bytes_per_s", busbw / 4}}}}}},
                      {"findings", nlohmann::json::array()},
                      {"errors", nlohmann::json::array()},
                      {"custom_key", 42}};
  return j.dump(2);
}

MapEnvironment env_of(std::map<std::string, std::string> vars) { return MapEnvironment(std::move(vars)); }

}  // namespace

TEST_CASE("store directory: --store, then FABDIAG_BASELINE_DIR, XDG_DATA_HOME, HOME") {
  CHECK(*resolve_store_dir("/x", env_of({{"FABDIAG_BASELINE_DIR", "/b"}})) == "/x");
  CHECK(*resolve_store_dir("", env_of({{"FABDIAG_BASELINE_DIR", "/b"}, {"XDG_DATA_HOME", "/d"}})) == "/b");
  CHECK(*resolve_store_dir("", env_of({{"FABDIAG_BASELINE_DIR", ""}, {"XDG_DATA_HOME", "/d"}, {"HOME", "/h"}})) ==
        "/d/fabdiag/baselines");
  CHECK(*resolve_store_dir("", env_of({{"XDG_DATA_HOME", ""}, {"HOME", "/h"}})) == "/h/.local/share/fabdiag/baselines");
  auto none = resolve_store_dir("", env_of({}));
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().code == ErrorCode::kNotFound);
  CHECK(none.error().message.find("--store") != std::string::npos);
}

TEST_CASE("baseline names: allowed set, no traversal, no hidden files") {
  for (const char* good : {"nightly", "nightly-2026-11-30", "a.b_c-D9", "x"}) CHECK_MESSAGE(validate_baseline_name(good).ok(), good);
  for (const char* bad : {"", ".", "..", "../etc/passwd", "a/b", ".hidden", "has space", "nightly.json", "tab\t",
                          "ümlaut", "semi;colon"}) {
    auto st = validate_baseline_name(bad);
    CHECK_MESSAGE(!st.ok(), bad);
    if (!st.ok()) CHECK(st.error().code == ErrorCode::kInvalidArgument);
  }
  CHECK_FALSE(validate_baseline_name(std::string(129, 'a')).ok());
  // A huge name is echoed cut to 80 characters, not whole.
  auto huge = validate_baseline_name(std::string(100000, 'a'));
  REQUIRE_FALSE(huge.ok());
  CHECK(huge.error().message.find(std::string(80, 'a') + "...'") != std::string::npos);
  CHECK(huge.error().message.size() < 300);
  CHECK(validate_baseline_name(std::string(128, 'a')).ok());
}

TEST_CASE("a refused baseline name is named with its control characters escaped") {
  auto esc = validate_baseline_name("\x1b[31mred");
  REQUIRE_FALSE(esc.ok());
  CHECK(esc.error().message.find("invalid baseline name '\\x1b[31mred'") == 0);
  CHECK(esc.error().message.find('\x1b') == std::string::npos);  // no raw escape sequence reaches a terminal
  auto nul = validate_baseline_name(std::string("ni\0ghtly", 8));
  REQUIRE_FALSE(nul.ok());
  CHECK(nul.error().message.find("'ni\\x00ghtly'") != std::string::npos);
  CHECK(nul.error().message.find("it contains a character outside the allowed set") != std::string::npos);
}

TEST_CASE("save writes NAME.json atomically, keeps the document, adds the baseline record") {
  testing::TempTree tmp("store-test");
  BaselineStore store(tmp.str("store/nested"));  // created on first save
  auto info = store.save("nightly", bench_doc(), "/data/run.json", false, "2026-11-30T08:00:00Z");
  REQUIRE_MESSAGE(info.ok(), (info.ok() ? "" : info.error().to_string()));
  CHECK(info->path == tmp.str("store/nested/nightly.json"));
  CHECK(info->schema == "fabdiag.bench/1");
  CHECK(info->hosts.size() == 2);
  CHECK(info->collectives == std::vector<std::string>{"all_reduce"});
  CHECK(info->sizes_bytes == std::vector<uint64_t>{4096, 1048576});
  CHECK(info->saved_at == "2026-11-30T08:00:00Z");

  // Only the final files are left (the run and its history): no temporary files next to them.
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(tmp.str("store/nested"))) {
    CHECK((e.path().filename() == "nightly.json" || e.path().filename() == "nightly.history"));
    ++files;
  }
  CHECK(files == 2);

  auto text = read_file(info->path);
  REQUIRE(text.ok());
  auto j = nlohmann::json::parse(*text);
  CHECK(j["custom_key"] == 42);  // unknown keys survive
  CHECK(j["baseline"]["name"] == "nightly");
  CHECK(j["baseline"]["source"] == "/data/run.json");
  CHECK(j["started_at"] == "2026-11-29T02:00:00Z");

  auto loaded = store.load("nightly");
  REQUIRE(loaded.ok());
  CHECK(loaded->envelope.schema == "fabdiag.bench/1");
  REQUIRE(loaded->measurements.collectives.size() == 2);
  CHECK(loaded->measurements.collectives[0].busbw_bytes_per_s == 10e9);
  CHECK(loaded->info.saved_at == "2026-11-30T08:00:00Z");
}

TEST_CASE("save refuses to overwrite without force and replaces with it") {
  testing::TempTree tmp("store-test");
  BaselineStore store(tmp.str());
  REQUIRE(store.save("n1", bench_doc(10e9), "a.json", false).ok());
  auto again = store.save("n1", bench_doc(20e9), "b.json", false);
  REQUIRE_FALSE(again.ok());
  CHECK(again.error().code == ErrorCode::kInvalidArgument);
  CHECK(again.error().message.find("--force") != std::string::npos);
  CHECK(again.error().source == tmp.str("n1.json"));
  CHECK(store.load("n1")->measurements.collectives[0].busbw_bytes_per_s == 10e9);  // untouched
  REQUIRE(store.save("n1", bench_doc(20e9), "b.json", true).ok());
  CHECK(store.load("n1")->measurements.collectives[0].busbw_bytes_per_s == 20e9);
}

TEST_CASE("save never writes through a symlink or onto a non-regular file in the store") {
  testing::TempTree tmp("store-symlink-test");
  BaselineStore store(tmp.str("store"));
  REQUIRE(store.save("good", bench_doc(), "a.json", false).ok());  // creates the store
  const std::string victim = tmp.str("victim.txt");
  {
    std::FILE* f = std::fopen(victim.c_str(), "w");
    REQUIRE(f != nullptr);
    std::fputs("root:x:0:0\n", f);
    std::fclose(f);
  }
  std::filesystem::create_symlink(victim, tmp.str("store/evil.json"));
  std::filesystem::create_symlink(tmp.str("nothere.txt"), tmp.str("store/dangling.json"));
  std::filesystem::create_directory(tmp.str("store/dir.json"));
  for (bool force : {false, true}) {
    CAPTURE(force);
    auto evil = store.save("evil", bench_doc(), "b.json", force);
    REQUIRE_FALSE(evil.ok());
    CHECK(evil.error().code == ErrorCode::kInvalidArgument);
    CHECK(evil.error().message.find("is a symlink") != std::string::npos);
    CHECK(evil.error().source == tmp.str("store/evil.json"));
    auto dangling = store.save("dangling", bench_doc(), "b.json", force);
    REQUIRE_FALSE(dangling.ok());
    CHECK(dangling.error().message.find("is a symlink") != std::string::npos);
    auto dir = store.save("dir", bench_doc(), "b.json", force);
    REQUIRE_FALSE(dir.ok());
    CHECK(dir.error().message.find("not a regular file") != std::string::npos);
  }
  auto text = read_file(victim);
  REQUIRE(text.ok());
  CHECK(*text == "root:x:0:0\n");                                        // untouched
  CHECK_FALSE(std::filesystem::exists(tmp.str("nothere.txt")));          // not created
  CHECK(std::filesystem::is_symlink(tmp.str("store/evil.json")));        // link itself kept
}

TEST_CASE("save rejects bad names and documents without writing anything") {
  testing::TempTree tmp("store-test");
  BaselineStore store(tmp.str("s"));
  CHECK(store.save("../escape", bench_doc(), "x", false).error().code == ErrorCode::kInvalidArgument);
  auto empty = store.save("n", "  \n", "empty.json", false);
  REQUIRE_FALSE(empty.ok());
  CHECK(empty.error().source == "empty.json");
  CHECK(empty.error().message.find("empty") != std::string::npos);
  std::string doc = bench_doc();
  auto truncated = store.save("n", doc.substr(0, doc.size() / 2), "cut.json", false);
  REQUIRE_FALSE(truncated.ok());
  CHECK(truncated.error().code == ErrorCode::kParse);
  CHECK(truncated.error().source == "cut.json");
  CHECK(truncated.error().message.find("truncated") != std::string::npos);
  auto not_json = store.save("n", "# nccl-tests output\n", "run.txt", false);
  REQUIRE_FALSE(not_json.ok());
  CHECK(not_json.error().message.find("not valid JSON") != std::string::npos);
  auto no_envelope = store.save("n", "{\"hello\": 1}", "h.json", false);
  REQUIRE_FALSE(no_envelope.ok());
  CHECK(no_envelope.error().message.find("not a fabdiag result") != std::string::npos);
  auto wrong_schema = store.save("n", bench_doc(1e9, "fabdiag.topo/1"), "topo.json", false);
  REQUIRE_FALSE(wrong_schema.ok());
  CHECK(wrong_schema.error().code == ErrorCode::kInvalidArgument);
  CHECK(wrong_schema.error().message.find("fabdiag.topo/1") != std::string::npos);
  auto no_results = store.save("n", R"({"schema": "fabdiag.bench/1", "data": {"collective": "all_reduce"}})",
                               "nr.json", false);
  REQUIRE_FALSE(no_results.ok());
  CHECK(no_results.error().message.find("results") != std::string::npos);
  CHECK_FALSE(fs::exists(tmp.str("s")));  // nothing was created
}

TEST_CASE("load names the missing or corrupt file") {
  testing::TempTree tmp("store-test");
  BaselineStore store(tmp.str());
  auto missing = store.load("nope");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == ErrorCode::kNotFound);
  CHECK(missing.error().source == tmp.str("nope.json"));
  CHECK(missing.error().message.find("baseline show") != std::string::npos);
  REQUIRE(write_file_atomic(tmp.str("broken.json"), bench_doc().substr(0, 100)).ok());
  auto broken = store.load("broken");
  REQUIRE_FALSE(broken.ok());
  CHECK(broken.error().code == ErrorCode::kParse);
  CHECK(broken.error().source == tmp.str("broken.json"));
}

TEST_CASE("list: sorted, corrupt files reported and skipped, temp files ignored") {
  testing::TempTree tmp("store-test");
  BaselineStore store(tmp.str());
  REQUIRE(store.save("zeta", bench_doc(), "z.json", false).ok());
  REQUIRE(store.save("alpha", bench_doc(), "a.json", false).ok());
  REQUIRE(write_file_atomic(tmp.str("corrupt.json"), "{\"schema\": ").ok());
  REQUIRE(write_file_atomic(tmp.str(".nightly.json.tmp.abc123"), "partial").ok());
  REQUIRE(write_file_atomic(tmp.str("README.txt"), "notes").ok());
  REQUIRE(write_file_atomic(tmp.str("bad name.json"), bench_doc()).ok());
  auto l = store.list();
  REQUIRE(l.ok());
  CHECK(l->store_exists);
  REQUIRE(l->baselines.size() == 2);
  CHECK(l->baselines[0].name == "alpha");
  CHECK(l->baselines[1].name == "zeta");
  REQUIRE(l->errors.size() == 2);
  CHECK(l->errors[0].source == tmp.str("bad name.json"));
  CHECK(l->errors[1].source == tmp.str("corrupt.json"));

  BaselineStore absent(tmp.str("does-not-exist"));
  auto none = absent.list();
  REQUIRE(none.ok());
  CHECK_FALSE(none->store_exists);
  CHECK(none->baselines.empty());
}

TEST_CASE("save into a store that cannot be created fails naming the directory") {
  testing::TempTree tmp("store-test");
  REQUIRE(write_file_atomic(tmp.str("plain-file"), "x").ok());
  BaselineStore store(tmp.str("plain-file/store"));  // a directory under a regular file
  auto r = store.save("n", bench_doc(), "x.json", false);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().source == tmp.str("plain-file/store"));
  CHECK(r.error().message.find("cannot create") != std::string::npos);
  // The path's fault, not the disk's: invalid_argument (exit 2), with strerror in the message.
  CHECK(r.error().code == ErrorCode::kInvalidArgument);
  CHECK(r.error().message.find("Not a directory") != std::string::npos);
  BaselineStore on_file(tmp.str("plain-file"));  // the store itself is a regular file
  auto f = on_file.save("n", bench_doc(), "x.json", false);
  REQUIRE_FALSE(f.ok());
  CHECK(f.error().code == ErrorCode::kInvalidArgument);
}

TEST_CASE("save into a read-only store fails with a permission error naming the file") {
  if (geteuid() == 0) FABDIAG_SKIP_TEST("running as root, which may write into a read-only directory");
  testing::TempTree tmp("store-test");
  fs::create_directory(tmp.str("ro"));
  fs::permissions(tmp.str("ro"), fs::perms::owner_read | fs::perms::owner_exec);
  BaselineStore store(tmp.str("ro"));
  auto r = store.save("n", bench_doc(), "x.json", false);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::kPermission);
  CHECK(r.error().source == tmp.str("ro/n.json"));
}

TEST_CASE("saving raw nccl-tests output points at the importer") {
  testing::TempTree tmp("store-test");
  BaselineStore store(tmp.str());
  auto r = store.save("n", "#  size count type redop time algbw busbw\n", "run.txt", false);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("fabdiag import nccl-tests") != std::string::npos);
}
