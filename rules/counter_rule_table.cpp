#include "rules/counter_rule_table.h"

namespace fabdiag {
namespace {

using S = Severity;
using L = Layer;

constexpr const char* kRdmaCore =
    "rdma-core error_thresholds (docs/thresholds.md#rdma-core-error-thresholds)";
constexpr const char* kPerHour = "docs/thresholds.md#per-hour-rules (heuristic)";
constexpr const char* kPhy = "docs/thresholds.md#symbol-and-phy-errors (heuristic)";
constexpr const char* kQpFatal = "docs/thresholds.md#rdma-loss-and-completion-errors (heuristic)";
constexpr const char* kEcnOff = "docs/thresholds.md#ecn-not-enabled (heuristic)";
constexpr const char* kCongestion = "docs/thresholds.md#congestion-ecn-and-cnp (heuristic)";
constexpr const char* kPause = "docs/thresholds.md#pause-and-pfc-storms (heuristic)";
constexpr const char* kLinkDown =
    "docs/thresholds.md#link-flaps (heuristic); one snapshot: any link-down since the "
    "counters were cleared (a flap or a peer reboot; case 018)";
constexpr const char* kCarrier =
    "docs/domain.md#carrier-counters: carrier counters include admin changes";
constexpr const char* kStateChanges =
    "docs/thresholds.md#link-flaps (heuristic): any growth; one snapshot >= 10 (a port that came up "
    "once shows 1 or 2, as the NVUE carrier-transitions limit)";
constexpr const char* kNhc =
    "any carrier loss is a flap (warn); >= 5 in 24 h is an error (Azure NHC "
    "azure_ib_link_flapping, docs/thresholds.md#link-flaps)";
constexpr const char* kFec =
    "docs/thresholds.md#fec-and-pre-fec-ber: post-FEC (uncorrectable) growth is frame loss";
constexpr const char* kStarve =
    "docs/thresholds.md#receive-buffer-drops: receive drops (heuristic: any growth)";
constexpr const char* kStarveRing =
    "docs/thresholds.md#receive-buffer-drops: receive drops (heuristic: any growth; one snapshot >= "
    "1,000,000 since the driver started, sustained overload rather than a start-up burst)";
constexpr const char* kLoss =
    "docs/thresholds.md#rdma-loss-and-completion-errors (the mlx5 interpretation); a cumulative "
    "limit of 10 mirrors rdma-core error_thresholds (heuristic)";

// THE rule table. Order = order of findings for one device.
const CounterRuleRow kRules[] = {
    {.counters = "link_downed link_down_events_phy link_down_events", .code = "link_down",
     .layer = L::kPhysical,
     .on_growth = S::kCritical, .cumulative_at = 1, .cumulative_severity = S::kWarn,
     .what = "link went down",
     .action = "Check the cable, transceiver and far-end switch port (dmesg and the switch log show the "
               "flap); drain the node from multi-node jobs until the link stays up",
     .basis = kLinkDown},
    {.counters = "carrier_down_count carrier_changes", .code = "carrier_changes", .layer = L::kPhysical,
     .on_growth = S::kWarn,
     .what = "carrier lost (includes administrative and software link changes)",
     .action = "Check dmesg for the reason; if the link was not taken down on purpose, treat it as a flap",
     .basis = kCarrier},
    {.counters = "lsc_int", .code = "link_state_changes", .layer = L::kPhysical,
     .on_growth = S::kWarn, .cumulative_at = 10, .cumulative_severity = S::kWarn,
     .what = "link state changes (up and down)",
     .action = "Check dmesg and the switch log for the flaps; check the cable, transceiver and far-end port",
     .basis = kStateChanges},
    {.counters = "carrier_lost_events", .code = "carrier_lost", .layer = L::kPhysical,
     .on_growth = S::kWarn, .escalate_delta_at = 5, .escalated = S::kError, .cumulative_at = 1,
     .cumulative_severity = S::kWarn,
     .what = "carrier losses in the log",
     .action = "Check the cable, transceiver and far-end switch port; 5 or more in 24 h is a flapping link",
     .basis = kNhc},
    {.counters = "link_error_recovery", .code = "link_retrain", .layer = L::kPhysical,
     .on_growth = S::kWarn, .escalate_delta_at = 3, .escalated = S::kError, .cumulative_at = 10,
     .cumulative_severity = S::kWarn,
     .what = "link retrained (link error recovery)",
     .action = "Watch for more recoveries: 3 or more in 12 h is a flapping link; reseat or replace the "
               "cable/optic",
     .basis = kPerHour},
    {.counters = "symbol_error", .code = "symbol_errors", .layer = L::kPhysical,
     .on_growth = S::kWarn, .escalate_per_hour = 10, .escalated = S::kError, .cumulative_at = 10,
     .cumulative_severity = S::kWarn,
     .what = "symbol errors on the physical lanes",
     .action = "Clean or reseat the optic, then replace the cable/transceiver if errors keep growing; "
               "compare with the far end (mlxlink / ethtool -m)",
     .basis = kPerHour},
    {.counters = "port_rcv_errors", .code = "port_rcv_errors", .layer = L::kPhysical,
     .on_growth = S::kWarn, .escalate_per_hour = 10, .escalated = S::kError, .cumulative_at = 10,
     .cumulative_severity = S::kWarn,
     .what = "received packets with errors (ICRC/VCRC, malformed, buffer overrun)",
     .action = "Check the cable and the link partner; if symbol_error is flat, look at the sender",
     .basis = kPerHour},
    {.counters = "local_link_integrity_errors",
     .code = "link_integrity_errors", .layer = L::kPhysical,
     .on_growth = S::kWarn, .cumulative_at = 10, .cumulative_severity = S::kWarn,
     .what = "link integrity errors",
     .action = "Check the cable and the transceivers of both ends",
     .basis = kRdmaCore},
    {.counters = "excessive_buffer_overrun_errors", .code = "buffer_overruns", .layer = L::kTransport,
     .on_growth = S::kWarn, .cumulative_at = 10, .cumulative_severity = S::kWarn,
     .what = "receive buffer overruns (flow-control credits exceeded, packets dropped at the port)",
     .action = "Check the credit and VL configuration of both ends and the link partner's flow control; "
               "with symbol errors next to them it is the cable",
     .basis = kRdmaCore},
    {.counters = "port_rcv_remote_physical_errors", .code = "upstream_physical_errors",
     .layer = L::kPhysical,
     .on_growth = S::kWarn, .cumulative_at = 100, .cumulative_severity = S::kWarn,
     .what = "packets corrupted on an upstream hop",
     .action = "Look at the upstream hop (switch port or link before this one), not at this port",
     .basis = kRdmaCore},
    {.counters = "rx_fec_uncorrectable_blocks fec_uncorrectable_blocks", .code = "fec_uncorrectable",
     .layer = L::kPhysical,
     .on_growth = S::kError, .cumulative_at = 1, .cumulative_severity = S::kWarn,
     .what = "FEC codewords not correctable (frames lost)",
     .action = "Clean or replace the optic/cable; check the FEC mode on both ends", .basis = kFec},
    {.counters = "rx_crc_errors_phy rx_symbol_err_phy rx_pcs_symbol_err_phy rx_fcs_err_frames "
                 "rx_pcs_symbol_err rx_crc_errors.nic port.rx_crc_errors rx_crc_errors rx_icrc_encapsulated "
                 "eth-mac-FrameCheckSequenceErrors eth-phy-SymbolErrorDuringCarrier",
     .code = "phy_errors", .layer = L::kPhysical,
     .on_growth = S::kWarn, .escalate_per_hour = 10, .escalated = S::kError,
     .what = "CRC/FCS, post-FEC symbol or ICRC errors",
     .action = "Clean or replace the optic/cable; check FEC mode and the switch port's counters",
     .basis = kPhy},
    {.counters = "port_xmit_discards", .code = "xmit_discards", .layer = L::kTransport,
     .on_growth = S::kInfo, .escalate_per_hour = 100, .escalated = S::kWarn, .cumulative_at = 100,
     .cumulative_severity = S::kWarn,
     .what = "outbound packets discarded (congestion or a dead peer)",
     .action = "Check the peer's port state and congestion on this path (port_xmit_wait, ECN/CNP)",
     .basis = kPerHour},
    {.counters = "port_rcv_constraint_errors port_xmit_constraint_errors",
     .code = "pkey_constraint_errors", .layer = L::kTransport,
     .on_growth = S::kWarn, .cumulative_at = 100, .cumulative_severity = S::kWarn,
     .what = "packets dropped by partition (P_Key) constraints",
     .action = "Compare the partition (P_Key) configuration of this port, the SM and the peers",
     .basis = kRdmaCore},
    {.counters = "port_xmit_wait", .code = "xmit_wait", .layer = L::kTransport,
     .on_growth = S::kInfo,
     .what = "port waited for credits (congestion indicator, not an error)",
     .action = "Compare port_xmit_wait / port_xmit_data with the fleet median before calling it congestion",
     .basis = kPerHour},
    {.counters = "local_ack_timeout_err out_of_sequence packet_seq_err implied_nak_seq_err duplicate_request "
                 "roce_adp_retrans roce_adp_retrans_to",
     .code = "rdma_packet_loss", .layer = L::kTransport,
     .on_growth = S::kWarn, .cumulative_at = 10, .cumulative_severity = S::kWarn,
     .what = "RDMA packet loss and retransmission (ack timeouts, sequence errors)",
     .action = "Find where packets are lost: PFC/lossless class on RoCE (priority, DSCP trust), buffer "
               "drops and physical errors on this and the peer ports",
     .basis = kLoss},
    {.counters = "req_transport_retries_exceeded req_rnr_retries_exceeded unrecoverable_err",
     .code = "rdma_qp_fatal", .layer = L::kTransport,
     .on_growth = S::kCritical, .cumulative_at = 1, .cumulative_severity = S::kWarn,
     .what = "queue pairs failed after exhausting retries (IBV_WC_RETRY_EXC_ERR)",
     .action = "Jobs on this port lose connections: check the path to the peers (link state, loss) and "
               "NCCL_IB_TIMEOUT / retry settings",
     .basis = kQpFatal},
    {.counters = "req_cqe_error resp_cqe_error req_cqe_flush_error resp_cqe_flush_error",
     .code = "rdma_cqe_errors", .layer = L::kTransport,
     .on_growth = S::kError, .cumulative_at = 10, .cumulative_severity = S::kWarn,
     .what = "completions with errors (queue pairs went to the error state)",
     .action = "Correlate with application errors (NCCL WARN 'Got completion ... status'); check loss "
               "counters and the peers",
     .basis = kLoss},
    {.counters = "rnr_nak_retry_err", .code = "rdma_rnr_naks", .layer = L::kTransport,
     .on_growth = S::kInfo,
     .what = "receiver-not-ready NAKs (peer had no receive buffer posted)",
     .action = "The receiving application posts receives too slowly", .basis = kLoss},
    {.counters = "rp_cnp_ignored", .code = "ecn_not_enabled", .layer = L::kTransport,
     .on_growth = S::kWarn, .cumulative_at = 1, .cumulative_severity = S::kWarn,
     .what = "CNPs received but ignored: DCQCN/ECN is not enabled on this adapter or priority",
     .action = "Enable ECN/DCQCN for the RoCE priority (mlnx_qos / sysfs ecn roce_rp enable)",
     .basis = kEcnOff},
    {.counters = "np_ecn_marked_roce_packets np_cnp_sent rp_cnp_handled rx_prio#_marked cc_rx_ce_pkts "
                 "cc_rx_cnp_pkts cc_tx_cnp_pkts",
     .code = "congestion", .layer = L::kTransport,
     .on_growth = S::kInfo,
     .what = "congestion notifications (ECN marks / CNPs)",
     .action = "Compare with the fleet median; congestion without loss is DCQCN doing its job",
     .basis = kCongestion},
    {.counters = "tx_pause_storm_error_events", .code = "pause_storm", .layer = L::kPhysical,
     .on_growth = S::kCritical, .cumulative_at = 1, .cumulative_severity = S::kWarn,
     .what = "PFC pause storm: the NIC stopped honouring pause frames",
     .action = "Find the stuck receiver (hung host, PCIe stall); check pfc_stall_prevention",
     .basis = kPause},
    {.counters = "tx_pause_storm_warning_events continuous_pause_events continuous_roce_pause_events",
     .code = "pause_storm_warning", .layer = L::kPhysical,
     .on_growth = S::kWarn,
     .what = "device stalled by continuous pause",
     .action = "Check the host side of this NIC (PCIe, CPU) and the peers sending pause",
     .basis = kPause},
    {.counters = "rx_pause_ctrl_phy tx_pause_ctrl_phy rx_global_pause tx_global_pause rx_prio#_pause "
                 "tx_prio#_pause rx_pause_frames tx_pause_frames rx_pfc_frames tx_pfc_frames "
                 "link_xoff_rx.nic link_xoff_tx.nic rx_priority_#_xoff.nic tx_priority_#_xoff.nic "
                 "port.link_xoff_rx port.link_xoff_tx port.rx_priority_#_xoff_rx port.tx_priority_#_xoff_tx",
     .code = "pause_frames", .layer = L::kPhysical,
     .on_growth = S::kInfo,
     .what = "pause/PFC frames",
     .action = "Compare with the fleet median; rx = the switch throttles this NIC, tx = this NIC is slow",
     .basis = kPause},
    {.counters = "rx_discards_phy outbound_pci_buffer_overflow rx_prio#_buf_discard dev_out_of_buffer",
     .code = "nic_rx_discards", .layer = L::kTransport,
     .on_growth = S::kWarn,
     .what = "frames dropped for lack of NIC receive buffer",
     .action = "Host or PCIe is not keeping up, or pause/PFC is not configured on the RoCE priority",
     .basis = kStarve},
    {.counters = "out_of_buffer", .code = "rdma_rq_empty", .layer = L::kTransport,
     .on_growth = S::kWarn,
     .what = "RDMA packets dropped: receive queue had no WQE posted",
     .action = "The application does not post receives fast enough", .basis = kStarve},
    {.counters = "rx_out_of_buffer", .code = "netdev_rq_empty", .layer = L::kTransport,
     .on_growth = S::kWarn, .cumulative_at = 1000000, .cumulative_severity = S::kWarn,
     .what = "netdev packets dropped: the receive ring had no buffer posted (driver/CPU too slow)",
     .action = "Check CPU load and IRQ affinity of the NIC's queues; consider larger rings",
     .basis = kStarveRing},
};


}  // namespace

std::span<const CounterRuleRow> counter_rule_rows() { return kRules; }

}  // namespace fabdiag
