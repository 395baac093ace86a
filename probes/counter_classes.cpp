#include "probes/counter_classes.h"

#include <cctype>

#include "core/text.h"

namespace fabdiag {
namespace {

using C = CounterCategory;

// Which groups a row applies to (0 = any): a few names mean different things per source.
constexpr unsigned kAny = 0, kPort = 1, kHw = 2, kNet = 4, kEth = 8;

struct Row {
  const char* name;       // exact, or '#' for a run of digits
  const char* family;
  C category;
  const char* canonical;  // nullptr = same as name
  unsigned width_bits;    // ib_pma rows: IBTA width (0 = 32 or 64 by capability); others unused
  unsigned groups;
  const char* meaning;
};

// THE counter table. Sources: DOMAIN.md section 1 (IBTA PortCounters, widths from
// linux:drivers/infiniband/core/sysfs.c), 3.1 mlx5, 3.2 bnxt_re (old and 2025 names), 3.3 irdma,
// 4 ethtool (mlx5e, bnxt_en, ice, i40e) and netdev statistics.
const Row kRows[] = {
    // ---- IB PMA PortCounters (/sys/class/infiniband/*/ports/*/counters) ----
    {"symbol_error", "ib_pma", C::kPhyError, nullptr, 16, kPort, "Minor link errors on the physical lanes (after FEC on HDR/NDR); saturates at 65535"},
    {"link_error_recovery", "ib_pma", C::kLink, nullptr, 8, kPort, "Successful link error recoveries (retrains; the link stayed up); saturates at 255"},
    {"link_downed", "ib_pma", C::kLink, nullptr, 8, kPort, "Times link error recovery failed and the link went down; saturates at 255"},
    {"port_rcv_errors", "ib_pma", C::kPhyError, nullptr, 16, kPort, "Received packets with errors: local physical errors (ICRC/VCRC), malformed packets, buffer overrun"},
    {"port_rcv_remote_physical_errors", "ib_pma", C::kPhyError, nullptr, 16, kPort, "Received packets marked bad by an upstream hop: the corruption happened elsewhere"},
    {"port_rcv_switch_relay_errors", "ib_pma", C::kDiscard, nullptr, 16, kPort, "Packets the port could not forward (DLID/VL mapping, loops); usually 0 on HCAs"},
    {"port_xmit_discards", "ib_pma", C::kDiscard, nullptr, 16, kPort, "Outbound packets dropped: port down or congested (head-of-line timeout)"},
    {"port_xmit_constraint_errors", "ib_pma", C::kDiscard, nullptr, 8, kPort, "Packets not sent because of partition/raw constraints"},
    {"port_rcv_constraint_errors", "ib_pma", C::kDiscard, nullptr, 8, kPort, "Received packets dropped by partition/raw constraints (P_Key mismatch)"},
    {"local_link_integrity_errors", "ib_pma", C::kPhyError, nullptr, 4, kPort, "Times local physical errors exceeded the LocalPhyErrors threshold; saturates at 15"},
    {"excessive_buffer_overrun_errors", "ib_pma", C::kDiscard, nullptr, 4, kPort, "Consecutive flow-control periods with a buffer overrun (credit problem); saturates at 15"},
    {"VL15_dropped", "ib_pma", C::kDiscard, nullptr, 16, kPort, "Subnet management packets dropped for lack of buffer; usually harmless"},
    {"port_xmit_wait", "ib_pma", C::kPause, nullptr, 32, kPort, "Ticks the port had data to send but no credits or no grant (congestion; units vary by generation)"},
    {"port_xmit_data", "ib_pma", C::kTraffic, nullptr, 0, kPort, "Transmitted data in 4-octet words (converted to bytes here); RDMA only on mlx5 RoCE"},
    {"port_rcv_data", "ib_pma", C::kTraffic, nullptr, 0, kPort, "Received data in 4-octet words (converted to bytes here); RDMA only on mlx5 RoCE"},
    {"port_xmit_packets", "ib_pma", C::kTraffic, nullptr, 0, kPort, "Packets transmitted, any size"},
    {"port_rcv_packets", "ib_pma", C::kTraffic, nullptr, 0, kPort, "Packets received, any size"},
    {"unicast_xmit_packets", "ib_pma", C::kTraffic, nullptr, 64, kPort, "Unicast packets transmitted (PortCountersExtended only)"},
    {"unicast_rcv_packets", "ib_pma", C::kTraffic, nullptr, 64, kPort, "Unicast packets received (PortCountersExtended only)"},
    {"multicast_xmit_packets", "ib_pma", C::kTraffic, nullptr, 64, kPort, "Multicast packets transmitted (PortCountersExtended only)"},
    {"multicast_rcv_packets", "ib_pma", C::kTraffic, nullptr, 64, kPort, "Multicast packets received (PortCountersExtended only)"},

    // ---- mlx5 hw_counters (and bnxt_re since the 2025 rename, which adopted these names) ----
    {"rx_write_requests", "mlx5", C::kOther, nullptr, 0, kAny, "RDMA WRITE requests received (responder)"},
    {"rx_read_requests", "mlx5", C::kOther, nullptr, 0, kAny, "RDMA READ requests received (responder)"},
    {"rx_atomic_requests", "mlx5", C::kOther, nullptr, 0, kAny, "RDMA ATOMIC requests received (responder)"},
    {"rx_dct_connect", "mlx5", C::kOther, nullptr, 0, kAny, "DCT connect requests received"},
    {"out_of_buffer", "mlx5", C::kDiscard, nullptr, 0, kAny, "Packets dropped because the receive queue had no WQE posted (application not posting receives)"},
    {"out_of_sequence", "mlx5", C::kRetransmit, nullptr, 0, kAny, "Out-of-order packets received (PSN skipped ahead): loss in the fabric or adaptive-routing reorder"},
    {"duplicate_request", "mlx5", C::kRetransmit, nullptr, 0, kAny, "Duplicate requests received: the peer timed out and retransmitted"},
    {"rnr_nak_retry_err", "mlx5", C::kRetransmit, nullptr, 0, kAny, "RNR NAKs received: the peer had no receive buffer posted"},
    {"packet_seq_err", "mlx5", C::kRetransmit, nullptr, 0, kAny, "NAK-sequence-error packets received: packet loss toward the peer"},
    {"implied_nak_seq_err", "mlx5", C::kRetransmit, nullptr, 0, kAny, "Implied NAKs (READ/ATOMIC response PSN ahead of expected): lost responses"},
    {"local_ack_timeout_err", "mlx5", C::kRetransmit, nullptr, 0, kAny, "QP ACK timer expired and the request was retransmitted: the key loss indicator"},
    {"resp_local_length_error", "mlx5", C::kOther, nullptr, 0, kAny, "Responder local length errors (application bug)"},
    {"resp_cqe_error", "mlx5", C::kRetransmit, nullptr, 0, kAny, "Responder completions with an error (a QP failed)"},
    {"req_cqe_error", "mlx5", C::kRetransmit, nullptr, 0, kAny, "Requester completions with an error (a QP failed)"},
    {"resp_cqe_flush_error", "mlx5", C::kRetransmit, nullptr, 0, kAny, "Responder completions flushed because the QP entered the error state"},
    {"req_cqe_flush_error", "mlx5", C::kRetransmit, nullptr, 0, kAny, "Requester completions flushed because the QP entered the error state"},
    {"req_remote_invalid_request", "mlx5", C::kOther, nullptr, 0, kAny, "Remote invalid request NAKs received (protocol/application error)"},
    {"req_remote_access_errors", "mlx5", C::kOther, nullptr, 0, kAny, "Remote access (rkey/permission) errors seen by the requester"},
    {"resp_remote_access_errors", "mlx5", C::kOther, nullptr, 0, kAny, "Remote access (rkey/permission) errors seen by the responder"},
    {"req_transport_retries_exceeded", "mlx5", C::kRetransmit, nullptr, 0, kAny, "Transport retry count exceeded: fatal for the QP (IBV_WC_RETRY_EXC_ERR)"},
    {"req_rnr_retries_exceeded", "mlx5", C::kRetransmit, nullptr, 0, kAny, "RNR retry count exceeded: fatal for the QP (IBV_WC_RNR_RETRY_EXC_ERR)"},
    {"roce_adp_retrans", "mlx5", C::kRetransmit, nullptr, 0, kAny, "Adaptive retransmissions (RoCE): loss recovered by fast retransmit"},
    {"roce_adp_retrans_to", "mlx5", C::kRetransmit, nullptr, 0, kAny, "Adaptive retransmission timeouts (RoCE)"},
    {"roce_slow_restart", "mlx5", C::kRetransmit, nullptr, 0, kAny, "Slow-restart events after heavy loss/congestion"},
    {"roce_slow_restart_cnps", "mlx5", C::kCnp, nullptr, 0, kAny, "CNPs received during slow restart"},
    {"roce_slow_restart_trans", "mlx5", C::kRetransmit, nullptr, 0, kAny, "Transitions into slow restart"},
    {"rp_cnp_handled", "mlx5", C::kCnp, nullptr, 0, kAny, "CNPs handled by the reaction point: this node's sender slowed down (congestion on its path)"},
    {"rp_cnp_ignored", "mlx5", C::kCnp, nullptr, 0, kAny, "CNPs received but ignored: should stay 0; non-zero = DCQCN/ECN not enabled on this adapter/priority"},
    {"np_ecn_marked_roce_packets", "mlx5", C::kEcn, nullptr, 0, kAny, "RoCEv2 packets received with ECN CE: congestion on the path into this node"},
    {"np_cnp_sent", "mlx5", C::kCnp, nullptr, 0, kAny, "CNPs sent in reply to ECN CE marks (rate limited)"},
    {"rx_icrc_encapsulated", "mlx5", C::kPhyError, nullptr, 0, kAny, "RoCE packets received with an ICRC error: corruption (bad link, NIC/switch bug)"},
    {"cc_rx_ce_pkts", "mlx5", C::kEcn, nullptr, 0, kAny, "Optional counter: packets received with ECN CE"},
    {"cc_rx_cnp_pkts", "mlx5", C::kCnp, nullptr, 0, kAny, "Optional counter: CNPs received"},
    {"cc_tx_cnp_pkts", "mlx5", C::kCnp, nullptr, 0, kAny, "Optional counter: CNPs sent"},

    // ---- bnxt_re traditional names (aliases of the mlx5 names where one exists) ----
    {"rx_pkts", "bnxt_re", C::kTraffic, nullptr, 0, kAny, "RoCE packets received"},
    {"tx_pkts", "bnxt_re", C::kTraffic, nullptr, 0, kAny, "RoCE packets transmitted"},
    {"rx_roce_errors", "bnxt_re", C::kPhyError, nullptr, 0, kAny, "RoCE packets received with errors"},
    {"rx_roce_discards", "bnxt_re", C::kDiscard, nullptr, 0, kAny, "RoCE packets discarded on receive"},
    {"to_retransmits", "bnxt_re", C::kRetransmit, "local_ack_timeout_err", 0, kAny, "ACK timeouts followed by retransmission (old name of local_ack_timeout_err)"},
    {"seq_err_naks_rcvd", "bnxt_re", C::kRetransmit, "packet_seq_err", 0, kAny, "Sequence-error NAKs received (old name of packet_seq_err)"},
    {"max_retry_exceeded", "bnxt_re", C::kRetransmit, "req_transport_retries_exceeded", 0, kAny, "Retry count exceeded, fatal for the QP"},
    {"rnr_naks_rcvd", "bnxt_re", C::kRetransmit, "rnr_nak_retry_err", 0, kAny, "RNR NAKs received (old name of rnr_nak_retry_err)"},
    {"missing_resp", "bnxt_re", C::kRetransmit, "implied_nak_seq_err", 0, kAny, "Missing responses (old name of implied_nak_seq_err)"},
    {"dup_req", "bnxt_re", C::kRetransmit, "duplicate_request", 0, kAny, "Duplicate requests received (old name of duplicate_request)"},
    {"oos_drop_count", "bnxt_re", C::kRetransmit, "out_of_sequence", 0, kAny, "Out-of-sequence packets dropped (old name of out_of_sequence)"},
    {"rx_out_of_buffer", "bnxt_re", C::kDiscard, "out_of_buffer", 0, kHw, "Receive-queue-empty drops (old name of out_of_buffer)"},
    {"tx_cnp_pkts", "bnxt_re", C::kCnp, "np_cnp_sent", 0, kAny, "CNPs sent (old name; now np_cnp_pkts)"},
    {"np_cnp_pkts", "bnxt_re", C::kCnp, "np_cnp_sent", 0, kAny, "CNPs sent by the notification point"},
    {"rx_cnp_pkts", "bnxt_re", C::kCnp, "rp_cnp_handled", 0, kAny, "CNPs received and handled (old name of rp_cnp_handled)"},
    {"rx_ecn_marked_pkts", "bnxt_re", C::kEcn, "np_ecn_marked_roce_packets", 0, kAny, "ECN-marked RoCE packets received (old name of np_ecn_marked_roce_packets)"},
    {"unrecoverable_err", "bnxt_re", C::kRetransmit, nullptr, 0, kAny, "Unrecoverable QP errors"},
    {"bad_resp_err", "bnxt_re", C::kOther, nullptr, 0, kAny, "Bad response errors"},
    {"local_qp_op_err", "bnxt_re", C::kOther, nullptr, 0, kAny, "Local QP operation errors"},
    {"local_protection_err", "bnxt_re", C::kOther, nullptr, 0, kAny, "Local protection errors (often ACS breaking GPUDirect RDMA)"},
    {"remote_access_err", "bnxt_re", C::kOther, nullptr, 0, kAny, "Remote access errors"},
    {"rx_roce_good_pkts", "bnxt_re", C::kTraffic, nullptr, 0, kAny, "Good RoCE packets received"},
    {"rx_roce_good_bytes", "bnxt_re", C::kTraffic, nullptr, 0, kAny, "Good RoCE bytes received"},

    // ---- irdma (Intel) hw stat names ----
    {"cnpHandled", "irdma", C::kCnp, "rp_cnp_handled", 0, kAny, "CNPs handled (= mlx5 rp_cnp_handled)"},
    {"cnpIgnored", "irdma", C::kCnp, "rp_cnp_ignored", 0, kAny, "CNPs ignored (= mlx5 rp_cnp_ignored): ECN not enabled"},
    {"cnpSent", "irdma", C::kCnp, "np_cnp_sent", 0, kAny, "CNPs sent (= mlx5 np_cnp_sent)"},
    {"RxECNMrkd", "irdma", C::kEcn, "np_ecn_marked_roce_packets", 0, kAny, "ECN-marked packets received (= mlx5 np_ecn_marked_roce_packets)"},
    {"tcpRetransSegs", "irdma", C::kRetransmit, nullptr, 0, kAny, "iWARP TCP segments retransmitted"},
    {"RetransSegs", "irdma", C::kRetransmit, nullptr, 0, kAny, "Segments retransmitted"},
    {"tcpInSegs", "irdma", C::kTraffic, nullptr, 0, kAny, "iWARP TCP segments received"},
    {"tcpOutSegs", "irdma", C::kTraffic, nullptr, 0, kAny, "iWARP TCP segments sent"},
    {"ip#InDiscards", "irdma", C::kDiscard, nullptr, 0, kAny, "IP packets discarded on receive"},
    {"ip#InTruncatedPkts", "irdma", C::kDiscard, nullptr, 0, kAny, "Truncated IP packets received"},
    {"ip#InOcts", "irdma", C::kTraffic, nullptr, 0, kAny, "IP octets received"},
    {"ip#OutOcts", "irdma", C::kTraffic, nullptr, 0, kAny, "IP octets sent"},
    {"ip#InPkts", "irdma", C::kTraffic, nullptr, 0, kAny, "IP packets received"},
    {"ip#OutPkts", "irdma", C::kTraffic, nullptr, 0, kAny, "IP packets sent"},
    {"RxUDP", "irdma", C::kTraffic, nullptr, 0, kAny, "UDP (RoCEv2) packets received"},
    {"TxUDP", "irdma", C::kTraffic, nullptr, 0, kAny, "UDP (RoCEv2) packets sent"},

    // ---- mlx5e ethtool -S ----
    {"rx_pause_ctrl_phy", "mlx5e", C::kPause, nullptr, 0, kAny, "Link-level pause frames received: the switch asks this NIC to stop"},
    {"tx_pause_ctrl_phy", "mlx5e", C::kPause, nullptr, 0, kAny, "Link-level pause frames sent: this NIC is congested (slow PCIe/host)"},
    {"rx_global_pause", "mlx5e", C::kPause, nullptr, 0, kAny, "Global (802.3x) pause frames received"},
    {"tx_global_pause", "mlx5e", C::kPause, nullptr, 0, kAny, "Global (802.3x) pause frames sent"},
    {"rx_global_pause_duration", "mlx5e", C::kPause, nullptr, 0, kAny, "Time paused by global pause, microseconds"},
    {"tx_global_pause_duration", "mlx5e", C::kPause, nullptr, 0, kAny, "Time pausing the peer by global pause, microseconds"},
    {"rx_global_pause_transition", "mlx5e", C::kPause, nullptr, 0, kAny, "Xoff->Xon transitions (global pause)"},
    {"rx_prio#_pause", "mlx5e", C::kPause, nullptr, 0, kAny, "PFC pause frames received on this priority"},
    {"tx_prio#_pause", "mlx5e", C::kPause, nullptr, 0, kAny, "PFC pause frames sent on this priority"},
    {"rx_prio#_pause_duration", "mlx5e", C::kPause, nullptr, 0, kAny, "Time paused on this priority, microseconds"},
    {"tx_prio#_pause_duration", "mlx5e", C::kPause, nullptr, 0, kAny, "Time pausing the peer on this priority, microseconds"},
    {"rx_prio#_pause_transition", "mlx5e", C::kPause, nullptr, 0, kAny, "Xoff->Xon transitions on this priority (pause episodes)"},
    {"tx_pause_storm_warning_events", "mlx5e", C::kPause, nullptr, 0, kAny, "Device stalled longer than the minor watermark (pause storm warning)"},
    {"tx_pause_storm_error_events", "mlx5e", C::kPause, nullptr, 0, kAny, "Stall beyond the critical watermark: the NIC stopped honouring pause to break a PFC storm"},
    {"rx_prio#_bytes", "mlx5e", C::kTraffic, nullptr, 0, kAny, "Bytes received on this priority"},
    {"rx_prio#_packets", "mlx5e", C::kTraffic, nullptr, 0, kAny, "Packets received on this priority"},
    {"tx_prio#_bytes", "mlx5e", C::kTraffic, nullptr, 0, kAny, "Bytes sent on this priority"},
    {"tx_prio#_packets", "mlx5e", C::kTraffic, nullptr, 0, kAny, "Packets sent on this priority"},
    {"rx_prio#_discards", "mlx5e", C::kDiscard, nullptr, 0, kAny, "Packets discarded on this priority"},
    {"rx_prio#_buf_discard", "mlx5e", C::kDiscard, nullptr, 0, kAny, "Drops for lack of receive buffer on this priority"},
    {"rx_prio#_cong_discard", "mlx5e", C::kDiscard, nullptr, 0, kAny, "WRED (congestion) drops on this priority"},
    {"rx_prio#_marked", "mlx5e", C::kEcn, nullptr, 0, kAny, "Packets ECN-marked by the NIC's own receive-buffer congestion on this priority"},
    {"rx_crc_errors_phy", "mlx5e", C::kPhyError, nullptr, 0, kAny, "Frames with an FCS error: bad cable/optic or a bad peer"},
    {"rx_symbol_err_phy", "mlx5e", C::kPhyError, nullptr, 0, kAny, "PHY (PCS) symbol errors"},
    {"rx_pcs_symbol_err_phy", "mlx5e", C::kPhyError, nullptr, 0, kAny, "Symbol errors after FEC (uncorrectable)"},
    {"rx_corrected_bits_phy", "mlx5e", C::kPhyError, nullptr, 0, kAny, "Bits corrected by FEC (pre-FEC errors; margin)"},
    {"rx_err_lane_#_phy", "mlx5e", C::kPhyError, nullptr, 0, kAny, "Corrected bits on one lane: one bad lane = bad fibre/connector/SerDes"},
    {"rx_in_range_len_errors_phy", "mlx5e", C::kPhyError, nullptr, 0, kAny, "Frames with a length-field error"},
    {"rx_out_of_range_len_phy", "mlx5e", C::kPhyError, nullptr, 0, kAny, "Frames with an out-of-range length field"},
    {"rx_oversize_pkts_phy", "mlx5e", C::kDiscard, nullptr, 0, kAny, "Frames above the MTU: the peer has a larger MTU"},
    {"rx_undersize_pkts_phy", "mlx5e", C::kPhyError, nullptr, 0, kAny, "Undersized frames"},
    {"rx_fragments_phy", "mlx5e", C::kPhyError, nullptr, 0, kAny, "Frame fragments"},
    {"rx_jabbers_phy", "mlx5e", C::kPhyError, nullptr, 0, kAny, "Jabber frames"},
    {"rx_discards_phy", "mlx5e", C::kDiscard, nullptr, 0, kAny, "Frames dropped for lack of NIC receive buffer (host/PCIe slow, or pause misconfigured)"},
    {"tx_discards_phy", "mlx5e", C::kDiscard, nullptr, 0, kAny, "Frames dropped on transmit (link down, pause-storm prevention)"},
    {"tx_errors_phy", "mlx5e", C::kDiscard, nullptr, 0, kAny, "Frames not sent due to errors"},
    {"rx_out_of_buffer", "mlx5e", C::kDiscard, nullptr, 0, kEth, "Netdev RQ had no posted buffer (driver/CPU too slow)"},
    {"rx_buffer_passed_thres_phy", "mlx5e", C::kOther, nullptr, 0, kAny, "Times the NIC receive buffer passed 85% full (congestion warning)"},
    {"link_down_events_phy", "mlx5e", C::kLink, nullptr, 0, kAny, "Physical link went down (the authoritative flap counter)"},
    {"total_success_recovery_phy", "mlx5e", C::kLink, nullptr, 0, kAny, "Successful PHY recoveries without a link drop"},
    {"rx_bits_phy", "mlx5e", C::kTraffic, nullptr, 0, kAny, "Bits received on the PHY (the BER denominator)"},
    {"module_unplug", "mlx5e", C::kLink, nullptr, 0, kAny, "Transceiver module ejected/inserted"},
    {"module_high_temp", "mlx5e", C::kOther, nullptr, 0, kAny, "Module over-temperature events"},
    {"rx_pci_signal_integrity", "mlx5e", C::kOther, nullptr, 0, kAny, "PCIe physical-layer errors seen by the NIC (receive)"},
    {"tx_pci_signal_integrity", "mlx5e", C::kOther, nullptr, 0, kAny, "PCIe physical-layer errors seen by the NIC (transmit)"},
    {"outbound_pci_buffer_overflow", "mlx5e", C::kDiscard, nullptr, 0, kAny, "Packets dropped because the PCIe outbound buffer overflowed"},
    {"outbound_pci_stalled_rd", "mlx5e", C::kOther, nullptr, 0, kAny, "Gauge: % of the last second the PCIe read path was stalled (not cumulative)"},
    {"outbound_pci_stalled_wr", "mlx5e", C::kOther, nullptr, 0, kAny, "Gauge: % of the last second the PCIe write path was stalled (not cumulative)"},
    {"dev_out_of_buffer", "mlx5e", C::kDiscard, nullptr, 0, kAny, "Device-level out-of-buffer drops"},
    {"rx_ecn_mark", "mlx5e", C::kEcn, nullptr, 0, kAny, "Received packets with ECN CE (IP stack, not RoCE)"},
    {"rx#_ecn_mark", "mlx5e", C::kEcn, nullptr, 0, kAny, "Received packets with ECN CE on this ring"},

    // ---- bnxt_en ethtool -S ----
    {"rx_pause_frames", "bnxt_en", C::kPause, nullptr, 0, kAny, "Link-level pause frames received"},
    {"tx_pause_frames", "bnxt_en", C::kPause, nullptr, 0, kAny, "Link-level pause frames sent"},
    {"rx_pfc_frames", "bnxt_en", C::kPause, nullptr, 0, kAny, "PFC frames received"},
    {"tx_pfc_frames", "bnxt_en", C::kPause, nullptr, 0, kAny, "PFC frames sent"},
    {"rx_pfc_ena_frames_pri#", "bnxt_en", C::kPause, nullptr, 0, kAny, "PFC frames received for this priority"},
    {"tx_pfc_ena_frames_pri#", "bnxt_en", C::kPause, nullptr, 0, kAny, "PFC frames sent for this priority"},
    {"rx_pfc_xon#xoff_frames_pri#", "bnxt_en", C::kPause, nullptr, 0, kAny, "PFC XON->XOFF transitions received for this priority"},
    {"pfc_pri#_rx_duration_us", "bnxt_en", C::kPause, nullptr, 0, kAny, "Time paused on this priority (receive), microseconds"},
    {"pfc_pri#_tx_duration_us", "bnxt_en", C::kPause, nullptr, 0, kAny, "Time pausing the peer on this priority, microseconds"},
    {"pfc_pri#_rx_transitions", "bnxt_en", C::kPause, nullptr, 0, kAny, "Pause transitions received on this priority"},
    {"pfc_pri#_tx_transitions", "bnxt_en", C::kPause, nullptr, 0, kAny, "Pause transitions sent on this priority"},
    {"continuous_pause_events", "bnxt_en", C::kPause, nullptr, 0, kAny, "Continuous pause (pause-storm analogue)"},
    {"resume_pause_events", "bnxt_en", C::kPause, nullptr, 0, kAny, "Resumes after continuous pause"},
    {"continuous_roce_pause_events", "bnxt_en", C::kPause, nullptr, 0, kAny, "Continuous RoCE pause (pause-storm analogue)"},
    {"resume_roce_pause_events", "bnxt_en", C::kPause, nullptr, 0, kAny, "Resumes after continuous RoCE pause"},
    {"rx_fcs_err_frames", "bnxt_en", C::kPhyError, nullptr, 0, kAny, "Frames with an FCS error"},
    {"rx_align_err_frames", "bnxt_en", C::kPhyError, nullptr, 0, kAny, "Frames with an alignment error"},
    {"rx_ovrsz_frames", "bnxt_en", C::kDiscard, nullptr, 0, kAny, "Oversized frames (MTU mismatch)"},
    {"rx_jbr_frames", "bnxt_en", C::kPhyError, nullptr, 0, kAny, "Jabber frames"},
    {"rx_mtu_err_frames", "bnxt_en", C::kDiscard, nullptr, 0, kAny, "Frames above the MTU"},
    {"link_down_events", "bnxt_en", C::kLink, nullptr, 0, kAny, "Physical link went down"},
    {"rx_bits", "bnxt_en", C::kTraffic, nullptr, 0, kAny, "Bits received (BER denominator)"},
    {"rx_buffer_passed_threshold", "bnxt_en", C::kOther, nullptr, 0, kAny, "Receive buffer passed its threshold (congestion warning)"},
    {"rx_pcs_symbol_err", "bnxt_en", C::kPhyError, nullptr, 0, kAny, "Symbol errors after FEC"},
    {"rx_corrected_bits", "bnxt_en", C::kPhyError, nullptr, 0, kAny, "Bits corrected by FEC"},
    {"rx_discard_bytes_cos#", "bnxt_en", C::kDiscard, nullptr, 0, kAny, "Bytes discarded in this class of service"},
    {"rx_discard_packets_cos#", "bnxt_en", C::kDiscard, nullptr, 0, kAny, "Packets discarded in this class of service"},
    {"rx_fec_corrected_blocks", "bnxt_en", C::kPhyError, nullptr, 0, kAny, "FEC codewords corrected (margin)"},
    {"rx_fec_uncorrectable_blocks", "bnxt_en", C::kPhyError, nullptr, 0, kAny, "FEC codewords not correctable: frame loss"},
    {"pcie_pl_signal_integrity", "bnxt_en", C::kOther, nullptr, 0, kAny, "PCIe physical-layer signal-integrity errors"},
    {"pcie_dl_signal_integrity", "bnxt_en", C::kOther, nullptr, 0, kAny, "PCIe data-link-layer signal-integrity errors"},

    // ---- ice ethtool -S ----
    {"rx_crc_errors.nic", "ice", C::kPhyError, nullptr, 0, kAny, "Frames with a CRC error"},
    {"link_xon_rx.nic", "ice", C::kPause, nullptr, 0, kAny, "Link XON frames received"},
    {"link_xoff_rx.nic", "ice", C::kPause, nullptr, 0, kAny, "Link XOFF (pause) frames received"},
    {"link_xon_tx.nic", "ice", C::kPause, nullptr, 0, kAny, "Link XON frames sent"},
    {"link_xoff_tx.nic", "ice", C::kPause, nullptr, 0, kAny, "Link XOFF (pause) frames sent"},
    {"rx_priority_#_xon.nic", "ice", C::kPause, nullptr, 0, kAny, "PFC XON frames received on this priority"},
    {"rx_priority_#_xoff.nic", "ice", C::kPause, nullptr, 0, kAny, "PFC XOFF frames received on this priority"},
    {"tx_priority_#_xon.nic", "ice", C::kPause, nullptr, 0, kAny, "PFC XON frames sent on this priority"},
    {"tx_priority_#_xoff.nic", "ice", C::kPause, nullptr, 0, kAny, "PFC XOFF frames sent on this priority"},
    {"rx_dropped.nic", "ice", C::kDiscard, nullptr, 0, kAny, "Frames dropped by the NIC"},
    {"mac_local_faults.nic", "ice", C::kLink, nullptr, 0, kAny, "MAC local faults"},
    {"mac_remote_faults.nic", "ice", C::kLink, nullptr, 0, kAny, "MAC remote faults"},
    {"illegal_bytes.nic", "ice", C::kPhyError, nullptr, 0, kAny, "Illegal bytes received"},
    {"rx_length_errors.nic", "ice", C::kPhyError, nullptr, 0, kAny, "Frames with length errors"},
    {"tx_dropped_link_down.nic", "ice", C::kDiscard, nullptr, 0, kAny, "Frames dropped because the link was down"},
    {"rx_undersize.nic", "ice", C::kPhyError, nullptr, 0, kAny, "Undersized frames"},
    {"rx_oversize.nic", "ice", C::kDiscard, nullptr, 0, kAny, "Oversized frames (MTU mismatch)"},
    {"rx_fragments.nic", "ice", C::kPhyError, nullptr, 0, kAny, "Frame fragments"},
    {"rx_jabber.nic", "ice", C::kPhyError, nullptr, 0, kAny, "Jabber frames"},

    // ---- i40e ethtool -S ----
    {"port.rx_crc_errors", "i40e", C::kPhyError, nullptr, 0, kAny, "Frames with a CRC error"},
    {"port.link_xon_rx", "i40e", C::kPause, nullptr, 0, kAny, "Link XON frames received"},
    {"port.link_xoff_rx", "i40e", C::kPause, nullptr, 0, kAny, "Link XOFF (pause) frames received"},
    {"port.link_xon_tx", "i40e", C::kPause, nullptr, 0, kAny, "Link XON frames sent"},
    {"port.link_xoff_tx", "i40e", C::kPause, nullptr, 0, kAny, "Link XOFF (pause) frames sent"},
    {"port.rx_dropped", "i40e", C::kDiscard, nullptr, 0, kAny, "Frames dropped by the port (newer kernels: port.rx_discards)"},
    {"port.rx_discards", "i40e", C::kDiscard, nullptr, 0, kAny, "Frames dropped by the port"},
    {"port.mac_local_faults", "i40e", C::kLink, nullptr, 0, kAny, "MAC local faults"},
    {"port.mac_remote_faults", "i40e", C::kLink, nullptr, 0, kAny, "MAC remote faults"},
    {"port.rx_priority_#_xon_rx", "i40e", C::kPause, nullptr, 0, kAny, "PFC XON frames received on this priority"},
    {"port.rx_priority_#_xoff_rx", "i40e", C::kPause, nullptr, 0, kAny, "PFC XOFF frames received on this priority"},
    {"port.tx_priority_#_xon_tx", "i40e", C::kPause, nullptr, 0, kAny, "PFC XON frames sent on this priority"},
    {"port.tx_priority_#_xoff_tx", "i40e", C::kPause, nullptr, 0, kAny, "PFC XOFF frames sent on this priority"},

    // ---- netdev statistics (/sys/class/net/*/statistics), also generic ethtool names ----
    {"rx_bytes", "netdev", C::kTraffic, nullptr, 0, kAny, "Bytes received"},
    {"tx_bytes", "netdev", C::kTraffic, nullptr, 0, kAny, "Bytes transmitted"},
    {"rx_packets", "netdev", C::kTraffic, nullptr, 0, kAny, "Packets received"},
    {"tx_packets", "netdev", C::kTraffic, nullptr, 0, kAny, "Packets transmitted"},
    {"multicast", "netdev", C::kTraffic, nullptr, 0, kAny, "Multicast packets received"},
    {"rx_compressed", "netdev", C::kTraffic, nullptr, 0, kAny, "Compressed packets received"},
    {"tx_compressed", "netdev", C::kTraffic, nullptr, 0, kAny, "Compressed packets transmitted"},
    {"rx_errors", "netdev", C::kPhyError, nullptr, 0, kAny, "Receive errors of any kind (the driver's total)"},
    {"tx_errors", "netdev", C::kDiscard, nullptr, 0, kAny, "Transmit errors of any kind (the driver's total)"},
    {"rx_dropped", "netdev", C::kDiscard, nullptr, 0, kAny, "Received packets dropped by the stack or driver (also unknown protocols)"},
    {"tx_dropped", "netdev", C::kDiscard, nullptr, 0, kAny, "Transmit packets dropped"},
    {"rx_missed_errors", "netdev", C::kDiscard, nullptr, 0, kAny, "Packets missed by the NIC for lack of buffer"},
    {"rx_over_errors", "netdev", C::kDiscard, nullptr, 0, kAny, "Receive ring overflows"},
    {"rx_fifo_errors", "netdev", C::kDiscard, nullptr, 0, kAny, "Receive FIFO overruns"},
    {"tx_fifo_errors", "netdev", C::kDiscard, nullptr, 0, kAny, "Transmit FIFO underruns"},
    {"rx_crc_errors", "netdev", C::kPhyError, nullptr, 0, kAny, "Frames with a CRC error"},
    {"rx_frame_errors", "netdev", C::kPhyError, nullptr, 0, kAny, "Frame alignment errors"},
    {"rx_length_errors", "netdev", C::kPhyError, nullptr, 0, kAny, "Frames with a bad length"},
    {"rx_nohandler", "netdev", C::kDiscard, nullptr, 0, kAny, "Packets dropped for lack of a protocol handler"},
    {"rx_otherhost_dropped", "netdev", C::kDiscard, nullptr, 0, kAny, "Packets for another host dropped"},
    {"collisions", "netdev", C::kOther, nullptr, 0, kAny, "Collisions (half duplex only)"},
    {"tx_carrier_errors", "netdev", C::kLink, nullptr, 0, kAny, "Transmit failures for loss of carrier"},
    {"tx_aborted_errors", "netdev", C::kDiscard, nullptr, 0, kAny, "Aborted transmissions"},
    {"tx_heartbeat_errors", "netdev", C::kOther, nullptr, 0, kAny, "Heartbeat (SQE) errors"},
    {"tx_window_errors", "netdev", C::kOther, nullptr, 0, kAny, "Late collisions"},
};

unsigned group_bit(CounterGroup g) {
  switch (g) {
    case CounterGroup::kIbPortCounters: return kPort;
    case CounterGroup::kIbHwCounters: return kHw;
    case CounterGroup::kNetdevStats: return kNet;
    case CounterGroup::kEthtoolStats: return kEth;
  }
  return kNet;
}

const Row* find_row(CounterGroup group, std::string_view name) {
  unsigned bit = group_bit(group);
  auto applies = [&](const Row& r) { return r.groups == kAny || (r.groups & bit) != 0; };
  for (const auto& r : kRows)
    if (applies(r) && name == r.name) return &r;
  std::string norm = normalize_counter_name(name);
  if (norm == name) return nullptr;
  for (const auto& r : kRows)
    if (applies(r) && norm == r.name) return &r;
  return nullptr;
}

std::string lower(std::string_view s) {
  std::string o(s);
  for (auto& c : o) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return o;
}

bool has(const std::string& s, const char* word) { return s.find(word) != std::string::npos; }

// Keyword guess for names the table does not know (new firmware groups, other drivers).
CounterCategory guess_category(std::string_view name) {
  std::string n = lower(name);
  if (has(n, "pause") || has(n, "pfc") || has(n, "xon") || has(n, "xoff")) return C::kPause;
  if (has(n, "ecn") || has(n, "_ce_") || has(n, "marked")) return C::kEcn;
  if (has(n, "cnp")) return C::kCnp;
  if (has(n, "crc") || has(n, "fcs") || has(n, "symbol") || has(n, "fec_") ||
      has(n, "corrected")) return C::kPhyError;
  if (has(n, "discard") || has(n, "drop") || has(n, "out_of_buffer") || has(n, "missed"))
    return C::kDiscard;
  if (has(n, "retrans") || has(n, "timeout") || has(n, "seq_err") || has(n, "retr") ||
      has(n, "nak")) return C::kRetransmit;
  if (has(n, "link_down") || has(n, "carrier") || has(n, "flap")) return C::kLink;
  if (has(n, "bytes") || has(n, "packets") || has(n, "pkts") || has(n, "octets") ||
      has(n, "octs")) return C::kTraffic;
  return C::kOther;
}

// mlx5 hw_counters that are 64-bit (congestion statistics, PPCNT); all others are 32-bit
// Q counters that wrap (DOMAIN.md section 3).
const char* const kMlx5Wide[] = {"rp_cnp_ignored", "rp_cnp_handled", "np_ecn_marked_roce_packets",
                                 "np_cnp_sent", "rx_icrc_encapsulated", "cc_rx_ce_pkts",
                                 "cc_rx_cnp_pkts", "cc_tx_cnp_pkts"};

}  // namespace

std::string normalize_counter_name(std::string_view name) {
  std::string out;
  for (size_t i = 0; i < name.size();) {
    if (std::isdigit(static_cast<unsigned char>(name[i]))) {
      out.push_back('#');
      while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i]))) ++i;
    } else {
      out.push_back(name[i++]);
    }
  }
  return out;
}

CounterClass classify_counter(CounterGroup group, std::string_view name) {
  CounterClass c;
  if (const Row* r = find_row(group, name)) {
    c.category = r->category;
    c.canonical = r->canonical ? r->canonical : std::string(name);
    c.meaning = r->meaning;
    c.family = r->family;
    c.known = true;
    return c;
  }
  c.category = guess_category(name);
  c.canonical = std::string(name);
  return c;
}

CounterWidth counter_width(CounterGroup group, std::string_view driver, std::string_view name) {
  if (group == CounterGroup::kIbPortCounters) {
    if (const Row* r = find_row(group, name); r && std::string_view(r->family) == "ib_pma")
      return CounterWidth{r->width_bits, false};
    return CounterWidth{64, false};
  }
  if (group == CounterGroup::kIbHwCounters && starts_with(driver, "mlx5")) {
    for (const char* w : kMlx5Wide)
      if (name == w) return CounterWidth{64, false};
    if (starts_with(name, "rdma_")) return CounterWidth{64, false};  // optional traffic counters
    return CounterWidth{32, true};
  }
  return CounterWidth{64, false};
}

std::string counter_unit(CounterGroup group, std::string_view name) {
  if (group == CounterGroup::kIbPortCounters &&
      (name == "port_xmit_data" || name == "port_rcv_data"))
    return "bytes";
  std::string n = lower(name);
  if (has(n, "duration")) return "us";
  if (has(n, "_err_lane_") || ends_with(n, "_bits") || has(n, "_bits_") || n == "rx_bits")
    return "bits";
  if (has(n, "bytes") || has(n, "octets") || has(n, "octs")) return "bytes";
  return "count";
}

uint64_t counter_scale(CounterGroup group, std::string_view name) {
  if (group == CounterGroup::kIbPortCounters &&
      (name == "port_xmit_data" || name == "port_rcv_data"))
    return 4;
  return 1;
}

std::vector<CounterKnowledgeRow> counter_knowledge_table() {
  std::vector<CounterKnowledgeRow> out;
  for (const auto& r : kRows)
    out.push_back({r.name, r.family, r.category, r.canonical ? r.canonical : "", r.meaning});
  return out;
}

}  // namespace fabdiag
