#include "rules/symptom.h"

#include <map>

namespace fabdiag {

const char* to_string(Symptom s) {
  switch (s) {
    case Symptom::kPfcStorm: return "pfc_storm";
    case Symptom::kCongestion: return "congestion";
    case Symptom::kEcnNotEnabled: return "ecn_not_enabled";
    case Symptom::kRdmaPacketLoss: return "rdma_packet_loss";
    case Symptom::kLossyRoce: return "lossy_roce";
    case Symptom::kPhyDegradation: return "phy_degradation";
    case Symptom::kLinkFlap: return "link_flap";
    case Symptom::kRxStarvation: return "rx_starvation";
  }
  return "unknown";
}

std::optional<Symptom> symptom_of_rule_code(const std::string& code) {
  using enum Symptom;
  static const std::map<std::string, Symptom> m = {
      {"pause_storm", kPfcStorm},          {"pause_storm_warning", kPfcStorm},
      {"paused_fraction", kPfcStorm},      {"pause_frames", kPfcStorm},
      {"congestion", kCongestion},         {"ecn_not_enabled", kEcnNotEnabled},
      {"rdma_packet_loss", kRdmaPacketLoss},
      {"symbol_errors", kPhyDegradation},  {"port_rcv_errors", kPhyDegradation},
      {"link_integrity_errors", kPhyDegradation}, {"phy_errors", kPhyDegradation},
      {"fec_uncorrectable", kPhyDegradation},
      {"link_down", kLinkFlap},            {"link_retrain", kLinkFlap},
      {"carrier_changes", kLinkFlap},      {"carrier_lost", kLinkFlap},
      {"link_state_changes", kLinkFlap},
      {"link_events", kLinkFlap},
      {"nic_rx_discards", kRxStarvation},  {"rdma_rq_empty", kRxStarvation},
      {"netdev_rq_empty", kRxStarvation}};
  auto it = m.find(code);
  if (it == m.end()) return std::nullopt;
  return it->second;
}

Layer layer_of(Symptom s) {
  if (s == Symptom::kPfcStorm || s == Symptom::kPhyDegradation || s == Symptom::kLinkFlap)
    return Layer::kPhysical;
  return Layer::kTransport;
}

const char* action_of(Symptom s) {
  switch (s) {
    case Symptom::kPfcStorm:
      return "Find the stuck receiver: a PFC storm comes from a host or NIC that cannot drain its "
             "buffers (hung host, PCIe stall); rx = the switch throttles this NIC, tx = this host "
             "cannot keep up. Check pfc_stall_prevention and the peers sending pause";
    case Symptom::kLossyRoce:
      return "Put RoCE on a PFC-enabled priority (e.g. 3, with DSCP trust or a ToS for RDMA), or tune "
             "ECN/DCQCN for lossy operation; check the RoCE MTU";
    case Symptom::kPhyDegradation:
      return "Clean or reseat the optic, then replace the cable/transceiver if errors keep growing; "
             "compare with the far end (mlxlink / ethtool -m) and check the FEC mode";
    case Symptom::kLinkFlap:
      return "Check the cable, transceiver and far-end switch port (dmesg and the switch log show "
             "the flap); drain the node from multi-node jobs until the link stays up";
    case Symptom::kRxStarvation:
      return "The receiver cannot keep up: check PCIe (width, stalls), CPU/IRQ load, and that the "
             "application posts receives; on RoCE check PFC on the traffic priority";
    case Symptom::kCongestion:
      return "Compare with the fleet median; congestion without loss is DCQCN doing its job. "
             "Persistent marks on one rail: look for incast or ECMP collisions";
    case Symptom::kEcnNotEnabled:
    case Symptom::kRdmaPacketLoss: return "";
  }
  return "";
}

}  // namespace fabdiag
