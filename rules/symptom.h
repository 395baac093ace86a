// Symptoms: what the counter interpretation (rules/counter_interpret.h) makes of one link's
// raw rule findings (rules/counter_rules.h): one finding per (link, symptom), whose code is the
// symptom's name. Their thresholds and sources are listed in rules/counter_interpret.h.
#pragma once

#include <optional>
#include <string>

#include "core/finding.h"

namespace fabdiag {

/// One symptom of a link. to_string() gives its finding code.
enum class Symptom {
  kPfcStorm,        ///< "pfc_storm" (L4); below warn the finding's code is "pause_frames".
  kCongestion,      ///< "congestion" (L3): ECN marks and CNPs.
  kEcnNotEnabled,   ///< "ecn_not_enabled" (L3): CNPs ignored.
  kRdmaPacketLoss,  ///< "rdma_packet_loss" (L3): ack timeouts, sequence errors, retransmits.
  kLossyRoce,       ///< "lossy_roce" (L3): RDMA loss on a RoCE port without a lossless class.
  kPhyDegradation,  ///< "phy_degradation" (L4): symbol/CRC/FEC errors, pre-FEC BER, lanes.
  kLinkFlap,        ///< "link_flap" (L4): link downs, retrains, carrier changes and losses.
  kRxStarvation,    ///< "rx_starvation" (L3): receive-buffer drops.
};

/// The symptom's finding code ("pfc_storm", "phy_degradation", ...).
const char* to_string(Symptom s);

/// The symptom a raw counter rule's finding code feeds ("symbol_errors" -> kPhyDegradation);
/// nullopt for codes that pass through the interpretation unchanged (port state, xmit_wait,
/// saturated counters, ...). Codes: rules/counter_rule_table.cpp and rules/counter_rules.cpp.
std::optional<Symptom> symptom_of_rule_code(const std::string& code);

/// Layer of the symptom's finding: kPhysical for PFC storms, physical degradation and link
/// flaps, kTransport for the others.
Layer layer_of(Symptom s);

/// The symptom's action text; "" where the first raw finding's action is kept (ECN not
/// enabled, RDMA packet loss).
const char* action_of(Symptom s);

}  // namespace fabdiag
