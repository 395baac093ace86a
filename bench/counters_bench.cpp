// Benchmark (not a test): a full counter snapshot of a fixture node with 8 RDMA NICs, timed against
// the targets of docs/ARCHITECTURE.md#performance-targets ("a full snapshot of a node with 8 RDMA
// NICs (fixture) in under 20 ms; resident memory under 64 MiB"). Run it through
// scripts/bench-counters.sh.
//
// The fixture is generated here (deterministic): per NIC an mlx5 PCI function with
// class/infiniband/mlx5_N/ports/1/{counters,hw_counters}, its netdev with statistics/ and
// carrier counters, and an `ethtool -S` capture under <root>/ethtool/<netdev> with the port
// counters of mlx5e plus per-channel ring counters. It lives on a normal file system: a live
// /sys read of IB counters also costs a PMA MAD per file, which no fixture can show.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/fs_root.h"
#include "rules/counter_interpret.h"
#include "probes/ethtool/ethtool_ioctl.h"
#include "probes/ethtool/ethtool_link.h"
#include "probes/counters/sysfs_counters.h"

namespace fs = std::filesystem;
using namespace fabdiag;

namespace {

constexpr double kTargetSnapshotMs = 20.0;  // docs/ARCHITECTURE.md#performance-targets
constexpr double kTargetRssMib = 64.0;

void put(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text << "\n";
}
void link(const fs::path& p, const std::string& target) {
  fs::create_directories(p.parent_path());
  fs::create_symlink(target, p);
}

const char* const kPortCounters[] = {
    "symbol_error", "link_error_recovery", "link_downed", "port_rcv_errors",
    "port_rcv_remote_physical_errors", "port_rcv_switch_relay_errors", "port_xmit_discards",
    "port_xmit_constraint_errors", "port_rcv_constraint_errors", "local_link_integrity_errors",
    "excessive_buffer_overrun_errors", "VL15_dropped", "port_xmit_wait", "port_xmit_data",
    "port_rcv_data", "port_xmit_packets", "port_rcv_packets", "unicast_xmit_packets",
    "unicast_rcv_packets", "multicast_xmit_packets", "multicast_rcv_packets"};
const char* const kHwCounters[] = {
    "rx_write_requests", "rx_read_requests", "rx_atomic_requests", "rx_dct_connect", "out_of_buffer",
    "out_of_sequence", "duplicate_request", "rnr_nak_retry_err", "packet_seq_err",
    "implied_nak_seq_err", "local_ack_timeout_err", "resp_local_length_error", "resp_cqe_error",
    "req_cqe_error", "req_remote_invalid_request", "req_remote_access_errors",
    "resp_remote_access_errors", "resp_cqe_flush_error", "req_cqe_flush_error",
    "req_transport_retries_exceeded", "req_rnr_retries_exceeded", "roce_adp_retrans",
    "roce_adp_retrans_to", "roce_slow_restart", "roce_slow_restart_cnps", "roce_slow_restart_trans",
    "rp_cnp_ignored", "rp_cnp_handled", "np_ecn_marked_roce_packets", "np_cnp_sent",
    "rx_icrc_encapsulated"};
const char* const kNetdevStats[] = {
    "rx_packets", "tx_packets", "rx_bytes", "tx_bytes", "rx_errors", "tx_errors", "rx_dropped",
    "tx_dropped", "multicast", "collisions", "rx_length_errors", "rx_over_errors", "rx_crc_errors",
    "rx_frame_errors", "rx_fifo_errors", "rx_missed_errors", "tx_aborted_errors",
    "tx_carrier_errors", "tx_fifo_errors", "tx_heartbeat_errors", "tx_window_errors",
    "rx_compressed", "tx_compressed", "rx_nohandler"};

// The port-level part of an mlx5e `ethtool -S`, then per-channel ring counters.
std::string ethtool_text(int channels, uint64_t seed) {
  std::vector<std::string> names = {
      "rx_packets", "rx_bytes", "tx_packets", "tx_bytes", "tx_tso_packets", "tx_tso_bytes",
      "rx_csum_complete", "rx_csum_unnecessary", "rx_csum_none", "rx_xdp_drop", "rx_out_of_buffer",
      "tx_queue_stopped", "tx_queue_wake", "rx_wqe_err", "rx_buff_alloc_err", "rx_cqe_compress_pkts",
      "rx_vport_unicast_packets", "rx_vport_unicast_bytes", "tx_vport_unicast_packets",
      "tx_vport_unicast_bytes", "rx_vport_rdma_unicast_packets", "rx_vport_rdma_unicast_bytes",
      "tx_vport_rdma_unicast_packets", "tx_vport_rdma_unicast_bytes", "rx_packets_phy",
      "rx_bytes_phy", "tx_packets_phy", "tx_bytes_phy", "rx_crc_errors_phy",
      "rx_in_range_len_errors_phy", "rx_out_of_range_len_phy", "rx_oversize_pkts_phy",
      "rx_symbol_err_phy", "rx_unsupported_op_phy", "rx_discards_phy", "tx_discards_phy",
      "tx_errors_phy", "rx_undersize_pkts_phy", "rx_fragments_phy", "rx_jabbers_phy",
      "rx_pause_ctrl_phy", "tx_pause_ctrl_phy", "link_down_events_phy", "total_success_recovery_phy",
      "rx_pcs_symbol_err_phy", "rx_corrected_bits_phy", "rx_bits_phy", "rx_err_lane_0_phy",
      "rx_err_lane_1_phy", "rx_err_lane_2_phy", "rx_err_lane_3_phy", "rx_buffer_passed_thres_phy",
      "tx_pause_storm_warning_events", "tx_pause_storm_error_events", "module_unplug",
      "module_bus_stuck", "module_high_temp", "module_bad_shorted", "rx_pci_signal_integrity",
      "tx_pci_signal_integrity", "outbound_pci_buffer_overflow", "outbound_pci_stalled_rd",
      "outbound_pci_stalled_wr", "dev_out_of_buffer"};
  for (int p = 0; p < 8; ++p)
    for (const char* k : {"rx_prio%d_bytes", "rx_prio%d_packets", "tx_prio%d_bytes", "tx_prio%d_packets",
                          "rx_prio%d_pause", "rx_prio%d_pause_duration", "rx_prio%d_pause_transition",
                          "tx_prio%d_pause", "tx_prio%d_pause_duration", "rx_prio%d_discards",
                          "rx_prio%d_buf_discard", "rx_prio%d_cong_discard", "rx_prio%d_marked"}) {
      char buf[64];
      std::snprintf(buf, sizeof buf, k, p);
      names.push_back(buf);
    }
  for (int c = 0; c < channels; ++c) {
    for (const char* k : {"ch%d_events", "ch%d_poll", "ch%d_arm", "ch%d_aff_change", "ch%d_eq_rearm"}) {
      char buf[64];
      std::snprintf(buf, sizeof buf, k, c);
      names.push_back(buf);
    }
    for (const char* k : {"rx%d_packets", "rx%d_bytes", "rx%d_csum_complete", "rx%d_csum_unnecessary",
                          "rx%d_csum_none", "rx%d_xdp_drop", "rx%d_xdp_redirect", "rx%d_lro_packets",
                          "rx%d_lro_bytes", "rx%d_ecn_mark", "rx%d_removed_vlan_packets", "rx%d_wqe_err",
                          "rx%d_mpwqe_filler_cqes", "rx%d_buff_alloc_err", "rx%d_cqe_compress_blks",
                          "rx%d_cache_reuse", "rx%d_cache_full", "rx%d_congst_umr", "rx%d_arfs_err"}) {
      char buf[64];
      std::snprintf(buf, sizeof buf, k, c);
      names.push_back(buf);
    }
    for (const char* k : {"tx%d_packets", "tx%d_bytes", "tx%d_tso_packets", "tx%d_tso_bytes",
                          "tx%d_csum_partial", "tx%d_csum_none", "tx%d_stopped", "tx%d_dropped",
                          "tx%d_xmit_more", "tx%d_recover", "tx%d_cqes", "tx%d_wake", "tx%d_cqe_err"}) {
      char buf[64];
      std::snprintf(buf, sizeof buf, k, c);
      names.push_back(buf);
    }
  }
  std::string out = "NIC statistics:\n";
  uint64_t v = seed;
  for (const auto& n : names) {
    v = v * 6364136223846793005ull + 1442695040888963407ull;
    out += "     " + n + ": " + std::to_string((v >> 33) % 1000000000ull) + "\n";
  }
  return out;
}

// Writes the fixture node and returns the number of counter files written.
void make_node(const fs::path& root, int nics, int channels) {
  link(root / "bus/pci/drivers/mlx5_core/module", "../../../../module/mlx5_core");
  for (int i = 0; i < nics; ++i) {
    char bdf[32], ibdev[16], nd[32];
    std::snprintf(bdf, sizeof bdf, "0000:%02x:00.0", 0x17 + i * 0x10);
    std::snprintf(ibdev, sizeof ibdev, "mlx5_%d", i);
    std::snprintf(nd, sizeof nd, "ens%df0np0", i + 1);
    std::string dev = std::string("devices/pci0000:00/0000:00:0") + std::to_string(i % 8 + 1) + ".0/" + bdf;
    fs::path d = root / dev;
    link(d / "driver", "../../../../bus/pci/drivers/mlx5_core");
    put(d / "vendor", "0x15b3");
    put(d / "device", "0x101d");
    fs::path ib = d / "infiniband" / ibdev;
    link(ib / "device", "../../../" + std::string(bdf));
    link(root / "class/infiniband" / ibdev, "../../" + dev + "/infiniband/" + ibdev);
    fs::path port = ib / "ports/1";
    put(port / "state", "4: ACTIVE");
    put(port / "phys_state", "5: LinkUp");
    put(port / "rate", "400 Gb/sec (4X NDR)");
    put(port / "link_layer", "Ethernet");
    put(port / "hw_counters/lifespan", "10");
    uint64_t v = 1000 + i;
    for (const char* c : kPortCounters) put(port / "counters" / c, std::to_string(v++ * 7919));
    for (const char* c : kHwCounters) put(port / "hw_counters" / c, std::to_string(v++ % 97));
    fs::path net = d / "net" / nd;
    link(net / "device", "../../../" + std::string(bdf));
    link(root / "class/net" / nd, "../../" + dev + "/net/" + nd);
    put(net / "operstate", "up");
    put(net / "speed", "400000");
    put(net / "type", "1");
    put(net / "dev_port", "0");
    put(net / "carrier_changes", "2");
    put(net / "carrier_down_count", "1");
    put(net / "carrier_up_count", "1");
    for (const char* c : kNetdevStats) put(net / "statistics" / c, std::to_string(v++ * 31));
    put(root / "ethtool" / nd, ethtool_text(channels, static_cast<uint64_t>(i)));
  }
}

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  size_t idx = static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(idx, v.size() - 1)];
}

double peak_rss_mib() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;  // Linux: KiB
}

int usage() {
  std::fprintf(stderr,
               "usage: fabdiag_bench_counters [--nics N] [--channels C] [--iterations N] [--keep DIR]\n"
               "  --nics N        RDMA NICs in the generated node (default 8)\n"
               "  --channels C    ring channels per netdev in its ethtool -S (default 32)\n"
               "  --iterations N  snapshots to time (default 200)\n"
               "  --keep DIR      generate the node into DIR and keep it (default: a temporary directory)\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  int nics = 8, channels = 32, iterations = 200;
  std::string keep;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* v = nullptr;
    if (a == "--nics" && (v = next())) nics = std::atoi(v);
    else if (a == "--channels" && (v = next())) channels = std::atoi(v);
    else if (a == "--iterations" && (v = next())) iterations = std::atoi(v);
    else if (a == "--keep" && (v = next())) keep = v;
    else return usage();
  }
  if (nics < 1 || channels < 0 || iterations < 1) return usage();

  fs::path root;
  if (keep.empty()) {
    char tmpl[] = "/tmp/fabdiag-bench-counters-XXXXXX";
    const char* p = mkdtemp(tmpl);
    if (!p) {
      std::perror("mkdtemp");
      return 70;
    }
    root = p;
  } else {
    root = keep;
    fs::remove_all(root);
    fs::create_directories(root);
  }
  make_node(root, nics, channels);

  FsRoot fsr(root.string(), "/proc");
  FixtureEthtoolStatsSource ethtool(fsr);
  FixtureEthtoolLinkSource link(fsr);  // as `fabdiag counters` reads a fixture root
  CounterReadOptions opts;
  opts.ethtool = &ethtool;
  opts.link = &link;
  Snapshot warm = read_counter_snapshot(fsr, opts);  // first read: page cache, knowledge base
  size_t counters = warm.samples.size();
  size_t failures = 0;
  for (const auto& g : warm.gaps) failures += is_failure(g);

  std::vector<double> snap_ms, interp_ms;
  for (int i = 0; i < iterations; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    Snapshot s = read_counter_snapshot(fsr, opts);
    auto t1 = std::chrono::steady_clock::now();
    InterpretInput in{s.ports, snapshot_readings(s), std::nullopt, s.optics};
    CounterInterpretation r = interpret_counters(in);
    auto t2 = std::chrono::steady_clock::now();
    snap_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    interp_ms.push_back(std::chrono::duration<double, std::milli>(t2 - t1).count());
    if (r.findings.size() > 1000000) return 70;  // keep the work observable
  }
  double med = percentile(snap_ms, 0.5), rss = peak_rss_mib();
  std::printf("fabdiag counters benchmark: %d RDMA NICs (mlx5, RoCE), %zu counters per snapshot "
              "(%d ring channels per netdev), %d snapshots\n",
              nics, counters, channels, iterations);
  std::printf("fixture: %s%s\n", root.c_str(), keep.empty() ? " (removed at exit)" : "");
  if (failures) std::printf("WARNING: %zu read failures in the fixture\n", failures);
  std::printf("snapshot:  median %.2f ms  (min %.2f, p95 %.2f, max %.2f)   target < %.0f ms   ratio %.2f\n",
              med, percentile(snap_ms, 0.0), percentile(snap_ms, 0.95), percentile(snap_ms, 1.0),
              kTargetSnapshotMs, med / kTargetSnapshotMs);
  std::printf("interpret: median %.2f ms  (p95 %.2f)   (classification is part of the snapshot)\n",
              percentile(interp_ms, 0.5), percentile(interp_ms, 0.95));
  std::printf("peak RSS:  %.1f MiB   target < %.0f MiB   ratio %.2f\n", rss, kTargetRssMib,
              rss / kTargetRssMib);
  std::printf("note: a fixture on a normal file system; on a live host every IB counter read is a "
              "PMA MAD (tens of us to ms), which this does not measure\n");
  if (keep.empty()) fs::remove_all(root);
  return med < kTargetSnapshotMs && rss < kTargetRssMib ? 0 : 1;
}
