// Every streaming reader reports the lines cut at 4 MiB (core/line_source.h) as a gap: a
// runaway line in a pasted log is never dropped in silence.
#include <doctest/doctest.h>

#include "core/line_source.h"
#include "import/counter_formats.h"
#include "import/host_formats.h"
#include "import/nccl_log.h"
#include "import/nccl_tests.h"

namespace fabdiag {
namespace {

const std::string kHuge(size_t{5} << 20, 'x');  // one 5 MiB line

bool says_cut(const std::vector<Error>& gaps) {
  for (const auto& e : gaps)
    if (e.message.find("1 line(s) longer than 4 MiB were cut") != std::string::npos && e.source == "in.txt") return true;
  return false;
}

TEST_CASE("a line past 4 MiB is a gap in the NCCL log, host facts, nccl-tests and counter readers") {
  {
    auto imp = import_nccl_log("node01:1:1 [0] NCCL INFO NCCL version 2.18.1+cuda12.1\n" + kHuge + "\n", "in.txt");
    REQUIRE(imp.ok());
    CHECK(says_cut(imp->gaps));
  }
  {
    auto facts = import_host_facts("CA 'mlx5_0'\n\tCA type: MT4129\n\tNumber of ports: 1\n\tPort 1:\n\t\tState: Active\n"
                                   "\t\tPhysical state: LinkUp\n\t\tRate: 400\n\t\tLink layer: InfiniBand\n" +
                                       kHuge + "\n",
                                   "in.txt", InputFormat::kIbstat);
    REQUIRE(facts.ok());
    CHECK(says_cut(facts->gaps));
  }
  {
    auto imp = baseline::parse_nccl_tests(
        "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
        "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n"
        "        1024           256     float     sum      -1    20.00    0.05    0.10      0    20.00    0.05    0.10      0\n" +
            kHuge + "\n",
        "in.txt", "all_reduce");
    REQUIRE(imp.ok());
    CHECK(says_cut(imp->gaps));
  }
  {
    auto imp = import_counters(CounterImportFormat::kEthtoolS, "NIC statistics:\n     rx_packets: 10\n" + kHuge + "\n",
                               "in.txt", "eth0");
    REQUIRE(imp.ok());
    CHECK(says_cut(imp->gaps));
  }
}

TEST_CASE("no cut line, no cut gap") {
  auto imp = import_nccl_log(std::string_view("node01:1:1 [0] NCCL INFO NCCL version 2.18.1+cuda12.1\n"), "in.txt");
  REQUIRE(imp.ok());
  CHECK_FALSE(says_cut(imp->gaps));
}

}  // namespace
}  // namespace fabdiag
