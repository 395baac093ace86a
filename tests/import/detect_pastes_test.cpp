// Format detection on real pastes (tests/fixtures/cases/w1*): the prefixes people's launchers
// and editors add (srun's "[0] ", a viewer's line numbers, a redacted pid), outputs cut above
// their headers (nccl-tests rows, a dcgmi diag table from a category row), nccl-tests before
// 2020 without its '#', and the kernel's "fallen off the bus" report without an Xid line.
#include <doctest/doctest.h>

#include "import/format_detect.h"
#include "import/syslog.h"
#include "tests/support/import_test_util.h"

using namespace fabdiag;
using namespace fabdiag::testing;

namespace {

ToolEvidence detect_case(const std::string& name) {
  return detect_tool_in_text(repo_text("tests/fixtures/cases/" + name));
}

}  // namespace

TEST_CASE("detect: a bracketed integer is a rank label or a line number, not a dmesg time") {
  CHECK_FALSE(log_line_time_s("[0] node01:13571:13571 [0] NCCL INFO Bootstrap : Using enp10s0").has_value());
  CHECK_FALSE(log_line_time_s("[80746] [rank0]:[E321 02:07:08.408271257 ProcessGroupNCCL.cpp:607] x").has_value());
  CHECK(*log_line_time_s("[ 1843.308145] NVRM: The NVIDIA GPU 0000:b3:00.0") == doctest::Approx(1843.308145));
}

TEST_CASE("detect: srun-labelled NCCL lines and line-numbered watchdog lines are their tools, not syslog") {
  auto s = detect_case("w111-nccl-log-srun-labels-socket-channels-two-nodes.input.txt");
  CHECK(s.tool == ToolText::kNcclLog);
  CHECK(s.line == 1);
  auto w = detect_case("w112-pytorch-watchdog-line-numbered-pg1-allreduce-seq1580.input.txt");
  CHECK(w.tool == ToolText::kPytorchWatchdog);
  CHECK(w.line == 1);
}

TEST_CASE("detect: a watchdog line inside a timestamped journal is a watchdog log, NCCL lines in most lines an NCCL log") {
  CHECK(detect_tool_in_text("Jan 10 12:00:01 node01 python[123]: [rank3]:[E110 12:00:01.1 ProcessGroupNCCL.cpp:616] "
                            "[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE, "
                            "Timeout(ms)=600000) ran for 600010 milliseconds before timing out.\n"
                            "Jan 10 12:00:02 node01 systemd[1]: job.service: Main process exited\n")
            .tool == ToolText::kPytorchWatchdog);
  CHECK(detect_tool_in_text("2024-01-10T12:00:01+00:00 node01:11:12 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB eth0:x<0>\n"
                            "2024-01-10T12:00:01+00:00 node01:11:12 [0] NCCL INFO Using network IB\n"
                            "2024-01-10T12:00:02+00:00 node01 kernel: mlx5_core 0000:17:00.0: link up\n")
            .tool == ToolText::kNcclLog);
  // A syslog whose few NCCL lines are quotes stays syslog.
  CHECK(detect_tool_in_text("Jan 10 12:00:01 node01 kernel: eth0: Link is Down\n"
                            "Jan 10 12:00:02 node01 kernel: eth0: Link is Up\n"
                            "Jan 10 12:00:03 node01 app[1]: node01:11:12 [0] NCCL INFO Using network IB\n")
            .tool == ToolText::kSyslog);
}

TEST_CASE("detect: nccl-tests before 2020 (no '#') and rows cut above their header with the summary") {
  auto old = detect_case("w120-nccltests-old-format-no-hash-allgather-4g-out-of-bounds-2-failed-topo.input.txt");
  CHECK(old.tool == ToolText::kNcclTests);
  CHECK(old.line == 3);  // the column header, before the topo matrix's "GPU0 ... CPU Affinity"
  auto cut = detect_case("w121-nccltests-cut-table-no-header-96gbps-healthy.input.txt");
  CHECK(cut.tool == ToolText::kNcclTests);
  CHECK(cut.line == 7);  // "# Out of bounds values : 0 OK"
  CHECK(marker_of_line("nThread 1 nGpus 8 minBytes 9 maxBytes 33554432 step: 1048576(bytes)") == ToolText::kNcclTests);
  CHECK(marker_of_line(" Avg bus bandwidth    : 128.942") == ToolText::kNcclTests);
  CHECK(marker_of_line("nThread is a word") == ToolText::kUnknown);
}

TEST_CASE("detect: a dcgmi diag table pasted from a category row is dcgmi, a plain ASCII border is nobody's") {
  auto d = detect_case("w122-dcgmi-diag-r2-pcie-fail-all-nvlink-down-warnings-wrapped-pcie-a100.input.txt");
  CHECK(d.tool == ToolText::kDcgmi);
  CHECK(d.line == 1);
  CHECK(marker_of_line("|-----  Metadata  ----------+------------------------------------------------|") == ToolText::kDcgmi);
  CHECK(marker_of_line("+---------------------------+------------------------------------------------+") == ToolText::kUnknown);
  CHECK(marker_of_line("+-----  9 items  ---+----+") == ToolText::kUnknown);
}

TEST_CASE("detect: the kernel's 'fallen off the bus' report marks an Xid log, single-line or multi-line") {
  CHECK(is_nvrm_gpu_lost_line("[ 34.19] NVRM: GPU 0000:01:00.0: GPU has fallen off the bus."));
  CHECK(is_nvrm_gpu_lost_line("               NVRM: fallen off the bus and is not responding to commands."));
  CHECK_FALSE(is_nvrm_gpu_lost_line("NVRM: Xid (PCI:0000:01:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."));
  CHECK_FALSE(is_nvrm_gpu_lost_line("my laptop's GPU has fallen off the bus again"));
  CHECK(detect_case("w127-dmesg-nvrm-gpu-fallen-off-bus-without-xid-line.input.txt").tool == ToolText::kNvrmXid);
}

TEST_CASE("detect: a RAS report with watchdog lines after it is a RAS report first (the watchdog is read too)") {
  auto r = detect_case("w118-nccl-ras-ok-while-pytorch-watchdog-times-out-rank118.input.txt");
  CHECK(r.tool == ToolText::kNcclRas);
}

TEST_CASE("detect: most lines 'hostA,hostB  GB/s' are a pairs list, a CSV of other things is not") {
  CHECK(detect_tool_in_text("node01,node02     49.36\nnode03,node04  88.36  # same leaf\n# round 2\n"
                            "gpu-a.dc1,gpu-b.dc1 12.5 Gb/s\n").tool == ToolText::kPairsList);
  CHECK(detect_tool_in_text("node01,node01 49.36\nnode02,node02 50\n").tool != ToolText::kPairsList);  // a host with itself
  CHECK(detect_tool_in_text("1,2 3\n4,5 6\n").tool != ToolText::kPairsList);            // numbers, no host names
  CHECK(detect_tool_in_text("a,b 1 apples\nc,d 2 pears\n").tool != ToolText::kPairsList);  // not a rate unit
  CHECK(detect_tool_in_text("node01,node02 49\nsome other text\nmore text\n").tool != ToolText::kPairsList);  // one line of three
}
