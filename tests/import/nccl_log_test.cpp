// NCCL_DEBUG log reader: the line parsers (prefix with tags, version, channel, device lists,
// completion errors), the per-host model, detection, and the findings of the four cases.
#include <doctest/doctest.h>

#include "import/format_detect.h"
#include "import/nccl_log.h"
#include "tests/support/import_test_util.h"

using namespace fabdiag;
using namespace fabdiag::testing;

namespace {

const Finding* find_code(const std::vector<Finding>& fs, const std::string& code) {
  for (const auto& f : fs)
    if (f.code == code) return &f;
  return nullptr;
}

NcclLogImport read_text(const std::string& text) {
  auto imp = import_nccl_log(text, "t.log");
  REQUIRE_MESSAGE(imp.ok(), (imp.ok() ? std::string() : imp.error().to_string()));
  return std::move(*imp);
}

const NcclHostLog& host(const NcclLogImport& imp, const std::string& name) {
  for (const auto& h : imp.hosts)
    if (h.host == name) return h;
  FAIL("no host " << name);
  return imp.hosts.front();
}

}  // namespace

TEST_CASE("nccl prefix: plain, mpirun-tagged, torchrun-tagged, hostless, not NCCL") {
  auto p = parse_nccl_prefix("node01:3048391:3048566 [0] NCCL INFO NET/Socket : Using [0]lo:127.0.0.1<0>");
  REQUIRE(p);
  CHECK(p->host == "node01");
  CHECK(p->pid == 3048391);
  CHECK(p->dev == 0);
  CHECK_FALSE(p->warn);
  CHECK(p->text == "NET/Socket : Using [0]lo:127.0.0.1<0>");

  auto t = parse_nccl_prefix("[1,3]<stdout>:gpu-a17:4242:4300 [3] NCCL WARN NET/IB : Got completion from peer x");
  REQUIRE(t);
  CHECK(t->host == "gpu-a17");
  CHECK(t->pid == 4242);
  CHECK(t->dev == 3);
  CHECK(t->warn);

  auto r = parse_nccl_prefix("[default5]:node7:11:12 [5] NCCL INFO Using network IB");
  REQUIRE(r);
  CHECK(r->host == "node7");
  CHECK(r->text == "Using network IB");

  auto h = parse_nccl_prefix("ibvwrap.cc: NCCL WARN Call to ibv_modify_qp failed with error Connection timed out");
  REQUIRE(h);
  CHECK(h->host.empty());
  CHECK_FALSE(h->pid);
  CHECK(h->warn);

  CHECK_FALSE(parse_nccl_prefix("# nThread 1 nGpus 1 minBytes 8"));
  CHECK_FALSE(parse_nccl_prefix("NCCL_IB_HCA=mlx5"));
}

TEST_CASE("nccl version line") {
  CHECK(parse_nccl_version("NCCL version 2.18.5+cuda12.2") == std::optional<std::string>("2.18.5+cuda12.2"));
  CHECK(parse_nccl_version("NCCL version 2.4.8+cuda10.1") == std::optional<std::string>("2.4.8+cuda10.1"));
  CHECK_FALSE(parse_nccl_version("NCCL version is unknown"));
}

TEST_CASE("nccl channel lines of 2.4, 2.7 and 2.12+") {
  auto c = parse_nccl_channel("Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/1/GDRDMA");
  REQUIRE(c);
  CHECK(c->from_rank == 0);
  CHECK(c->to_rank == 8);
  CHECK(c->network);
  CHECK(c->transport == "IB");
  CHECK(c->net_dev == 1);
  CHECK(c->gdr);

  auto p2p = parse_nccl_channel("Channel 01 : 0[1c000] -> 1[1d000] via P2P/IPC/read");
  REQUIRE(p2p);
  CHECK_FALSE(p2p->network);
  CHECK(p2p->transport == "P2P");
  CHECK(p2p->via == "P2P/IPC/read");

  auto ring = parse_nccl_channel("Ring 00 : 7 -> 8 [receive] via NET/Socket/0");
  REQUIRE(ring);
  CHECK(ring->transport == "Socket");
  CHECK_FALSE(ring->gdr);
  CHECK(ring->from_rank == 7);

  CHECK_FALSE(parse_nccl_channel("Channel 00/32 :    0   1   2   3"));  // a ring listing, no connection
}

TEST_CASE("nccl device lists: NET/IB with port and link, NET/Socket with address") {
  auto ib = parse_nccl_net_devices("[0]mlx5_0:1/RoCE [1]mlx5_1:1/IB [RO]; OOB primaryip:192.0.2.1<0>");
  REQUIRE(ib.size() == 2);
  CHECK(ib[0].name == "mlx5_0");
  CHECK(ib[0].port == 1);
  CHECK(ib[0].link == "RoCE");
  CHECK(ib[1].index == 1);
  CHECK(ib[1].link == "IB");
  auto so = parse_nccl_net_devices("[0]lo:127.0.0.1<0> [1]virbr0:<0>");
  REQUIRE(so.size() == 2);
  CHECK(so[0].name == "lo");
  CHECK(so[0].address == "127.0.0.1");
  CHECK(so[1].name == "virbr0");
  CHECK(so[1].address.empty());
}

TEST_CASE("nccl completion WARN: new and old forms, status meaning from rdma-core") {
  auto n = parse_nccl_wc_error(
      "NET/IB : Got completion from peer 10.0.0.2<39042> with status=12 opcode=0 len=0 vendor err 129 (Send) hca mlx5_3");
  REQUIRE(n);
  CHECK(n->status == 12);
  CHECK(n->vendor_err == 129);
  CHECK(n->hca == "mlx5_3");
  CHECK(std::string(wc_status_meaning(12)) == "transport retry counter exceeded");
  CHECK(std::string(wc_status_meaning(13)) == "RNR retry counter exceeded");
  CHECK(std::string(wc_status_meaning(4)) == "local protection error");
  CHECK(std::string(wc_status_meaning(99)).empty());
  auto o = parse_nccl_wc_error("NET/IB : Got completion with error 5, opcode 1, len 0, vendor err 249");
  REQUIRE(o);
  CHECK(o->status == 5);
  CHECK(o->opcode == 1);
  CHECK_FALSE(parse_nccl_wc_error("NET/IB : Using [0]mlx5_0:1/IB"));
}

TEST_CASE("nccl log: channels decide the transport, a completion error on 1 of 3 hosts is one node") {
  std::string log =
      "[1,0]<stdout>:n1:10:11 [0] NCCL INFO NCCL version 2.19.3+cuda12.3\n"
      "[1,0]<stdout>:n1:10:11 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB eth0:10.0.0.1<0>\n"
      "[1,0]<stdout>:n1:10:11 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n"
      "[1,0]<stdout>:n1:10:11 [0] NCCL INFO comm 0x1 rank 0 nranks 24 cudaDev 0 busId 1c000 - Init START\n"
      "[1,0]<stdout>:n1:10:11 [0] NCCL INFO Channel 00/0 : 16[0] -> 0[0] [receive] via NET/IB/1/GDRDMA\n"
      "[1,8]<stdout>:n2:20:21 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [receive] via NET/IB/0/GDRDMA\n"
      "[1,16]<stdout>:n3:30:31 [0] NCCL INFO NET/IB : No device found.\n"
      "[1,16]<stdout>:n3:30:31 [0] NCCL INFO Channel 00/0 : 8[0] -> 16[0] [receive] via NET/Socket/0\n"
      "[1,8]<stdout>:n2:20:21 [0] NCCL WARN NET/IB : Got completion from peer 10.0.0.3<5000> with status=12 "
      "opcode=0 len=0 vendor err 129 (Send) hca mlx5_0\n"
      "[1,8]<stdout>:n2:20:21 [0] NCCL INFO Channel 01/0 : 0[0] -> 8[0] [recei";  // cut last line
  auto imp = read_text(log);
  REQUIRE(imp.hosts.size() == 3);
  const auto& n1 = host(imp, "n1");
  CHECK(n1.version == "2.19.3+cuda12.3");
  CHECK(nccl_data_transport(n1) == "IB");
  CHECK(n1.gdr.at("mlx5_1").used_in_channels);
  CHECK(n1.ranks.at(10) == 0);
  CHECK(n1.bootstrap == "eth0:10.0.0.1<0>");
  CHECK(nccl_data_transport(host(imp, "n3")) == "Socket");
  CHECK(imp.warn_counts.at("completion_error") == 1);
  // GPUDirect RDMA as the channels ran it: n2 logged no HCA list, its channel still says GDRDMA.
  CHECK(nccl_gdr_mode(n1) == "GDRDMA");
  CHECK(nccl_gdr_mode(host(imp, "n2")) == "GDRDMA");
  CHECK(nccl_gdr_mode(host(imp, "n3")) == "not used");

  auto fs = nccl_log_findings(imp);
  const Finding* fb = find_code(fs, "nccl_socket_fallback");
  REQUIRE(fb);
  CHECK(fb->subject == "n3");
  CHECK(fb->message.find("1 of 3 hosts") != std::string::npos);
  const Finding* wc = find_code(fs, "nccl_ib_completion_error");
  REQUIRE(wc);
  CHECK(wc->subject == "n2 mlx5_0");
  CHECK(wc->message.find("RETRY_EXC_ERR: transport retry counter exceeded") != std::string::npos);
  CHECK(wc->message.find("one node") != std::string::npos);
  CHECK_FALSE(find_code(fs, "nccl_ib_disabled_by_env"));
  // The peer is named with the host whose bootstrap address it is (n3's is not logged here).
  CHECK(wc->message.find("peer 10.0.0.3") != std::string::npos);
  CHECK(wc->message.find("(n1)") == std::string::npos);
}

TEST_CASE("nccl log: the same WARN on 3 of 5 hosts reads as systemic") {
  std::string log;
  for (int i = 1; i <= 5; ++i)
    log += "h" + std::to_string(i) + ":1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE ; OOB eth0:<0>\n";
  for (int i = 1; i <= 3; ++i)
    log += "h" + std::to_string(i) + ":1:1 [0] NCCL WARN NET/IB : Got completion from peer p with status=13 opcode=0\n";
  auto fs = nccl_log_findings(read_text(log));
  const Finding* wc = find_code(fs, "nccl_ib_completion_error");
  REQUIRE(wc);
  CHECK(wc->message.find("3 of 5 hosts") != std::string::npos);
  CHECK(wc->message.find("systemic") != std::string::npos);
  CHECK(wc->message.find("RNR retry counter exceeded") != std::string::npos);
}

TEST_CASE("nccl log: GDR disabled for the GPU-NIC distance says so, enabled for another GPU wins") {
  auto imp = read_text(
      "a:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB eth0:<0>\n"
      "a:1:1 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for GPU 1c000 / HCA 0 (distance 6 > 5)\n"
      "a:1:1 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for GPU 1c000 / HCA 1 (distance 6 > 5)\n"
      "a:2:2 [1] NCCL INFO NET/IB : GPU Direct RDMA Enabled for GPU 1d000 / HCA 1 (distance 3 <= 5), read 1 mode Default\n");
  const auto& h = host(imp, "a");
  CHECK(h.gdr.at("mlx5_0").enabled == std::optional<bool>(false));
  CHECK(h.gdr.at("mlx5_0").distance == "distance 6 > 5");
  CHECK(h.gdr.at("mlx5_1").enabled == std::optional<bool>(true));
  CHECK(h.gdr.at("mlx5_1").read);
  auto fs = nccl_log_findings(imp);
  const Finding* f = find_code(fs, "nccl_gdr_disabled");
  REQUIRE(f);
  CHECK(f->subject == "a: mlx5_0 (distance 6 > 5: NCCL_NET_GDR_LEVEL)");
}

TEST_CASE("nccl log: not an NCCL log is refused naming the first line") {
  auto imp = import_nccl_log(std::string_view("hello\nworld\n"), "x.txt");
  REQUIRE_FALSE(imp.ok());
  CHECK(imp.error().code == ErrorCode::kParse);
  CHECK(imp.error().source == "x.txt:1");
}

TEST_CASE("nccl log cases: detected as NCCL logs, and the verdicts of the expect files") {
  const char* cases[] = {"003-nccl-debug-socket-on-lo-ib-disabled", "005-nccl-debug-socket-bootstrap-ib-used",
                         "006-nccl-debug-roce-gdr-disabled",
                         "046-nccl-warn-roce-gid-index-link-local-ibv-modify-qp-timeout"};
  std::map<std::string, std::vector<Finding>> found;
  for (const char* c : cases) {
    std::string rel = std::string("tests/fixtures/cases/") + c + ".input.txt";
    std::string text = repo_text(rel);
    CHECK_MESSAGE(detect_tool_in_text(text).tool == ToolText::kNcclLog, c);
    auto imp = import_nccl_log(text, rel);
    REQUIRE(imp.ok());
    found[c] = nccl_log_findings(*imp);
  }
  // 003: IB off by environment, the socket on loopback (critical); no GDR fault for sockets.
  const auto& f003 = found["003-nccl-debug-socket-on-lo-ib-disabled"];
  REQUIRE(find_code(f003, "nccl_socket_loopback"));
  CHECK(find_code(f003, "nccl_socket_loopback")->severity == Severity::kCritical);
  CHECK(find_code(f003, "nccl_ib_disabled_by_env"));
  CHECK_FALSE(find_code(f003, "nccl_socket_fallback"));
  CHECK_FALSE(find_code(f003, "nccl_gdr_disabled"));
  // 005: NET/IB used on both nodes; the Socket lines are bootstrap.
  const auto& f005 = found["005-nccl-debug-socket-bootstrap-ib-used"];
  for (const auto& f : f005) CHECK_MESSAGE(f.severity == Severity::kInfo, f.code);
  // 006: GDR disabled on both HCAs, no fallback, NCCL_IB_DISABLE=0 is not "disabled".
  const auto& f006 = found["006-nccl-debug-roce-gdr-disabled"];
  REQUIRE(find_code(f006, "nccl_gdr_disabled"));
  CHECK(find_code(f006, "nccl_gdr_disabled")->subject == "node01: mlx5_0, mlx5_1");
  CHECK_FALSE(find_code(f006, "nccl_ib_disabled_by_env"));
  CHECK_FALSE(find_code(f006, "nccl_transport_socket"));
  // 046: modify_qp error and the GID advice (index 3).
  const auto& f046 = found["046-nccl-warn-roce-gid-index-link-local-ibv-modify-qp-timeout"];
  REQUIRE(find_code(f046, "nccl_ibv_modify_qp_failed"));
  CHECK(find_code(f046, "nccl_ibv_modify_qp_failed")->severity == Severity::kError);
  REQUIRE(find_code(f046, "nccl_roce_gid_choice"));
  CHECK(find_code(f046, "nccl_roce_gid_choice")->severity == Severity::kWarn);
  CHECK(find_code(f046, "nccl_roce_gid_choice")->action.find("NCCL_IB_GID_INDEX=3") != std::string::npos);
}

TEST_CASE("nccl prefix: a source position before NCCL WARN keeps the host, pid and device") {
  auto p = parse_nccl_prefix(
      "node01:1234:1260 [0] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<42> "
      "with status=12 opcode=0 len=0 vendor err 129 (Send) localGid ::ffff:10.0.0.1");
  REQUIRE(p);
  CHECK(p->host == "node01");
  CHECK(p->pid == 1234);
  CHECK(p->dev == 0);
  CHECK(p->warn);
  CHECK(p->text.find("NET/IB : Got completion") == 0);
  for (const char* pos : {"misc/ibvwrap.cc:263", "include/socket.h:520", "proxy.cc:1472"}) {
    auto q = parse_nccl_prefix(std::string("[1,0]<stdout>:gpu-7:55:66 [3] ") + pos + " NCCL WARN Call to ibv_modify_qp failed");
    REQUIRE(q);
    CHECK_MESSAGE(q->host == "gpu-7", pos);
    CHECK_MESSAGE(q->dev == 3, pos);
  }
  auto imp = read_text(
      "node01:1234:1260 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB eth0:10.0.0.1<0>\n"
      "node01:1234:1260 [0] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<42> "
      "with status=12 opcode=0 len=0 vendor err 129 (Send)\n");
  REQUIRE(imp.hosts.size() == 1);
  CHECK(imp.hosts[0].host == "node01");
  CHECK(imp.hosts[0].warns == 1);
}

TEST_CASE("nccl log: WARNs of one node with and without host are 1 of 2 hosts, not systemic") {
  auto imp = read_text(
      "node01:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB eth0:<0>\n"
      "node02:2:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB eth0:<0>\n"
      "node01:1:1 [0] NCCL WARN NET/IB : Got completion from peer p with status=12 opcode=0\n"
      "ibvwrap.cc: NCCL WARN NET/IB : Got completion from peer p with status=12 opcode=0\n");
  auto fs = nccl_log_findings(imp);
  const Finding* wc = find_code(fs, "nccl_ib_completion_error");
  REQUIRE(wc);
  CHECK(wc->message.find("1 of 2 hosts") != std::string::npos);
  CHECK(wc->message.find("(node01)") != std::string::npos);
  CHECK(wc->message.find("one node") != std::string::npos);
  CHECK(wc->message.find("systemic") == std::string::npos);
}

TEST_CASE("nccl log: an NCCL-looking line inside other output, or one with a NUL, is no NCCL log") {
  auto e = import_nccl_log(std::string_view("NIC statistics:\n     rx_packets: 10\n     foo NCCL INFO bar\n"), "e.txt");
  REQUIRE_FALSE(e.ok());
  CHECK(e.error().code == ErrorCode::kParse);
  CHECK(e.error().source == "e.txt:1");
  CHECK(e.error().message.find("host:pid:tid [dev] NCCL INFO") != std::string::npos);
  std::string nul = "node01:1:1 [0] NCCL INFO Using network IB";
  nul[5] = '\0';
  auto n = import_nccl_log(std::string_view(nul + "\nhello\n"), "n.bin");
  REQUIRE_FALSE(n.ok());
  CHECK(n.error().code == ErrorCode::kParse);
  // The version banner alone is evidence.
  CHECK(import_nccl_log(std::string_view("NCCL version 2.18.5+cuda12.2\n"), "v.txt").ok());
}

TEST_CASE("nccl log: a last line cut without its newline is a gap naming file:line, not data") {
  auto imp = read_text(
      "node01:1:1 [0] NCCL INFO Using network IB\n"
      "node01:1:1 [0] NCC");
  REQUIRE(imp.hosts.size() == 1);
  REQUIRE(imp.gaps.size() == 1);
  CHECK(imp.gaps[0].source == "t.log:2");
  CHECK(imp.gaps[0].message.find("without a newline") != std::string::npos);
  CHECK(imp.gaps[0].message.find("node01:1:1 [0] NCC") != std::string::npos);
  auto whole = read_text("node01:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB\n");
  CHECK(whole.gaps.empty());
  CHECK(whole.hosts[0].ib_devices.size() == 1);
}

TEST_CASE("nccl log: a whole last line without its newline is read, and alone it is evidence") {
  auto imp = read_text(
      "node01:1:1 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
      "node01:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB");
  CHECK(imp.gaps.empty());
  REQUIRE(imp.hosts.size() == 1);
  CHECK(imp.hosts[0].ib_devices.size() == 1);
  auto one = import_nccl_log(std::string_view("node01:1:1 [0] NCCL INFO NCCL version 2.21.5+cuda12.4"), "one.log");
  REQUIRE_MESSAGE(one.ok(), (one.ok() ? std::string() : one.error().to_string()));
  CHECK(one->gaps.empty());
}

TEST_CASE("nccl log: past 65536 distinct hosts the rest are pooled and the gap says so") {
  std::string text;
  for (int i = 0; i < 65540; ++i)
    text += "h" + std::to_string(i) + ":1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.1<0>\n";
  auto imp = import_nccl_log(text, "big.log");
  REQUIRE(imp.ok());
  CHECK(imp->hosts.size() == 65537);
  CHECK(imp->hosts.back().host == "(hosts past 65536)");
  REQUIRE(imp->gaps.size() == 1);
  CHECK(imp->gaps[0].message.find("more than 65536 distinct hosts") != std::string::npos);
  CHECK(imp->gaps[0].source == "big.log:65537");
}

TEST_CASE("nccl log: a GID table entry with non-hex digits is kept as text, not an IPv4 address nor a crash") {
  // The fuzzer's crash of 2026-12 (std::stoul threw on "zz00"): the same line with valid digits
  // beside it reads as 192.0.2.6.
  auto imp = read_text(
      "gpu-node01:1:1 [0] NCCL INFO NCCL version 2.18.3+cuda12.2\n"
      "hca_id:\tmlx5_0\n"
      "\tGID[  3]:\t\t0000:0000:0000:0000:0000:ffff:zz00:0206, RoCE v2\n"
      "\tGID[  4]:\t\t0000:0000:0000:0000:0000:ffff:c000:0206, RoCE v2\n");
  REQUIRE(imp.gids.size() == 2);
  CHECK(imp.gids[0].index == 3);
  CHECK(imp.gids[0].gid == "0000:0000:0000:0000:0000:ffff:zz00:0206");
  CHECK(imp.gids[0].ipv4.empty());
  CHECK(imp.gids[1].ipv4 == "192.0.2.6");
  CHECK(imp.gids[1].version == "v2");
}

TEST_CASE("nccl log: GPUDirect RDMA disabled by NCCL, and a single host with P2P only, as gdr modes") {
  auto imp = read_text(
      "n1:10:11 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB eth0:10.0.0.1<0>\n"
      "n1:10:11 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'\n"
      "n1:10:11 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0\n"
      "n2:20:21 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n");
  CHECK(nccl_gdr_mode(host(imp, "n1")) == "disabled");
  CHECK(nccl_gdr_mode(host(imp, "n2")).empty());
}

TEST_CASE("nccl prefix: ids a paste redacted, a redacted host, srun's [N] label, a date before mpirun's tag") {
  auto x = parse_nccl_prefix(
      "[2026-03-13 22:26:02] node01.example.com:XXXXXX [5] ibvwrap.c:262 NCCL WARN Call to ibv_modify_qp failed with 110");
  REQUIRE(x);
  CHECK(x->host == "node01.example.com");
  CHECK_FALSE(x->pid);
  CHECK(x->redacted_pid);
  CHECK(x->dev == 5);
  CHECK(x->warn);

  auto c = parse_nccl_prefix("<cluster_name>:922:1149 [3] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed");
  REQUIRE(c);
  CHECK(c->host == "<cluster_name>");
  CHECK(c->pid == 922);
  CHECK(c->dev == 3);

  auto s = parse_nccl_prefix("[1] node02:22555:22555 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [receive] via NET/Socket/0");
  REQUIRE(s);
  CHECK(s->host == "node02");
  CHECK(s->pid == 22555);
  CHECK(s->dev == 0);

  auto d = parse_nccl_prefix("Fri Aug 11 12:31:45 2023[1,3]<stdout>:node01:1850304:1881110 [3] transport.cc:154 NCCL WARN Cuda failure 'invalid argument'");
  REQUIRE(d);
  CHECK(d->host == "node01");
  CHECK(d->pid == 1850304);

  // "host:pid" alone is a prefix only before the [dev] bracket; "a:b NCCL INFO" in prose is not one.
  auto prose = parse_nccl_prefix("note:1 NCCL INFO was set");
  REQUIRE(prose);
  CHECK(prose->host.empty());
}

TEST_CASE("nccl log w103: a one-line WARN with a redacted pid is read: ibv_modify_qp INIT->RTR timed out") {
  auto imp = read_text(repo_text("tests/fixtures/cases/w103-nccl-warn-ibv-modify-qp-110-init-rtr-timestamp-anonymised-pid.input.txt"));
  REQUIRE(imp.hosts.size() == 1);
  CHECK(imp.hosts[0].host == "node01.example.com");
  CHECK(imp.hosts[0].warns == 1);
  auto fs = nccl_log_findings(imp);
  const Finding* q = find_code(fs, "nccl_ibv_modify_qp_failed");
  REQUIRE(q);
  CHECK(q->severity == Severity::kError);
}

TEST_CASE("nccl log w106: a redacted host's Socket channels and its closed connection") {
  auto imp = read_text(repo_text("tests/fixtures/cases/w106-nccl-log-ibext-no-device-socket-channels-connection-closed-redacted-host.input.txt"));
  const NcclHostLog& h = host(imp, "<cluster_name>");
  CHECK(nccl_data_transport(h) == "Socket");
  CHECK(h.net_channels.at("Socket") == 4);
  CHECK(h.local_channels.at("P2P/IPC/read") == 3);
  CHECK(h.warns == 3);
  auto fs = nccl_log_findings(imp);
  CHECK(find_code(fs, "nccl_transport_socket"));
  CHECK(find_code(fs, "nccl_connection_closed"));
}

TEST_CASE("nccl log w107: NCCL 2.3's one-line-per-HCA list and 'Using internal Network IB' give the IB transport") {
  auto imp = read_text(repo_text("tests/fixtures/cases/w107-nccl-log-2.3.7-net-ib-four-hcas-sideband-healthy.input.txt"));
  const NcclHostLog& h = host(imp, "node01");
  REQUIRE(h.ib_devices.size() == 4);
  CHECK(h.ib_devices[0].name == "mlx5_1");
  CHECK(h.ib_devices[0].port == 1);
  CHECK(h.ib_devices[0].link == "IB");
  CHECK(h.ib_devices[3].name == "mlx5_2");
  CHECK(h.network == "IB");
  CHECK(h.bootstrap == "enp1s0f0");
  CHECK(nccl_data_transport(h) == "IB");
  CHECK(h.processes.size() == 3);
  for (const auto& f : nccl_log_findings(imp)) CHECK(f.severity < Severity::kWarn);
}

TEST_CASE("nccl log: 2.27's 'Bootstrap: Using' and 'NET/Plugin: Could not find' forms") {
  auto imp = read_text(
      "cl4:1134070:1134070 [0] NCCL INFO Bootstrap: Using enp9s0np0:192.0.2.2<0>\n"
      "cl4:67905:67916 [0] NCCL INFO NET/Plugin: Could not find: libnccl-net.so.\n");
  const NcclHostLog& h = host(imp, "cl4");
  CHECK(h.bootstrap == "enp9s0np0:192.0.2.2<0>");
  CHECK(h.plugin == "none");
}
