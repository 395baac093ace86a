// Symptoms: their names are the finding codes of the JSON contract, and raw rule codes map to them.
#include <doctest/doctest.h>

#include <string>

#include "rules/symptom.h"

using namespace fabdiag;

TEST_CASE("symptom names are the finding codes") {
  CHECK(std::string(to_string(Symptom::kPfcStorm)) == "pfc_storm");
  CHECK(std::string(to_string(Symptom::kCongestion)) == "congestion");
  CHECK(std::string(to_string(Symptom::kEcnNotEnabled)) == "ecn_not_enabled");
  CHECK(std::string(to_string(Symptom::kRdmaPacketLoss)) == "rdma_packet_loss");
  CHECK(std::string(to_string(Symptom::kLossyRoce)) == "lossy_roce");
  CHECK(std::string(to_string(Symptom::kPhyDegradation)) == "phy_degradation");
  CHECK(std::string(to_string(Symptom::kLinkFlap)) == "link_flap");
  CHECK(std::string(to_string(Symptom::kRxStarvation)) == "rx_starvation");
}

TEST_CASE("raw rule codes feed their symptom, the others pass through") {
  CHECK(symptom_of_rule_code("pause_storm") == Symptom::kPfcStorm);
  CHECK(symptom_of_rule_code("pause_frames") == Symptom::kPfcStorm);
  CHECK(symptom_of_rule_code("paused_fraction") == Symptom::kPfcStorm);
  CHECK(symptom_of_rule_code("congestion") == Symptom::kCongestion);
  CHECK(symptom_of_rule_code("ecn_not_enabled") == Symptom::kEcnNotEnabled);
  CHECK(symptom_of_rule_code("rdma_packet_loss") == Symptom::kRdmaPacketLoss);
  CHECK(symptom_of_rule_code("symbol_errors") == Symptom::kPhyDegradation);
  CHECK(symptom_of_rule_code("fec_uncorrectable") == Symptom::kPhyDegradation);
  CHECK(symptom_of_rule_code("link_down") == Symptom::kLinkFlap);
  CHECK(symptom_of_rule_code("carrier_lost") == Symptom::kLinkFlap);
  CHECK(symptom_of_rule_code("rdma_rq_empty") == Symptom::kRxStarvation);
  CHECK_FALSE(symptom_of_rule_code("port_down").has_value());
  CHECK_FALSE(symptom_of_rule_code("counter_saturated").has_value());
  CHECK_FALSE(symptom_of_rule_code("xmit_wait").has_value());
  CHECK_FALSE(symptom_of_rule_code("lossy_roce").has_value());  // computed, never a raw code
}

TEST_CASE("symptom layers and actions") {
  CHECK(layer_of(Symptom::kPfcStorm) == Layer::kPhysical);
  CHECK(layer_of(Symptom::kPhyDegradation) == Layer::kPhysical);
  CHECK(layer_of(Symptom::kLinkFlap) == Layer::kPhysical);
  CHECK(layer_of(Symptom::kCongestion) == Layer::kTransport);
  CHECK(layer_of(Symptom::kLossyRoce) == Layer::kTransport);
  CHECK(layer_of(Symptom::kRxStarvation) == Layer::kTransport);
  // Without an action of its own the raw finding's action is kept.
  CHECK(std::string(action_of(Symptom::kEcnNotEnabled)).empty());
  CHECK(std::string(action_of(Symptom::kRdmaPacketLoss)).empty());
  CHECK(std::string(action_of(Symptom::kLossyRoce)).find("PFC-enabled priority") != std::string::npos);
  CHECK(std::string(action_of(Symptom::kPhyDegradation)).find("reseat the optic") != std::string::npos);
}
